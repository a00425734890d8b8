package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printJSON writes v as indented JSON followed by a newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// orNone is s, or "-" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// nonNil is s, or an empty slice for nil: JSON output says [] rather
// than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// table prints v, got with err, as JSON with --json, else what text
// writes through an aligned table (tab-separated cells, one row a line).
func (g *globalOptions) table(w io.Writer, v any, err error, text func(tw io.Writer)) error {
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(w, v)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	text(tw)
	return tw.Flush()
}

// writeRows prints rows as an aligned "name:  value" table ("-" for an
// empty value).
func writeRows(out io.Writer, rows [][2]string) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s:\t%s\n", r[0], orNone(r[1]))
	}
	return tw.Flush()
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
