// Package store is one project's context directory: its layout,
// configuration, file locks and atomic writes.
package store
