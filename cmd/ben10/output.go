package main

import (
	"encoding/json"
	"io"
	"strings"
)

// printJSON writes v as indented JSON followed by a newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ANSI styles for banners.
const (
	styleBold    = "\x1b[1m"
	styleWarning = "\x1b[1;33m"
	styleReset   = "\x1b[0m"
)

// oneLine folds s onto one line (runs of white space become one space) and
// cuts it to at most n characters, marking a cut with "…".
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
