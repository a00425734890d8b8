// Package transcript imports assistants' own session files into an
// archive.State, detecting the harness when not told.
package transcript
