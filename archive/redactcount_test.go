package archive

import (
	"bytes"
	"maps"
	"testing"
)

// TestCountChangedLines: only the changed lines are counted, each from its
// original bytes without the line ending (as RedactLine saw it), the last
// line with or without one; numbers past the end count nothing.
func TestCountChangedLines(t *testing.T) {
	count := func(line []byte) map[string]int {
		if bytes.HasSuffix(line, []byte("\r")) || bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("counted with its line ending: %q", line)
		}
		return map[string]int{"k": bytes.Count(line, []byte("K")), "z": bytes.Count(line, []byte("Z"))}
	}
	for _, tc := range []struct {
		name    string
		data    string
		changed []int
		want    map[string]int
	}{
		{"none", "K\nK\n", nil, map[string]int{}},
		{"some", "K\nKK\nZ\nK\n", []int{1, 2}, map[string]int{"k": 2, "z": 1}},
		{"CRLF", "K\r\nKZ\r\n", []int{0, 1}, map[string]int{"k": 2, "z": 1}},
		{"last line unterminated", "x\nKKK", []int{1}, map[string]int{"k": 3, "z": 0}},
		{"past the end", "K\n", []int{0, 5}, map[string]int{"k": 1, "z": 0}},
	} {
		changed := map[int]bool{}
		for _, l := range tc.changed {
			changed[l] = true
		}
		got := map[string]int{}
		countChangedLines([]byte(tc.data), changed, count, got)
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRedactionReportTotal: the rules' sum, exact; without rules (an
// archive written before they were recorded) the changed lines, a lower
// bound.
func TestRedactionReportTotal(t *testing.T) {
	for _, tc := range []struct {
		r     RedactionReport
		n     int
		exact bool
	}{
		{RedactionReport{}, 0, true},
		{RedactionReport{Enabled: true, LinesChanged: 2, Rules: map[string]int{"a": 2, "b": 3}}, 5, true},
		{RedactionReport{Enabled: true, LinesChanged: 0, Rules: map[string]int{}}, 0, true},
		{RedactionReport{Enabled: true, LinesChanged: 4}, 4, false},
	} {
		if n, exact := tc.r.Total(); n != tc.n || exact != tc.exact {
			t.Errorf("%+v: Total %d, %v; want %d, %v", tc.r, n, exact, tc.n, tc.exact)
		}
	}
}
