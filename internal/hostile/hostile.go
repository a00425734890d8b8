// Package hostile writes a corpus of hand-crafted hostile .ctx archives,
// for tests that run Ben10's readers (and hooks) over them: count bombs in
// every decoded structure, msgpack nil-array bombs, raw-manifest size
// lies, zstd and LZ4 expansion bombs within the format's caps, sparse
// files and an encrypted file cut after its key parameters.
//
// Every archive is a well-formed container (every checksum sealed), so
// that the readers reach the decoders; each is small on disk (the largest,
// the sparse files, take a few KiB of real blocks).
package hostile

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// Bomb is the element count of the count bombs: 4 Mi elements, so that
// decoding them into Go values would take hundreds of MiB to GiBs while
// each segment decodes to 4–8 MiB.
const Bomb = 4 << 20

// Case describes one hostile archive.
type Case struct {
	Name string
	What string // the attack, in a sentence
	// Sparse marks a file whose size on disk is far below its length.
	Sparse bool
	write  func(path string) error
}

// Cases lists the corpus.
func Cases() []Case {
	return []Case{
		{Name: "meta-raw-count", What: "metadata: the raw-file manifest is an array of 4 Mi empty maps", write: metaCase(func(m *metaFields) { m.raw = repeat(arr32(Bomb), 0x80, Bomb) })},
		{Name: "meta-chunk-count", What: "metadata: one raw file with 4 Mi empty chunk maps", write: metaCase(func(m *metaFields) {
			m.raw = cat(arr32(1), map32(2), str("name"), str("s.jsonl"), str("chunks"), repeat(arr32(Bomb), 0x80, Bomb))
		})},
		{Name: "meta-contents-count", What: "metadata: the file-contents manifest is an array of 4 Mi empty maps", write: metaCase(func(m *metaFields) { m.contents = repeat(arr32(Bomb), 0x80, Bomb) })},
		{Name: "meta-nil-strings", What: "metadata: subagent ids are an array of 4 Mi nils (msgpack allocates 4 Mi strings)", write: metaCase(func(m *metaFields) { m.subagents = repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "meta-map-count", What: "metadata: the importer's unknown-type counts are a map of 4 Mi pairs", write: metaCase(func(m *metaFields) {
			m.importRep = cat(map32(1), str("unknown_types"), repeat(map32(Bomb), 0, 0), bytes.Repeat([]byte{0xa0, 0x00}, Bomb))
		})},
		{Name: "meta-pending-chunks", What: "metadata: a pre-release raw-only archive (layout 4) whose retired pending map lists 4 Mi nil chunk lists", write: metaCase(func(m *metaFields) {
			m.layout = 4
			m.extra = cat(str("pending"), map32(1), str("chunks"), repeat(arr32(Bomb), 0xc0, Bomb))
		})},
		{Name: "meta-deep", What: "metadata: arrays nested a million deep", write: metaCase(func(m *metaFields) {
			m.extra = cat(str("redaction"), bytes.Repeat([]byte{0x91}, 1<<20), []byte{0xc0})
		})},
		{Name: "conversation-nil-array", What: "conversation: an array of 4 Mi nils (msgpack allocates 4 Mi messages)", write: segCase(ctxfmt.TypeConversation, func() []byte { return repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "conversation-span-bomb", What: "conversation: one message whose text spans are 4 Mi nils", write: segCase(ctxfmt.TypeConversation, func() []byte { return cat(arr32(1), map32(1), str("tspans"), repeat(arr32(Bomb), 0xc0, Bomb)) })},
		{Name: "tools-nil-array", What: "tool history: an array of 4 Mi nils", write: segCase(ctxfmt.TypeToolHistory, func() []byte { return repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "compactions-nil-array", What: "compactions: an array of 4 Mi nils", write: segCase(ctxfmt.TypeCompactions, func() []byte { return repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "preferences-nil-array", What: "preferences: an array of 4 Mi nils", write: segCase(ctxfmt.TypePreferences, func() []byte { return repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "tasks-nil-array", What: "task state: 4 Mi nil active tasks", write: segCase(ctxfmt.TypeTaskState, func() []byte { return cat(map32(1), str("active"), repeat(arr32(Bomb), 0xc0, Bomb)) })},
		{Name: "files-map-form-nil-array", What: "file registry (map form): an array of 4 Mi nils", write: segCase(ctxfmt.TypeFileRegistry, func() []byte { return repeat(arr32(Bomb), 0xc0, Bomb) })},
		{Name: "files-compact-count", What: "file registry (compact form): 4 Mi records declared in 4 MiB", write: segCase(ctxfmt.TypeFileRegistry, func() []byte { return cat([]byte{0x93, 0x02, 0x00}, repeat(arr32(Bomb), 0xc0, Bomb)) })},
		{Name: "recall-requests", What: "recall (compact form): 4 Mi requests declared", write: segCase(ctxfmt.TypeSummaries, recallBomb)},
		{Name: "raw-size-lie", What: "raw manifest: 4096 chunks of 256 MiB (1 TiB) claimed by tiny zstd segments", write: rawLie(4096, 256<<20, ctxfmt.CodecZstd, 16)},
		{Name: "raw-size-lie-3g", What: "raw manifest: 12 chunks of 256 MiB (3 GiB, under the per-archive cap) claimed by tiny zstd segments", write: rawLie(12, 256<<20, ctxfmt.CodecZstd, 16)},
		{Name: "raw-lz4-lie", What: "raw chunk: a 1 MiB LZ4 segment claiming 256 MiB (within LZ4's ratio bound)", write: rawLie(1, 256<<20, ctxfmt.CodecLZ4, 1<<20)},
		{Name: "raw-zstd-bomb", What: "raw chunk: a real zstd frame of a few KiB that expands to 64 MiB (within the caps; SHA-256 right)", write: rawBomb('x', 64<<20)},
		{Name: "raw-newlines", What: "raw chunk: 32 MiB of newlines from a tiny zstd frame (a line index would take 256 MiB)", write: rawBomb('\n', 32<<20)},
		{Name: "sparse-index", What: "sparse 1.5 GiB file whose header claims 131072 segments (the reader's cap)", Sparse: true, write: sparseIndex(ctxfmt.MaxSegments, 3<<29)},
		{Name: "sparse-index-over", What: "sparse 1.5 GiB file whose header claims 131073 segments", Sparse: true, write: sparseIndex(ctxfmt.MaxSegments+1, 3<<29)},
		{Name: "sparse-segment", What: "sparse file: a 1.1 GiB uncompressed metadata segment of zeros (checksums sealed)", Sparse: true, write: sparseSegment(1100 << 20)},
		{Name: "encrypted-cut", What: "an encrypted archive cut after its key-parameter segment (header, index, footer resealed)", write: encryptedCut},
	}
}

// Archives writes every hostile archive into dir and returns their paths
// by case name.
func Archives(dir string) (map[string]string, error) {
	out := map[string]string{}
	for _, c := range Cases() {
		p := filepath.Join(dir, c.Name+".ctx")
		if err := c.write(p); err != nil {
			return nil, fmt.Errorf("hostile: %s: %w", c.Name, err)
		}
		out[c.Name] = p
	}
	return out, nil
}

// shared is the corpus Shared and SharedPath write, each case once per
// process.
var shared struct {
	mu    sync.Mutex
	dir   string
	paths map[string]string
}

// Shared returns the whole corpus written once per process into a
// temporary directory, for test packages whose several tests read it
// (none may change the files): written once, not once per test. The
// package's TestMain calls RemoveShared after the tests.
func Shared() (map[string]string, error) {
	out := map[string]string{}
	for _, c := range Cases() {
		p, err := SharedPath(c.Name)
		if err != nil {
			return nil, err
		}
		out[c.Name] = p
	}
	return out, nil
}

// SharedPath is Shared for the one case named: the corpus's file for it,
// written (once per process) only when a test asks for it, so that a run
// that reads a few cases does not write them all.
func SharedPath(name string) (string, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if p, ok := shared.paths[name]; ok {
		return p, nil
	}
	var c *Case
	for _, k := range Cases() {
		if k.Name == name {
			c = &k
			break
		}
	}
	if c == nil {
		return "", fmt.Errorf("hostile: no case named %q", name)
	}
	if shared.dir == "" {
		dir, err := os.MkdirTemp("", "ben10-hostile-")
		if err != nil {
			return "", fmt.Errorf("hostile: %w", err)
		}
		shared.dir, shared.paths = dir, map[string]string{}
	}
	p := filepath.Join(shared.dir, name+".ctx")
	if err := c.write(p); err != nil {
		return "", fmt.Errorf("hostile: %s: %w", name, err)
	}
	shared.paths[name] = p
	return p, nil
}

// RemoveShared removes the directory Shared wrote, if it did.
func RemoveShared() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// ---- msgpack pieces (fixed-width headers, so counts are explicit) ----

func arr32(n int) []byte { return binary.BigEndian.AppendUint32([]byte{0xdd}, uint32(n)) }
func map32(n int) []byte { return binary.BigEndian.AppendUint32([]byte{0xdf}, uint32(n)) }
func str(s string) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0xdb}, uint32(len(s))), s...)
}
func i64(v int64) []byte         { return binary.BigEndian.AppendUint64([]byte{0xd3}, uint64(v)) }
func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// repeat appends n copies of c to head.
func repeat(head []byte, c byte, n int) []byte {
	return append(head, bytes.Repeat([]byte{c}, n)...)
}

// ---- a small valid archive, then one part replaced ----

// rawLine is the one raw transcript line of the base archive.
var rawLine = []byte(`{"type":"user","message":{"role":"user","content":"hello"},"uuid":"u1","sessionId":"hostile"}` + "\n")

type metaFields struct {
	raw, contents, subagents, importRep, extra []byte
	layout                                     int64 // 0: 1
}

func (m *metaFields) bytes() []byte {
	n := 6
	if m.extra != nil {
		n++
	}
	meta := cat(map32(4), str("schema_version"), i64(1), str("harness"), str("claude"), str("session_id"), str("hostile"), str("subagent_ids"))
	if m.subagents != nil {
		meta = append(meta, m.subagents...)
	} else {
		meta = append(meta, 0xc0)
	}
	layout := m.layout
	if layout == 0 {
		layout = 1
	}
	out := cat(map32(n), str("layout"), i64(layout), str("meta"), meta, str("raw"), m.raw, str("contents"), m.contents,
		str("import"), m.importRep, str("counts"), map32(0))
	return append(out, m.extra...)
}

func baseMeta() *metaFields {
	sum := sha256.Sum256(rawLine)
	raw := cat(arr32(1), map32(4), str("name"), str("s.jsonl"), str("size"), i64(int64(len(rawLine))),
		str("sha256"), str(hex.EncodeToString(sum[:])), str("chunks"),
		arr32(1), map32(4), str("n"), i64(int64(len(rawLine))), str("on"), i64(int64(len(rawLine))),
		str("oh"), i64(int64(xxhash.Sum64(rawLine))), str("lines"), i64(1))
	return &metaFields{raw: raw, contents: arr32(0), importRep: map32(0)}
}

// writeFile writes segs (type, payload; zstd) into a new container.
func writeFile(path string, add func(w *ctxfmt.Writer) error) error {
	var buf bytes.Buffer
	w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd})
	if err != nil {
		return err
	}
	if err := add(w); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

func metaCase(edit func(m *metaFields)) func(string) error {
	return func(path string) error {
		m := baseMeta()
		edit(m)
		return writeFile(path, func(w *ctxfmt.Writer) error {
			if err := w.Add(ctxfmt.TypeMetadata, m.bytes()); err != nil {
				return err
			}
			return w.AddWith(ctxfmt.TypeRawTranscript, rawLine, ctxfmt.SegmentOptions{Codec: ctxfmt.CodecNone})
		})
	}
}

// segCase is the base archive with one more segment of type t, whose
// payload is built when the archive is written.
func segCase(t ctxfmt.SegmentType, payload func() []byte) func(string) error {
	return func(path string) error {
		return writeFile(path, func(w *ctxfmt.Writer) error {
			if err := w.Add(ctxfmt.TypeMetadata, baseMeta().bytes()); err != nil {
				return err
			}
			if err := w.AddWith(ctxfmt.TypeRawTranscript, rawLine, ctxfmt.SegmentOptions{Codec: ctxfmt.CodecNone}); err != nil {
				return err
			}
			return w.Add(t, payload())
		})
	}
}

// recallBomb is a compact-form recall whose request list declares Bomb
// entries, each a nil.
func recallBomb() []byte {
	session := cat([]byte{0x9e}, bytes.Repeat([]byte{0xa0}, 7), []byte{0xc0, 0xc0}, bytes.Repeat([]byte{0x00}, 5))
	return cat([]byte{0x9d, 0x02, 0x01, 0x00}, session, []byte{0xc0}, repeat(arr32(Bomb), 0xc0, Bomb))
}

// rawLie writes n raw chunks each claiming size bytes, stored as stored
// bytes that do not decode to it (codec c, raw length patched in the
// index and every checksum resealed).
func rawLie(n int, size int64, c ctxfmt.Codec, stored int) func(string) error {
	return func(path string) error {
		chunk := cat(map32(4), str("n"), i64(size), str("on"), i64(size), str("oh"), i64(0), str("lines"), i64(1))
		chunks := append(arr32(n), bytes.Repeat(chunk, n)...)
		m := baseMeta()
		m.raw = cat(arr32(1), map32(4), str("name"), str("s.jsonl"), str("size"), i64(size*int64(n)),
			str("sha256"), str(hex.EncodeToString(make([]byte, 32))), str("chunks"), chunks)
		junk := bytes.Repeat([]byte{0xff}, stored)
		if c == ctxfmt.CodecZstd {
			// A frame header that promises nothing it can keep.
			junk = append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00}, junk[6:]...)
		}
		var buf bytes.Buffer
		w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd})
		if err != nil {
			return err
		}
		if err := w.Add(ctxfmt.TypeMetadata, m.bytes()); err != nil {
			return err
		}
		for range n {
			if err := w.AddWith(ctxfmt.TypeRawTranscript, junk, ctxfmt.SegmentOptions{Codec: ctxfmt.CodecNone}); err != nil {
				return err
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		b := buf.Bytes()
		for i := 1; i <= n; i++ {
			e := b[ctxfmt.HeaderSize+i*ctxfmt.EntrySize:]
			binary.LittleEndian.PutUint64(e[16:], uint64(size))
			e[36] = byte(c)
		}
		return os.WriteFile(path, Reseal(b), 0o600)
	}
}

// rawBomb writes one raw chunk of size bytes c, compressed by zstd
// (streamed: the generator never holds the bytes), with a correct
// manifest: a within-caps expansion a reader must afford or refuse.
func rawBomb(c byte, size int64) func(string) error {
	return func(path string) error {
		var frame bytes.Buffer
		enc, err := zstd.NewWriter(&frame, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		h, x := sha256.New(), xxhash.New()
		block := bytes.Repeat([]byte{c}, 1<<20)
		for n := int64(0); n < size; n += int64(len(block)) {
			enc.Write(block)
			h.Write(block)
			x.Write(block)
		}
		if err := enc.Close(); err != nil {
			return err
		}
		lines := int64(1)
		if c == '\n' {
			lines = size
		}
		m := baseMeta()
		m.raw = cat(arr32(1), map32(4), str("name"), str("s.jsonl"), str("size"), i64(size),
			str("sha256"), str(hex.EncodeToString(h.Sum(nil))), str("chunks"),
			arr32(1), map32(4), str("n"), i64(size), str("on"), i64(size), str("oh"), i64(int64(x.Sum64())), str("lines"), i64(lines))
		var buf bytes.Buffer
		w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd})
		if err != nil {
			return err
		}
		if err := w.Add(ctxfmt.TypeMetadata, m.bytes()); err != nil {
			return err
		}
		// A placeholder of the frame's length, replaced below.
		if err := w.AddWith(ctxfmt.TypeRawTranscript, make([]byte, frame.Len()), ctxfmt.SegmentOptions{Codec: ctxfmt.CodecNone}); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		b := buf.Bytes()
		e := b[ctxfmt.HeaderSize+1*ctxfmt.EntrySize:]
		off := binary.LittleEndian.Uint64(e[0:])
		copy(b[off:], frame.Bytes())
		binary.LittleEndian.PutUint64(e[16:], uint64(size))
		e[36] = byte(ctxfmt.CodecZstd)
		return os.WriteFile(path, Reseal(b), 0o600)
	}
}

// sparseIndex writes a sparse file of size bytes whose header claims n
// segments (the index is zeros, its checksum right).
func sparseIndex(n int, size int64) func(string) error {
	return func(path string) error {
		hb := make([]byte, ctxfmt.HeaderSize)
		copy(hb, ctxfmt.Magic[:])
		binary.LittleEndian.PutUint16(hb[4:], ctxfmt.Version)
		binary.LittleEndian.PutUint32(hb[8:], uint32(n))
		binary.LittleEndian.PutUint64(hb[12:], uint64(size))
		binary.LittleEndian.PutUint64(hb[24:], xxhash.Sum64(hb[:24]))
		d := xxhash.New()
		d.Write(hb)
		zeros := make([]byte, 1<<16)
		for left := n * ctxfmt.EntrySize; left > 0; left -= min(left, len(zeros)) {
			d.Write(zeros[:min(left, len(zeros))])
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.Write(hb); err != nil {
			return err
		}
		var sum [8]byte
		binary.LittleEndian.PutUint64(sum[:], d.Sum64())
		if _, err := f.WriteAt(sum[:], int64(ctxfmt.HeaderSize+n*ctxfmt.EntrySize)); err != nil {
			return err
		}
		return f.Truncate(size)
	}
}

// sparseSegment writes a sparse file holding one uncompressed metadata
// segment of n zero bytes, every checksum right.
func sparseSegment(n int64) func(string) error {
	return func(path string) error {
		const segs = 1
		data := int64(ctxfmt.HeaderSize + segs*ctxfmt.EntrySize + 8)
		total := data + n + ctxfmt.FooterSize
		hb := make([]byte, ctxfmt.HeaderSize)
		copy(hb, ctxfmt.Magic[:])
		binary.LittleEndian.PutUint16(hb[4:], ctxfmt.Version)
		binary.LittleEndian.PutUint32(hb[8:], segs)
		binary.LittleEndian.PutUint64(hb[12:], uint64(total))
		binary.LittleEndian.PutUint64(hb[24:], xxhash.Sum64(hb[:24]))
		zsum := zeroSum(n)
		e := make([]byte, ctxfmt.EntrySize)
		binary.LittleEndian.PutUint64(e[0:], uint64(data))
		binary.LittleEndian.PutUint64(e[8:], uint64(n))
		binary.LittleEndian.PutUint64(e[16:], uint64(n))
		binary.LittleEndian.PutUint64(e[24:], zsum)
		binary.LittleEndian.PutUint16(e[32:], uint16(ctxfmt.TypeMetadata))
		binary.LittleEndian.PutUint16(e[34:], uint16(ctxfmt.FlagRequired))
		e[36] = byte(ctxfmt.CodecNone)
		head := cat(hb, e)
		head = binary.LittleEndian.AppendUint64(head, xxhash.Sum64(head))
		d := xxhash.New()
		d.Write(head)
		writeZeros(d, n)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.Write(head); err != nil {
			return err
		}
		foot := binary.LittleEndian.AppendUint64(nil, d.Sum64())
		foot = append(foot, ctxfmt.TrailerMagic[:]...)
		_, err = f.WriteAt(foot, data+n)
		return err
	}
}

func zeroSum(n int64) uint64 {
	d := xxhash.New()
	writeZeros(d, n)
	return d.Sum64()
}

func writeZeros(w io.Writer, n int64) {
	zeros := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(zeros)))
		w.Write(zeros[:k])
		n -= k
	}
}

// encryptedCut writes an encrypted container holding its crypto
// parameters and nothing else: what an encrypted archive cut after that
// segment, with header, index and footer resealed, looks like.
func encryptedCut(path string) error {
	var buf bytes.Buffer
	w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Encryption: &ctxfmt.Encryption{Key: bytes.Repeat([]byte{7}, 32)}})
	if err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

// EncryptedCutKey is the raw key encrypted-cut was written with.
var EncryptedCutKey = bytes.Repeat([]byte{7}, 32)

// Reseal recomputes every checksum of a container whose bytes were
// changed: each segment's, the header's, the index's and the footer's.
// Test code uses it to make a mutation reach the decoders.
func Reseal(b []byte) []byte {
	b = bytes.Clone(b)
	le := binary.LittleEndian
	if len(b) < ctxfmt.HeaderSize {
		return b
	}
	le.PutUint64(b[24:], xxhash.Sum64(b[:24]))
	n := uint64(le.Uint32(b[8:]))
	end := ctxfmt.HeaderSize + n*ctxfmt.EntrySize
	if end+8 > uint64(len(b)) {
		return b
	}
	for i := range n {
		eb := b[ctxfmt.HeaderSize+i*ctxfmt.EntrySize:]
		off, sl := le.Uint64(eb[0:]), le.Uint64(eb[8:])
		if off <= uint64(len(b)) && sl <= uint64(len(b))-off {
			le.PutUint64(eb[24:], xxhash.Sum64(b[off:off+sl]))
		}
	}
	le.PutUint64(b[end:], xxhash.Sum64(b[:end]))
	if len(b) >= ctxfmt.FooterSize {
		le.PutUint64(b[len(b)-ctxfmt.FooterSize:], xxhash.Sum64(b[:len(b)-ctxfmt.FooterSize]))
	}
	return b
}

// TamperSegment flips the last stored byte of the one segment of type t
// in the archive at path, in place, keeping the file's size and
// modification time: a file replaced after it was indexed or listed, as
// a reader that goes by size and time sees it. Tests use it on the
// authentication tag.
func TamperSegment(path string, t ctxfmt.SegmentType) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
	if err != nil {
		return err
	}
	found := r.Find(t)
	if len(found) != 1 {
		return fmt.Errorf("%s has %d segments of type %#x, want 1", path, len(found), t)
	}
	s := r.Segments()[found[0]]
	b[s.Offset+s.StoredLen-1] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return err
	}
	return os.Chtimes(path, fi.ModTime(), fi.ModTime())
}
