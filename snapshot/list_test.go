package snapshot

import (
	"strings"
	"testing"
	"time"
)

// TestListTable: `compaction list` lays out its columns as text/tabwriter
// with two spaces of padding, newest first, in the reader's time zone,
// with the shortest unique handle, thousands separators and a pin mark.
// (Not parallel: it sets time.Local.)
func TestListTable(t *testing.T) {
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.FixedZone("UTC-5", -5*3600)
	ix := &Index{Snapshots: []Snapshot{
		{ID: "pre-compact-20260127-033000-0001f3", CreatedAt: time.Date(2026, 1, 27, 3, 30, 0, 0, time.UTC),
			PreCompaction: PreCompaction{TokenCount: 180241, MessageCount: 847, FileCount: 23, ToolExecutionCount: 156},
			Trigger:       "threshold", CompressedBytes: 3 << 20, Pinned: true},
		{ID: "pre-compact-20260127-193000-a1b2c3", CreatedAt: time.Date(2026, 1, 27, 19, 30, 0, 0, time.UTC),
			PreCompaction: PreCompaction{TokenCount: 999, MessageCount: 5}, Trigger: "manual", CompressedBytes: 6 << 10},
		{ID: "pre-compact-20260128-170500-a1b2c3", CreatedAt: time.Date(2026, 1, 28, 17, 5, 0, 0, time.UTC),
			PreCompaction: PreCompaction{TokenCount: 1234567, MessageCount: 12}, Trigger: "manual", CompressedBytes: 100},
	}}
	tests := []struct {
		verbose bool
		want    []string
	}{
		{false, []string{
			"ID                      Date                 Tokens     Messages  Size     Pinned",
			"20260128-170500-a1b2c3  Jan 28, 2026 12:05p  1,234,567  12        100 B    ",
			"20260127-193000-a1b2c3  Jan 27, 2026 2:30p   999        5         6.0 KiB  ",
			"0001f3                  Jan 26, 2026 10:30p  180,241    847       3.0 MiB  📌",
		}},
		{true, []string{
			"ID                      Date                 Tokens     Messages  Files  Tools  Trigger    Size     Pinned",
			"20260128-170500-a1b2c3  Jan 28, 2026 12:05p  1,234,567  12        0      0      manual     100 B    ",
			"20260127-193000-a1b2c3  Jan 27, 2026 2:30p   999        5         0      0      manual     6.0 KiB  ",
			"0001f3                  Jan 26, 2026 10:30p  180,241    847       23     156    threshold  3.0 MiB  📌",
		}},
	}
	for _, tt := range tests {
		tab := NewListTable(ix, tt.verbose)
		got := strings.Split(strings.TrimSuffix(string(tab.AppendTo([]byte("> "))), "\n"), "\n")
		if got[0] != "> "+tt.want[0] || strings.Join(got[1:], "\n") != strings.Join(tt.want[1:], "\n") {
			t.Errorf("verbose %v:\n%s\nwant:\n%s", tt.verbose, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
		if tab.Count != 3 || tab.TotalBytes != 3<<20+6<<10+100 {
			t.Errorf("verbose %v: count %d, total %d", tt.verbose, tab.Count, tab.TotalBytes)
		}
	}
}
