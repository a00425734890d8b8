package main

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// TestAlignColumnsMatchesTabwriter: the list table lays out exactly as
// text/tabwriter did, for random cells (empty, wide, multi-byte).
func TestAlignColumnsMatchesTabwriter(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"", "a", "0001f3", "42,003", "📌", "Nov 21, 2026 12:28a", "ünïcödé", "6.0 KB", "threshold", "1234567890123456789"}
	for iter := 0; iter < 300; iter++ {
		cols := 1 + rng.Intn(9)
		rows := 1 + rng.Intn(20)
		var cells []string
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		for r := 0; r < rows; r++ {
			line := make([]string, cols)
			for c := range line {
				line[c] = words[rng.Intn(len(words))]
			}
			cells = append(cells, line...)
			tw.Write([]byte(strings.Join(line, "\t") + "\n"))
		}
		tw.Flush()
		if got := alignColumns(cells, cols, 2); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("cells %q (%d columns):\ngot:\n%s\nwant:\n%s", cells, cols, got, want.Bytes())
		}
	}
}

// TestAppendShortDate: the fast date form is shortDate's.
func TestAppendShortDate(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	times := []time.Time{{}, time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 27, 0, 5, 0, 0, time.UTC),
		time.Date(2026, 1, 27, 12, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 23, 59, 0, 0, time.UTC)}
	for i := 0; i < 2000; i++ {
		times = append(times, time.Unix(rng.Int63n(4e9), 0))
	}
	for _, tm := range times {
		if got, want := string(appendShortDate(nil, tm)), shortDate(tm); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
}
