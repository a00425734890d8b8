package snapshot

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ListTable is the table of `compaction list` with every column laid out
// but Date, which depends on the reader's time zone: a line is Prefix,
// the date (ShortDate of Created) padded to the Date column's width, then
// Suffix. Columns are aligned as text/tabwriter aligns them (two spaces of
// padding, widths in runes).
type ListTable struct {
	Head       ListLine   // the column titles (Created unused)
	Lines      []ListLine // one per snapshot, newest first
	Count      int        // snapshots
	TotalBytes int64      // their compressed size
}

// ListLine is one line of a ListTable.
type ListLine struct {
	Created        time.Time
	Prefix, Suffix string
}

// listPadding is the space between columns.
const listPadding = 2

// AppendTo appends the laid-out table, one line per snapshot after the
// titles, with the dates in the local time zone.
func (t *ListTable) AppendTo(b []byte) []byte {
	dates := make([]byte, 0, len(t.Lines)*20)
	ends := make([]int, len(t.Lines))
	width := len("Date")
	for i, l := range t.Lines {
		start := len(dates)
		dates = appendShortDate(dates, l.Created)
		ends[i] = len(dates)
		width = max(width, utf8.RuneCount(dates[start:]))
	}
	width += listPadding
	size := len(t.Head.Prefix) + width + len(t.Head.Suffix) + 1
	for _, l := range t.Lines {
		size += len(l.Prefix) + width + len(l.Suffix) + 1
	}
	b = slices.Grow(b, size)
	line := func(prefix string, date []byte, suffix string) {
		b = append(b, prefix...)
		b = append(b, date...)
		for n := width - utf8.RuneCount(date); n > 0; n-- {
			b = append(b, ' ')
		}
		b = append(b, suffix...)
		b = append(b, '\n')
	}
	line(t.Head.Prefix, []byte("Date"), t.Head.Suffix)
	start := 0
	for i, l := range t.Lines {
		line(l.Prefix, dates[start:ends[i]], l.Suffix)
		start = ends[i]
	}
	return b
}

// NewListTable lays out ix's table; verbose adds the Files, Tools and
// Trigger columns.
func NewListTable(ix *Index, verbose bool) *ListTable {
	h := Handles(ix)
	head := []string{"ID", "Tokens", "Messages", "Size", "Pinned"}
	if verbose {
		head = []string{"ID", "Tokens", "Messages", "Files", "Tools", "Trigger", "Size", "Pinned"}
	}
	cols := len(head)
	cells := make([]string, 0, (len(ix.Snapshots)+1)*cols)
	cells = append(cells, head...)
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		s := &ix.Snapshots[i]
		pin := ""
		if s.Pinned {
			pin = "📌"
		}
		p := &s.PreCompaction
		tokens, msgs, files, tools := Commas(p.TokenCount), strconv.Itoa(p.MessageCount), strconv.Itoa(p.FileCount), strconv.Itoa(p.ToolExecutionCount)
		if verbose {
			cells = append(cells, h[i], tokens, msgs, files, tools, s.Trigger, HumanBytes(s.CompressedBytes), pin)
		} else {
			cells = append(cells, h[i], tokens, msgs, HumanBytes(s.CompressedBytes), pin)
		}
	}
	// The ID column first, the columns after Date as one block.
	ids := make([]string, 0, len(cells)/cols)
	rest := make([]string, 0, len(cells)/cols*(cols-1))
	for i := 0; i < len(cells); i += cols {
		ids = append(ids, cells[i])
		rest = append(rest, cells[i+1:i+cols]...)
	}
	prefix := alignColumns(ids, 1, true)
	suffix := alignColumns(rest, cols-1, false)
	t := &ListTable{Head: ListLine{Prefix: prefix[0], Suffix: suffix[0]}, Count: len(ix.Snapshots), TotalBytes: ix.total()}
	t.Lines = make([]ListLine, 0, len(ix.Snapshots))
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		n := len(t.Lines) + 1
		t.Lines = append(t.Lines, ListLine{Created: ix.Snapshots[i].CreatedAt, Prefix: prefix[n], Suffix: suffix[n]})
	}
	return t
}

// alignColumns lays out rows of cols cells as tabwriter does when every
// cell but a row's last is tab-terminated: each column as wide as its
// widest cell in runes plus listPadding, the last cell unpadded unless
// padLast. It returns one string per row, without a line break.
func alignColumns(cells []string, cols int, padLast bool) []string {
	aligned := cols - 1
	if padLast {
		aligned = cols
	}
	width := make([]int, cols)
	for i, c := range cells {
		if col := i % cols; col < aligned {
			width[col] = max(width[col], utf8.RuneCountInString(c)+listPadding)
		}
	}
	out := make([]string, 0, len(cells)/cols)
	var b []byte
	for i, c := range cells {
		col := i % cols
		if col == 0 {
			b = b[:0]
		}
		b = append(b, c...)
		if col < aligned {
			for n := width[col] - utf8.RuneCountInString(c); n > 0; n-- {
				b = append(b, ' ')
			}
		}
		if col == cols-1 {
			out = append(out, string(b))
		}
	}
	return out
}

var monthAbbr = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// ShortDate is the PRD's list date: "Jan 27, 2026 2:30p", local time.
func ShortDate(t time.Time) string { return string(appendShortDate(nil, t)) }

// appendShortDate appends ShortDate(t) without the cost of time.Format.
func appendShortDate(b []byte, t time.Time) []byte {
	t = t.Local()
	y, mo, d := t.Date()
	h, mi, _ := t.Clock()
	if y < 1000 || y > 9999 {
		b = t.AppendFormat(b, "Jan 2, 2006 3:04")
	} else {
		b = append(b, monthAbbr[mo-1]...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(d), 10)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(y), 10)
		b = append(b, ' ')
		h12 := h % 12
		if h12 == 0 {
			h12 = 12
		}
		b = strconv.AppendInt(b, int64(h12), 10)
		b = append(b, ':', byte('0'+mi/10), byte('0'+mi%10))
	}
	if h < 12 {
		return append(b, 'a')
	}
	return append(b, 'p')
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

// HumanBytes prints a size in B, KB, MB or GB (powers of 1024).
func HumanBytes(n int64) string { return human(n) }
