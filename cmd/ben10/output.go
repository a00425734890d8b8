package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// printJSON writes v as indented JSON followed by a newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// useColor reports whether coloured output is wanted: never with NO_COLOR
// set (https://no-color.org), never when stdout is not a terminal.
func useColor() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// infof prints a human line unless --quiet or --json is set.
func infof(w io.Writer, format string, args ...any) {
	if globalFlags.quiet || globalFlags.json {
		return
	}
	fmt.Fprintf(w, format, args...)
}

// oneLine folds s onto one line (runs of white space become one space) and
// cuts it to at most n characters, marking a cut with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
