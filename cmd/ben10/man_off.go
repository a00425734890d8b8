//go:build !man

package main

import "github.com/spf13/cobra"

// newManCmd is nil in the ordinary binary: the man pages are written by a
// binary built with -tags man (make man; see man.go).
func newManCmd(*globalOptions) *cobra.Command { return nil }
