package main

import (
	"io"

	"github.com/spf13/cobra"
)

// globalFlags is the one globalOptions of the commands not yet built by a
// constructor: they reach it through the functions below. main hands the
// same value to the constructors.
var globalFlags = &globalOptions{io: systemStreams()}

func infof(w io.Writer, format string, args ...any) { globalFlags.infof(w, format, args...) }
func warnf(format string, args ...any)              { globalFlags.warnf(format, args...) }
func useColor(w io.Writer) bool                     { return globalFlags.useColor(w) }
func styled(w io.Writer, style, s string) string    { return globalFlags.styled(w, style, s) }
func printWarnings(cmd *cobra.Command, ws []string) { globalFlags.printWarnings(cmd, ws) }
func newProgress(label string, total int64) *progress {
	return globalFlags.newProgress(label, total)
}
func newBytesProgress(label string, total int64) *progress {
	return globalFlags.newBytesProgress(label, total)
}
func confirm(_ *cobra.Command, yes bool, question string) error {
	return globalFlags.confirm(yes, question)
}
