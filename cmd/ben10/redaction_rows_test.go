package main

import (
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestRedactionRows: inspect and compaction show give an archive's total
// when it records one, and "at least" what is known for an archive
// written before the totals were recorded.
func TestRedactionRows(t *testing.T) {
	for _, tc := range []struct {
		r             archive.RedactionReport
		indexed       int
		inspect, show string
	}{
		{archive.RedactionReport{}, 0, "false (0 transcript lines, 0 texts changed)", "0 secrets replaced"},
		{archive.RedactionReport{Enabled: true, LinesChanged: 2, TextsChanged: 1, Rules: map[string]int{"a": 2, "b": 1}}, 1,
			"true (3 secrets; 2 transcript lines, 1 texts changed)", "3 secrets replaced"},
		{archive.RedactionReport{Enabled: true, LinesChanged: 1, Rules: map[string]int{"a": 1}}, 1,
			"true (1 secret; 1 transcript lines, 0 texts changed)", "1 secret replaced"},
		{archive.RedactionReport{Enabled: true, LinesChanged: 4}, 7,
			"true (at least 4 secrets; 4 transcript lines, 0 texts changed)", "at least 7 secrets replaced"},
		{archive.RedactionReport{Enabled: true, LinesChanged: 4}, 2,
			"true (at least 4 secrets; 4 transcript lines, 0 texts changed)", "at least 4 secrets replaced"},
	} {
		if got := redactedRow(tc.r); got != tc.inspect {
			t.Errorf("inspect of %+v: %q, want %q", tc.r, got, tc.inspect)
		}
		if got := snapshotRedactions(tc.indexed, tc.r); got != tc.show {
			t.Errorf("compaction show of %+v (index %d): %q, want %q", tc.r, tc.indexed, got, tc.show)
		}
	}
}
