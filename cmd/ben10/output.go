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

// useColor reports whether coloured output is wanted on w: never with
// NO_COLOR set (https://no-color.org), never with --json, and only when w
// is a terminal.
func useColor(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || globalFlags.json {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ANSI styles for banners.
const (
	styleBold    = "\x1b[1m"
	styleWarning = "\x1b[1;33m"
	styleReset   = "\x1b[0m"
)

// styled wraps s in style when w takes colour (see useColor).
func styled(w io.Writer, style, s string) string {
	if !useColor(w) {
		return s
	}
	return style + s + styleReset
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

// warnf prints a warning line on stderr (also under --quiet and --json:
// it is not output).
func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ben10: warning: "+format+"\n", args...)
}
