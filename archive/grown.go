package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/cespare/xxhash/v2"
)

// Reading a grown transcript without its unchanged prefix. An incremental
// save of a file that only grew needs few of the prefix's bytes in memory:
// the encoder copies the previous archive's segments for it, and a resumed
// importer reads only the lines its state points into. Filling a fresh
// buffer of the whole file costs more than anything else such a save does
// (the kernel zeroes every page before read copies into it), so ReadGrown
// reads the prefix through a small reused buffer, checking it against the
// previous archive's chunk digests as the encoder does and keeping only
// the lines asked for, and reads the rest of the file in full.

// GrownFile is a raw transcript file read by Archive.ReadGrown.
type GrownFile struct {
	// Data is the file as read (its length is the file's). Data[From:]
	// holds the file's bytes; the bytes before From are zero (never
	// touched, so never given memory by the kernel): the kept lines are
	// in Line. Data must not be modified.
	Data []byte
	From int
	// Starts are the start offsets of every line of Data (as the line
	// numbers of RawRef count them).
	Starts []int
	kept   keptLines
}

// keptLines holds the kept lines before From, packed: line numbers in
// increasing order, line lines[i] (with its newline) at buf[off[i]:] up
// to the next one.
type keptLines struct {
	lines []int
	off   []int
	buf   []byte
}

// add starts kept line l (after those added before it).
func (k *keptLines) add(l int) {
	k.lines = append(k.lines, l)
	k.off = append(k.off, len(k.buf))
}

func (k *keptLines) line(l int) ([]byte, bool) {
	i, ok := slices.BinarySearch(k.lines, l)
	if !ok {
		return nil, false
	}
	end := len(k.buf)
	if i+1 < len(k.off) {
		end = k.off[i+1]
	}
	// Every line before From ends with a newline (From ends one).
	return k.buf[k.off[i] : end-1], true
}

// Line returns line l of the file without its line ending ("\n"; a
// "\r" before it is kept), as archive.RawRef numbers lines; ok is false
// when the line is before From and was not kept, or does not exist.
func (g *GrownFile) Line(l int) ([]byte, bool) {
	if l < 0 || l >= len(g.Starts) {
		return nil, false
	}
	if g.Starts[l] >= g.From {
		return lineAt(g.Data, g.Starts, l)
	}
	return g.kept.line(l)
}

// sparseFile is what the encoder must know of a GrownFile's Data: where
// its complete part starts, its line starts and its kept lines (not the
// data itself: see grownFiles).
type sparseFile struct {
	from   int
	starts []int
	kept   *keptLines
	unread int64 // bytes before from not kept
}

// line is line n of data, a GrownFile's Data (see GrownFile.Line).
func (sp *sparseFile) line(data []byte, n int) ([]byte, bool) {
	if n < 0 || n >= len(sp.starts) {
		return nil, false
	}
	if sp.starts[n] >= sp.from {
		return lineAt(data, sp.starts, n)
	}
	return sp.kept.line(n)
}

// grownFiles records every GrownFile's Data that is still reachable, by
// its first byte, so that no encoder takes it for a whole file: a weak
// pointer keys it, and a cleanup drops the entry once the data is gone.
var grownFiles sync.Map // weak.Pointer[byte] → *sparseFile

// sparseOf returns what ReadGrown recorded for data, or nil when data is
// not a GrownFile's.
func sparseOf(data []byte) *sparseFile {
	if cap(data) == 0 {
		return nil
	}
	v, ok := grownFiles.Load(weak.Make(&data[:1][0]))
	if !ok {
		return nil
	}
	return v.(*sparseFile)
}

// chunkHasher checks a file's bytes, written in order, against chunks'
// original digests: k chunks matched, the one being hashed ends at end.
type chunkHasher struct {
	chunks []rawChunk
	d      *xxhash.Digest
	k      int
	end    int64
	bad    bool // a chunk did not match
}

// write hashes b, the file's bytes at off.
func (h *chunkHasher) write(b []byte, off int) {
	for p := 0; p < len(b) && !h.bad && h.k < len(h.chunks); {
		take := int(min(int64(len(b)-p), h.end-int64(off+p)))
		if take < 0 {
			h.bad = true
			return
		}
		_, _ = h.d.Write(b[p : p+take])
		p += take
		if int64(off+p) == h.end {
			if h.d.Sum64() != h.chunks[h.k].OrigHash {
				h.bad = true
				return
			}
			h.d.Reset()
			h.k++
			if h.k < len(h.chunks) {
				h.end += h.chunks[h.k].OrigLen
			}
		}
	}
}

// grownBufCount is how many streaming buffers ReadGrown cycles through.
const grownBufCount = 4

// grownBufs holds ReadGrown's streaming buffers between calls.
var grownBufs = sync.Pool{New: func() any {
	var b [grownBufCount][]byte
	for i := range b {
		b[i] = make([]byte, grownChunk)
	}
	return &b
}}

// grownChunk is the streaming buffers' size.
const grownChunk = 128 << 10

// errNotGrown: the file is not the previous one grown.
var errNotGrown = errors.New("not a grown copy of the archived file")

// ReadGrown reads the file at path, a grown copy of the archive's raw file
// name, for an incremental save with chunk size chunkSize (see
// EncodeOptions.ChunkSize; 0 for the default) building on the archive.
// Its first prefix bytes (a line boundary) must be the archived ones; of
// the bytes before the part the save reads in full (From), only the lines
// keep names are kept. ok is false, with no error, when the file is not
// such a copy (its prefix changed, it shrank, it is larger than maxSize,
// the archive does not hold the file in segments an incremental save can
// copy): the caller then reads it whole. The GrownFile's Data is for an
// Encoder whose Previous is this archive, with the same chunk size and the
// same redaction: an encoder given it otherwise fails rather than read its
// missing bytes.
//
// A redacted archive stores other bytes than the file's, at other
// offsets: prefix is then the stored offset of the end of the archived
// file's last complete line (where its resume point is), and every byte
// the archive holds of the file must be unchanged (the file only grew).
// The lines redaction changed before From are kept too: the encoder
// redacts them again for the stored view of the file it gives the
// importer (Encoder.Stored, GrownData).
func (a *Archive) ReadGrown(path, name string, prefix, chunkSize int, maxSize int64, keep func(line int) bool) (g *GrownFile, ok bool, err error) {
	pf := prevFile(a, name)
	if pf < 0 || prefix <= 0 {
		return nil, false, nil
	}
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	chunkSize = min(chunkSize, maxChunk)
	redacted := a.meta.Redacted
	var endsLine func(off int64) bool // where the reused chunks may end
	if redacted {
		// The chunks end lines (the file's last one may not: only if it
		// ends at the stored resume point); every original byte archived
		// must be unchanged.
		m := &a.meta.Raw[pf]
		ends := map[int64]bool{}
		var orig, stored int64
		for k, c := range m.Chunks {
			if c.OrigLen < 0 {
				return nil, false, nil
			}
			orig, stored = orig+c.OrigLen, stored+c.StoredLen
			ends[orig] = k+1 < len(m.Chunks) || stored == int64(prefix)
		}
		endsLine = func(off int64) bool { return ends[off] }
		prefix = int(orig)
		changed := a.meta.Raw[pf].RedactedLines
		user := keep
		keep = func(l int) bool {
			for len(changed) > 0 && changed[0] < l {
				changed = changed[1:]
			}
			return (len(changed) > 0 && changed[0] == l) || user(l)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() || size > maxSize || size < int64(prefix) {
		return nil, false, nil
	}
	chunks := a.meta.Raw[pf].Chunks
	nsegs := len(a.rawSegments(pf))
	// The chunks the encoder will copy if they all match, hence where it
	// starts reading (reuse); the importer starts at prefix.
	var all int64
	for _, c := range chunks {
		if c.OrigLen < 0 || all+c.OrigLen > size {
			break
		}
		all += c.OrigLen
	}
	n := reuseCount(chunks, nsegs, all, size, chunkSize, endsLine)
	if n == 0 {
		return nil, false, nil
	}
	var reuse int64
	for _, c := range chunks[:n] {
		reuse += c.OrigLen
	}
	from := min(int(reuse), prefix)

	if from <= 0 {
		return nil, false, nil
	}
	data := make([]byte, size, size+1)
	h := chunkHasher{chunks: chunks, d: xxhash.New(), end: chunks[0].OrigLen}
	starts := make([]int, 1, 1024) // starts[0] = 0
	// Room for an eighth of the prefix: a resumed importer reads about a
	// tenth of it (untouched room costs no memory in a fresh process).
	kept := keptLines{buf: make([]byte, 0, max(from/8, 64<<10))}
	var unread int64
	line, lineKept := 0, keep(0)
	if lineKept {
		kept.add(0)
	}
	// scan records the line starts and the kept lines of b, the file's
	// bytes at off (called in order).
	scan := func(b []byte, off int) {
		for p := 0; p < len(b); {
			nl := bytes.IndexByte(b[p:], '\n')
			end := len(b)
			if nl >= 0 {
				end = p + nl + 1
			}
			if lineKept {
				kept.buf = append(kept.buf, b[p:end]...)
			} else {
				unread += int64(end - p)
			}
			p = end
			if nl >= 0 {
				line++
				starts = append(starts, off+end)
				lineKept = off+end < from && keep(line)
				if lineKept {
					kept.add(line)
				}
			}
		}
	}
	var last byte
	mapped, shrank, err := readMapped(f, from, &h, scan, &last)
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if shrank {
		return nil, false, nil
	}
	if !mapped {
		if err := readStreamed(f, from, &h, scan, &last); err != nil {
			return nil, false, fmt.Errorf("reading %s: %w", path, notGrownEOF(err))
		}
	}
	if h.bad {
		return nil, false, nil
	}
	if last != '\n' {
		return nil, false, nil // the streamed part must end a line
	}
	// The rest, in full (the file may have grown since Stat).
	data, err = readRest(f, data[:from], maxSize)
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > maxSize {
		return nil, false, nil
	}
	// The rest of the reused chunks, from data.
	if h.k < n {
		if reuse > int64(len(data)) {
			return nil, false, nil
		}
		h.write(data[from:reuse], from)
		if h.bad || h.k != n {
			return nil, false, nil
		}
	}
	// What matchedOriginal would find: the reused chunks and any further
	// ones that match too.
	matched := reuse
	for k := n; k < len(chunks); k++ {
		c := chunks[k]
		if c.OrigLen < 0 || matched+c.OrigLen > int64(len(data)) || xxhash.Sum64(data[matched:matched+c.OrigLen]) != c.OrigHash {
			break
		}
		matched += c.OrigLen
	}
	if matched < int64(prefix) {
		return nil, false, nil
	}
	// Line starts of the rest; no line starts at the end of the data.
	for off := from; off < len(data); {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
		starts = append(starts, off)
	}
	if starts[len(starts)-1] == len(data) {
		starts = starts[:len(starts)-1]
	}
	sp := &sparseFile{from: from, starts: starts, kept: &kept, unread: unread}
	// The encoder decides on the file as read (it may have grown): it must
	// copy at least what was not read in full.
	if redacted {
		endsLine = func(off int64) bool { return sp.endsLine(data, off) }
	}
	var again int64
	for _, c := range chunks[:reuseCount(chunks, nsegs, matched, int64(len(data)), chunkSize, endsLine)] {
		again += c.OrigLen
	}
	if again < int64(from) {
		return nil, false, nil
	}
	g = &GrownFile{Data: data, From: from, Starts: starts, kept: kept}
	sp.kept = &g.kept
	a.noteGrown(pf, data, matched, sp)
	return g, true, nil
}

// endsLine reports whether data[:off] (0 < off <= len(data)), a
// GrownFile's Data, ends a line: before from, whether a line starts at
// off (from itself ends one: ReadGrown checked it).
func (sp *sparseFile) endsLine(data []byte, off int64) bool {
	if off <= 0 || off > int64(len(data)) {
		return false
	}
	if off < int64(sp.from) {
		_, found := slices.BinarySearch(sp.starts, int(off))
		return found
	}
	return off == int64(sp.from) || data[off-1] == '\n'
}

// readStreamed reads the file's first from bytes (f at offset 0) through
// a few pooled buffers: the chunk digests (h) on one goroutine, scan on
// another; a buffer is read into again once both are done with it. last
// is the last byte read.
func readStreamed(f *os.File, from int, h *chunkHasher, scan func(b []byte, off int), last *byte) error {
	type piece struct {
		b    []byte
		off  int
		refs *atomic.Int32
	}
	bufs := grownBufs.Get().(*[grownBufCount][]byte)
	defer grownBufs.Put(bufs)
	free := make(chan []byte, len(bufs))
	for _, b := range bufs {
		free <- b
	}
	release := func(pc piece) {
		if pc.refs.Add(-1) == 0 {
			free <- pc.b[:cap(pc.b)]
		}
	}
	toHash, toLines := make(chan piece, len(bufs)), make(chan piece, len(bufs))
	var wg sync.WaitGroup
	wg.Go(func() {
		for pc := range toHash {
			h.write(pc.b, pc.off)
			release(pc)
		}
	})
	wg.Go(func() {
		for pc := range toLines {
			scan(pc.b, pc.off)
			release(pc)
		}
	})
	var rerr error
	for off := 0; off < from; {
		buf := <-free
		m, err := io.ReadFull(f, buf[:min(len(buf), from-off)])
		if err != nil {
			rerr = err
			break
		}
		*last = buf[m-1]
		pc := piece{b: buf[:m], off: off, refs: new(atomic.Int32)}
		pc.refs.Store(2)
		toHash <- pc
		toLines <- pc
		off += m
	}
	close(toHash)
	close(toLines)
	wg.Wait()
	return rerr
}

func notGrownEOF(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: the file shrank while being read", errNotGrown)
	}
	return err
}

// readRest reads f to its end after b (the bytes read so far), growing b
// when the file grew; at most limit+1 bytes in all.
func readRest(f *os.File, b []byte, limit int64) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			if int64(len(b)) > limit {
				return b, nil
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// noteGrown records, for the encoder and the prefix check, that data (a
// GrownFile's) matches raw file f's first matched original bytes and
// holds only part of its prefix.
func (a *Archive) noteGrown(f int, data []byte, matched int64, sp *sparseFile) {
	k := prefixKey{file: f, data: &data[0], n: len(data)}
	m := &prefixMatch{n: matched}
	m.once.Do(func() {})
	a.prefixMu.Lock()
	if a.prefixMemo == nil {
		a.prefixMemo = map[prefixKey]*prefixMatch{}
	}
	a.prefixMemo[k] = m
	a.prefixMu.Unlock()
	registerSparse(data, sp)
}

// registerSparse records that data holds only what sp says (see
// grownFiles).
func registerSparse(data []byte, sp *sparseFile) {
	key := weak.Make(&data[0])
	grownFiles.Store(key, sp)
	runtime.AddCleanup(&data[0], func(k weak.Pointer[byte]) { grownFiles.Delete(k) }, key)
}

// GrownData returns the GrownFile whose Data is data: one ReadGrown
// returned, or, for a redacted incremental save, the stored (redacted)
// view an Encoder made of one (Encoder.Stored: its Data has the stored
// file's length, its bytes from From on are the stored ones, the lines
// before From kept by ReadGrown are given redacted by Line). ok is false
// for any other data.
func GrownData(data []byte) (g *GrownFile, ok bool) {
	sp := sparseOf(data)
	if sp == nil {
		return nil, false
	}
	return &GrownFile{Data: data, From: sp.from, Starts: sp.starts, kept: *sp.kept}, true
}
