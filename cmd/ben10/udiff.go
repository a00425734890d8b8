package main

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// unifiedDiff is a unified diff (3 lines of context) of a → b, named
// name, or "" when they are equal.
func unifiedDiff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	s, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: splitLines(string(a)), B: splitLines(string(b)),
		FromFile: name, ToFile: name + " (after)", Context: 3})
	return s
}

// splitLines cuts s into lines, each ending in "\n" (one is added to a
// last line without it).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if n := len(lines) - 1; lines[n] == "" {
		return lines[:n]
	}
	lines[len(lines)-1] += "\n"
	return lines
}
