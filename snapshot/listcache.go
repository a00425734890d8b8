package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
const listCacheMagic = "ben10-list 1"

// ListRow is one row of `compaction list`: the static cells, rendered.
// Created is formatted by the caller (in the reader's time zone).
type ListRow struct {
	Created  time.Time
	Handle   string // the shortest id users can type (see Handles)
	Tokens   string // pre-compaction tokens with thousands separators
	Messages int
	Files    int
	Tools    int
	Trigger  string
	Size     string // compressed size, human-readable
	Pinned   bool
}

// Listing is what `compaction list` shows: rows newest first, the count
// and the total compressed size.
type Listing struct {
	Rows       []ListRow
	Count      int
	TotalBytes int64
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

// NewListing renders ix's rows, newest first.
func NewListing(ix *Index) *Listing {
	h := Handles(ix)
	l := &Listing{Rows: make([]ListRow, 0, len(ix.Snapshots)), Count: len(ix.Snapshots), TotalBytes: ix.total()}
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		s := &ix.Snapshots[i]
		l.Rows = append(l.Rows, ListRow{Created: s.CreatedAt, Handle: h[i], Tokens: Commas(s.PreCompaction.TokenCount),
			Messages: s.PreCompaction.MessageCount, Files: s.PreCompaction.FileCount, Tools: s.PreCompaction.ToolExecutionCount,
			Trigger: s.Trigger, Size: HumanBytes(s.CompressedBytes), Pinned: s.Pinned})
	}
	return l
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

// header is the cache's first line: the index.json it was rendered from,
// the count and total, and each section's length and XXH64.
func (st indexStamp) header(count int, total int64, rows, js []byte) string {
	return fmt.Sprintf("%s %d %d %d %d %d %d %d %d %d\n", listCacheMagic, st.size, st.mtime, st.id, count, total,
		len(rows), len(js), xxhash.Sum64(rows)>>1, xxhash.Sum64(js)>>1)
}

// renderListCache is the cache for the index.json whose bytes are data
// and whose stamp is st; ok is false when a row cannot be stored (a cell
// holding a tab or line break, from a hand-edited index).
func renderListCache(data []byte, st indexStamp) ([]byte, bool) {
	// Rendered from index.json's bytes as a reader decodes them, so the
	// cache matches the slow path exactly (JSON round-trips normalize
	// strings and times).
	ix, err := ParseIndex(data)
	if err != nil {
		return nil, false
	}
	l := NewListing(ix)
	var rows bytes.Buffer
	for _, r := range l.Rows {
		for _, cell := range []string{r.Handle, r.Trigger} {
			if strings.ContainsAny(cell, "\t\n\r") {
				return nil, false
			}
		}
		pin := 0
		if r.Pinned {
			pin = 1
		}
		fmt.Fprintf(&rows, "%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\n", r.Created.Unix(), r.Created.Nanosecond(), r.Handle, r.Tokens,
			r.Messages, r.Files, r.Tools, r.Trigger, r.Size, pin)
	}
	js := MarshalListJSON(ix)
	out := []byte(st.header(l.Count, l.TotalBytes, rows.Bytes(), js))
	out = append(out, rows.Bytes()...)
	return append(out, js...), true
}

// writeListCache renders the cache for index.json (just written as data)
// and stores it atomically; when that fails, no cache is left behind.
func (m *Manager) writeListCache(data []byte) {
	p := filepath.Join(m.st.SnapshotDir(), ListCacheName)
	fi, err := os.Stat(m.st.IndexPath())
	if err == nil {
		if c, ok := renderListCache(data, stampOf(fi)); ok && store.WriteFileAtomic(p, c) == nil {
			return
		}
	}
	_ = os.Remove(p)
}

// ErrNoListCache is returned by CachedListing and CachedListJSON when the
// listing cache is missing, damaged or not rendered from the current
// index.json: read the index instead.
var ErrNoListCache = errors.New("snapshot: no current listing cache")

// openListCache opens the cache and checks it against index.json: it
// returns the file, the header's fields and where the rows start.
func (m *Manager) openListCache() (f *os.File, h cacheHead, err error) {
	f, err = os.Open(filepath.Join(m.st.SnapshotDir(), ListCacheName))
	if err != nil {
		return nil, h, ErrNoListCache
	}
	fail := func() (*os.File, cacheHead, error) {
		f.Close()
		return nil, cacheHead{}, ErrNoListCache
	}
	var head [256]byte
	n, _ := io.ReadFull(f, head[:])
	nl := bytes.IndexByte(head[:n], '\n')
	if nl < 0 || !bytes.HasPrefix(head[:nl], []byte(listCacheMagic+" ")) {
		return fail()
	}
	fields := strings.Fields(string(head[len(listCacheMagic)+1 : nl]))
	if len(fields) != 9 {
		return fail()
	}
	var v [9]int64
	for i, s := range fields {
		x, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || (x < 0 && i != 1) {
			return fail()
		}
		v[i] = x
	}
	// The cache is checked against index.json after it was opened, so a
	// writer replacing both in between is seen as a mismatch.
	fi, serr := os.Stat(m.st.IndexPath())
	cfi, cerr := f.Stat()
	if serr != nil || cerr != nil {
		return fail()
	}
	if want := stampOf(fi); want.size != v[0] || want.mtime != v[1] || want.id != uint64(v[2]) {
		return fail()
	}
	if v[5] > 1<<40 || v[6] > 1<<40 || cfi.Size() != int64(nl+1)+v[5]+v[6] || v[3] > v[5] {
		return fail()
	}
	return f, cacheHead{count: int(v[3]), total: v[4], rowsAt: int64(nl + 1), rowsLen: int(v[5]), jsLen: int(v[6]),
		rowsSum: uint64(v[7]), jsSum: uint64(v[8])}, nil
}

// cacheHead is the cache's header, checked against index.json.
type cacheHead struct {
	count          int
	total          int64
	rowsAt         int64
	rowsLen, jsLen int
	rowsSum, jsSum uint64 // XXH64 >> 1 (fits the header's int64 fields)
}

// section reads length bytes at off and checks their hash.
func section(f *os.File, off int64, length int, sum uint64) ([]byte, bool) {
	buf := make([]byte, length)
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && length == 0) {
		return nil, false
	}
	return buf, xxhash.Sum64(buf)>>1 == sum
}

// CachedListing reads the rows of `compaction list` from the listing
// cache; ErrNoListCache means read the index (NewListing).
func (m *Manager) CachedListing() (*Listing, error) {
	f, h, err := m.openListCache()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, ok := section(f, h.rowsAt, h.rowsLen, h.rowsSum)
	if !ok {
		return nil, ErrNoListCache
	}
	count := h.count
	l := &Listing{Rows: make([]ListRow, 0, count), Count: count, TotalBytes: h.total}
	// One string for all rows: the cells are substrings of it.
	rest := string(buf)
	for rest != "" {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, ErrNoListCache
		}
		r, ok := parseRow(rest[:nl])
		if !ok {
			return nil, ErrNoListCache
		}
		l.Rows = append(l.Rows, r)
		rest = rest[nl+1:]
	}
	if len(l.Rows) != count {
		return nil, ErrNoListCache
	}
	return l, nil
}

func parseRow(line string) (ListRow, bool) {
	var c [10]string
	for i := range c {
		if i == len(c)-1 {
			c[i] = line
			break
		}
		t := strings.IndexByte(line, '\t')
		if t < 0 {
			return ListRow{}, false
		}
		c[i], line = line[:t], line[t+1:]
	}
	var n [6]int64
	for i, j := range []int{0, 1, 4, 5, 6, 9} {
		x, err := strconv.ParseInt(c[j], 10, 64)
		if err != nil {
			return ListRow{}, false
		}
		n[i] = x
	}
	if n[1] < 0 || n[1] >= 1e9 || n[5] < 0 || n[5] > 1 {
		return ListRow{}, false
	}
	return ListRow{Created: time.Unix(n[0], n[1]).UTC(), Handle: c[2], Tokens: c[3], Messages: int(n[2]),
		Files: int(n[3]), Tools: int(n[4]), Trigger: c[7], Size: c[8], Pinned: n[5] == 1}, true
}

// CachedListJSON is `compaction list --json` (MarshalListJSON of the
// index) from the listing cache; ErrNoListCache means read the index.
func (m *Manager) CachedListJSON() ([]byte, error) {
	f, h, err := m.openListCache()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, ok := section(f, h.rowsAt+int64(h.rowsLen), h.jsLen, h.jsSum)
	if !ok || h.jsLen == 0 || buf[h.jsLen-1] != '\n' {
		return nil, ErrNoListCache
	}
	return buf, nil
}
