// Package archive is Ben10's context model (State) and its mapping onto
// .ctx segments: encode, lazy open, per-component accessors, raw transcript
// export, resumable restore and the recovery digest.
package archive
