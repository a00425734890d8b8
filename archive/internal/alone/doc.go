// Package alone holds the runnable example of a program that links
// package archive and nothing of Ben10's importers: its test binary
// imports archive only, so no importer registers a Deriver, and the
// example reads back every segment the archive it wrote holds.
package alone
