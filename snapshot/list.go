package snapshot

import (
	"bytes"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// ListTable is the table of `compaction list`: the column titles, then
// one row per snapshot, newest first.
type ListTable struct {
	rows       [][]string
	Count      int   // snapshots
	TotalBytes int64 // their compressed size
}

// NewListTable lays out ix's table, with dates in the local time zone;
// verbose adds the Files, Tools and Trigger columns.
func NewListTable(ix *Index, verbose bool) *ListTable {
	h := Handles(ix)
	head := []string{"ID", "Date", "Tokens", "Messages", "Size", "Pinned"}
	if verbose {
		head = []string{"ID", "Date", "Tokens", "Messages", "Files", "Tools", "Trigger", "Size", "Pinned"}
	}
	t := &ListTable{rows: [][]string{head}, Count: len(ix.Snapshots), TotalBytes: ix.total()}
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		s := &ix.Snapshots[i]
		pin := ""
		if s.Pinned {
			pin = "📌"
		}
		p := &s.PreCompaction
		row := []string{h[i], shortDate(s.CreatedAt), Commas(p.TokenCount), strconv.Itoa(p.MessageCount)}
		if verbose {
			row = append(row, strconv.Itoa(p.FileCount), strconv.Itoa(p.ToolExecutionCount), s.Trigger)
		}
		t.rows = append(t.rows, append(row, store.FormatBytes(s.CompressedBytes), pin))
	}
	return t
}

// AppendTo appends the laid-out table, one line per row, its columns
// aligned by text/tabwriter with two spaces of padding.
func (t *ListTable) AppendTo(b []byte) []byte {
	buf := bytes.NewBuffer(b)
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	for _, r := range t.rows {
		tw.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	tw.Flush() // writes to a bytes.Buffer, which does not fail
	return buf.Bytes()
}

// shortDate is the PRD's list date: "Jan 27, 2026 2:30p", local time.
func shortDate(t time.Time) string {
	t = t.Local()
	if t.Hour() < 12 {
		return t.Format("Jan 2, 2006 3:04") + "a"
	}
	return t.Format("Jan 2, 2006 3:04") + "p"
}

// Handles gives each snapshot the shortest id users can type: the session
// suffix when it is unique in the index, else the timestamp form.
func Handles(ix *Index) []string {
	suffix := make(map[string]int, len(ix.Snapshots))
	for _, s := range ix.Snapshots {
		suffix[lastPart(s.ID)]++
	}
	out := make([]string, len(ix.Snapshots))
	for i, s := range ix.Snapshots {
		if suffix[lastPart(s.ID)] == 1 {
			out[i] = lastPart(s.ID)
		} else {
			out[i] = ShortID(s.ID)
		}
	}
	return out
}

func lastPart(id string) string {
	short := ShortID(id)
	// YYYYMMDD-HHMMSS-<prefix>[-N]
	if len(short) > 16 {
		return short[16:]
	}
	return short
}

// Commas prints n with thousands separators.
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
