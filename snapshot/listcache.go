package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/ben10ctx/ben10/store"
)

// ListCacheName is the listing cache next to index.json: a materialized
// view of it, rendered by the same function that writes index.json (under
// the store lock), so that `compaction list` prints without decoding the
// index. Its header names the index.json it was rendered from (size,
// modification time, file identity); a reader that finds anything else
// falls back to index.json, so the cache is never trusted when stale.
const ListCacheName = ".list"

// listCacheMagic starts the cache's header line; the version changes
// whenever the layout or the rendering does.
const listCacheMagic = "ben10-list 2"

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
		if s.ModelPending {
			// A raw-only snapshot not completed yet: counts unknown.
			msgs, files, tools = "pending", "pending", "pending"
			if p.TokenCount == 0 {
				tokens = "pending"
			}
		}
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

// MarshalListJSON is `compaction list --json`: ix as indented JSON (two
// spaces, HTML characters unescaped), with a trailing newline.
func MarshalListJSON(ix *Index) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ix) // plain data always encodes
	return b.Bytes()
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

// indexStamp identifies one version of index.json without reading it.
type indexStamp struct {
	size, mtime int64
	id          uint64 // inode where the system has one (a rename gives a new one)
}

func stampOf(fi os.FileInfo) indexStamp {
	return indexStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), id: fileIdentity(fi)}
}

// The cache: a header line
//
//	ben10-list 2 <index size> <mtime ns> <inode> <count> <total bytes>
//	  <plain len> <verbose len> <json len> <plain hash> <verbose hash> <json hash>
//
// then the plain table, the verbose table (each a line "prefix\tsuffix"
// of titles, then "unix seconds\tprefix\tsuffix" per snapshot) and the
// JSON. Hashes are XXH64 >> 1 (they fit the header's int64 fields).
const listCacheFields = 11

// renderListCache is the cache for the index.json whose bytes are data
// and whose stamp is st; ok is false when it cannot be stored (a cell
// holding a tab or line break, from a hand-edited index).
func renderListCache(data []byte, st indexStamp) ([]byte, bool) {
	// Rendered from index.json's bytes as a reader decodes them, so the
	// cache matches the slow path exactly (JSON round-trips normalize
	// strings and times).
	ix, err := ParseIndex(data)
	if err != nil {
		return nil, false
	}
	var sections [3][]byte
	var count int
	var total int64
	for i, verbose := range []bool{false, true} {
		t := NewListTable(ix, verbose)
		count, total = t.Count, t.TotalBytes
		var b bytes.Buffer
		for j, l := range append([]ListLine{t.Head}, t.Lines...) {
			if strings.ContainsAny(l.Prefix, "\t\n\r") || strings.ContainsAny(l.Suffix, "\t\n\r") {
				return nil, false
			}
			if j > 0 {
				b.WriteString(strconv.FormatInt(l.Created.Unix(), 10))
				b.WriteByte('\t')
			}
			b.WriteString(l.Prefix)
			b.WriteByte('\t')
			b.WriteString(l.Suffix)
			b.WriteByte('\n')
		}
		sections[i] = b.Bytes()
	}
	sections[2] = MarshalListJSON(ix)
	head := fmt.Sprintf("%s %d %d %d %d %d", listCacheMagic, st.size, st.mtime, st.id, count, total)
	for _, sec := range sections {
		head += " " + strconv.Itoa(len(sec))
	}
	for _, sec := range sections {
		head += " " + strconv.FormatUint(xxhash.Sum64(sec)>>1, 10)
	}
	out := append([]byte(head), '\n')
	for _, sec := range sections {
		out = append(out, sec...)
	}
	return out, true
}

// writeListCache renders the cache for index.json (just written as data)
// and stores it atomically; when that fails, no cache is left behind.
func (m *Manager) writeListCache(data []byte) {
	p := filepath.Join(m.st.SnapshotDir(), ListCacheName)
	fi, err := os.Stat(m.st.IndexPath())
	if err == nil {
		if c, ok := renderListCache(data, stampOf(fi)); ok && writeUnsynced(p, c) == nil {
			return
		}
	}
	_ = os.Remove(p)
}

// writeUnsynced replaces path with data through a temporary file and a
// rename, without fsync: for the listing cache only, whose header is
// checked against index.json and whose sections against their hashes on
// every read, so that what a crash leaves (an old, empty or torn file) is
// never trusted. Two fsyncs fewer on every index write.
func writeUnsynced(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), store.TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// ErrNoListCache is returned by CachedListTable and CachedListJSON when
// the listing cache is missing, damaged or not rendered from the current
// index.json: read the index instead.
var ErrNoListCache = errors.New("snapshot: no current listing cache")

// cacheHead is the cache's header, checked against index.json.
type cacheHead struct {
	count int
	total int64
	at    [3]int64  // where each section starts
	size  [3]int    // and its length
	sum   [3]uint64 // and hash
}

// openListCache opens the cache and checks its header against index.json.
func (m *Manager) openListCache() (*os.File, cacheHead, error) {
	var h cacheHead
	f, err := store.OpenFileRegular(filepath.Join(m.st.SnapshotDir(), ListCacheName))
	if err != nil {
		return nil, h, ErrNoListCache
	}
	fail := func() (*os.File, cacheHead, error) {
		f.Close()
		return nil, cacheHead{}, ErrNoListCache
	}
	var head [512]byte
	n, _ := io.ReadFull(f, head[:])
	nl := bytes.IndexByte(head[:n], '\n')
	if nl < 0 || !bytes.HasPrefix(head[:nl], []byte(listCacheMagic+" ")) {
		return fail()
	}
	fields := strings.Fields(string(head[len(listCacheMagic)+1 : nl]))
	if len(fields) != listCacheFields {
		return fail()
	}
	var v [listCacheFields]int64
	for i, s := range fields {
		x, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || (x < 0 && i != 1) {
			return fail()
		}
		v[i] = x
	}
	// The cache is checked against index.json after it was opened: a
	// writer replacing both in between shows as a mismatch.
	fi, serr := os.Stat(m.st.IndexPath())
	cfi, cerr := f.Stat()
	if serr != nil || cerr != nil {
		return fail()
	}
	if want := stampOf(fi); want.size != v[0] || want.mtime != v[1] || want.id != uint64(v[2]) {
		return fail()
	}
	h.count, h.total = int(v[3]), v[4]
	at := int64(nl + 1)
	for i := range 3 {
		if v[5+i] > 1<<40 {
			return fail()
		}
		h.at[i], h.size[i], h.sum[i] = at, int(v[5+i]), uint64(v[8+i])
		at += v[5+i]
	}
	if cfi.Size() != at {
		return fail()
	}
	return f, h, nil
}

// section reads the cache's section i and checks its hash.
func (h *cacheHead) section(f *os.File, i int) ([]byte, bool) {
	buf := make([]byte, h.size[i])
	if _, err := f.ReadAt(buf, h.at[i]); err != nil && !(errors.Is(err, io.EOF) && h.size[i] == 0) {
		return nil, false
	}
	return buf, xxhash.Sum64(buf)>>1 == h.sum[i]
}

// CachedListTable reads the `compaction list` table from the listing
// cache; ErrNoListCache means read the index (NewListTable).
func (m *Manager) CachedListTable(verbose bool) (*ListTable, error) {
	f, h, err := m.openListCache()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	i := 0
	if verbose {
		i = 1
	}
	buf, ok := h.section(f, i)
	if !ok {
		return nil, ErrNoListCache
	}
	t := &ListTable{Lines: make([]ListLine, 0, h.count), Count: h.count, TotalBytes: h.total}
	// One string for all lines: the cells are substrings of it.
	rest := string(buf)
	for first := true; rest != ""; first = false {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, ErrNoListCache
		}
		line := rest[:nl]
		rest = rest[nl+1:]
		var l ListLine
		if !first {
			tab := strings.IndexByte(line, '\t')
			if tab < 0 {
				return nil, ErrNoListCache
			}
			sec, err := strconv.ParseInt(line[:tab], 10, 64)
			if err != nil {
				return nil, ErrNoListCache
			}
			l.Created, line = time.Unix(sec, 0).UTC(), line[tab+1:]
		}
		tab := strings.IndexByte(line, '\t')
		if tab < 0 {
			return nil, ErrNoListCache
		}
		l.Prefix, l.Suffix = line[:tab], line[tab+1:]
		if first {
			t.Head = l
		} else {
			t.Lines = append(t.Lines, l)
		}
	}
	if len(t.Lines) != h.count || t.Head.Prefix == "" {
		return nil, ErrNoListCache
	}
	return t, nil
}

// CachedListJSON is `compaction list --json` (MarshalListJSON of the
// index) from the listing cache; ErrNoListCache means read the index.
func (m *Manager) CachedListJSON() ([]byte, error) {
	f, h, err := m.openListCache()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, ok := h.section(f, 2)
	if !ok || len(buf) == 0 || buf[len(buf)-1] != '\n' {
		return nil, ErrNoListCache
	}
	return buf, nil
}
