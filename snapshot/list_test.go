package snapshot

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// TestAlignColumnsMatchesTabwriter: the table lays out exactly as
// text/tabwriter (padding 2) does, for random cells (empty, wide,
// multi-byte), whole or split around the Date column as NewListTable
// splits it.
func TestAlignColumnsMatchesTabwriter(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"", "a", "0001f3", "42,003", "📌", "Nov 21, 2026 12:28a", "ünïcödé", "6.0 KB", "threshold", "1234567890123456789"}
	for iter := 0; iter < 300; iter++ {
		cols := 3 + rng.Intn(7)
		rows := 1 + rng.Intn(20)
		var cells, first, date, rest []string
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		for r := 0; r < rows; r++ {
			line := make([]string, cols)
			for c := range line {
				line[c] = words[rng.Intn(len(words))]
			}
			cells = append(cells, line...)
			first, date, rest = append(first, line[0]), append(date, line[1]), append(rest, line[2:]...)
			tw.Write([]byte(strings.Join(line, "\t") + "\n"))
		}
		tw.Flush()
		var got []byte
		for _, l := range alignColumns(cells, cols, false) {
			got = append(append(got, l...), '\n')
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("cells %q (%d columns):\ngot:\n%s\nwant:\n%s", cells, cols, got, want.Bytes())
		}
		// Prefix + date column + suffix, as AppendTo joins them.
		p, d, s := alignColumns(first, 1, true), alignColumns(date, 1, true), alignColumns(rest, cols-2, false)
		got = got[:0]
		for i := range p {
			got = append(append(append(append(got, p[i]...), d[i]...), s[i]...), '\n')
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("split cells %q (%d columns):\ngot:\n%s\nwant:\n%s", cells, cols, got, want.Bytes())
		}
	}
}

// TestShortDate: the fast date form is time.Format's "Jan 2, 2006 3:04"
// with a/p, in local time.
func TestShortDate(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	times := []time.Time{{}, time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 27, 0, 5, 0, 0, time.UTC),
		time.Date(2026, 1, 27, 12, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 23, 59, 0, 0, time.UTC)}
	for i := 0; i < 2000; i++ {
		times = append(times, time.Unix(rng.Int63n(4e9), 0))
	}
	for _, tm := range times {
		l := tm.Local()
		want := l.Format("Jan 2, 2006 3:04") + map[bool]string{true: "a", false: "p"}[l.Hour() < 12]
		if got := ShortDate(tm); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
}
