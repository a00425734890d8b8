package ctxfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// smallFiles are the archives the exhaustive corruption tests run on.
func smallFiles(t *testing.T) map[string]struct {
	b  []byte
	vo VerifyOptions
} {
	segs := []seg{
		{t: TypeMetadata, p: []byte(`{"session":"s1"}`)},
		{t: TypeConversation, p: bytes.Repeat([]byte("user: run the tests\nassistant: ok\n"), 8)},
		{t: TypeSummaries, p: []byte("short"), o: SegmentOptions{Optional: true}},
	}
	out := map[string]struct {
		b  []byte
		vo VerifyOptions
	}{}
	for _, c := range []Codec{CodecNone, CodecLZ4, CodecZstd} {
		out[c.String()] = struct {
			b  []byte
			vo VerifyOptions
		}{build(t, WriterOptions{Codec: c}, segs...), VerifyOptions{Deep: true}}
	}
	out["encrypted"] = struct {
		b  []byte
		vo VerifyOptions
	}{build(t, encOpts(CodecZstd), segs...), VerifyOptions{Deep: true, Passphrase: []byte(testPassphrase)}}
	return out
}

// TestEveryBitFlip flips each bit of small archives in turn: deep verify
// must report every one, and opening/reading must never panic.
func TestEveryBitFlip(t *testing.T) {
	for name, f := range smallFiles(t) {
		t.Run(name, func(t *testing.T) {
			m := bytes.Clone(f.b)
			for bit := range len(m) * 8 {
				m[bit/8] ^= 1 << (bit % 8)
				err := Verify(bytes.NewReader(m), int64(len(m)), f.vo)
				if err == nil {
					t.Fatalf("flip of bit %d (byte %d) not detected", bit%8, bit/8)
				}
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("byte %d: error is not a *FormatError: %v", bit/8, err)
				}
				// Reading whatever still opens must not panic.
				if r, err := NewReader(bytes.NewReader(m), int64(len(m)), ReaderOptions{Passphrase: f.vo.Passphrase}); err == nil {
					for i := range r.NumSegments() {
						r.ReadSegment(i)
					}
				}
				m[bit/8] ^= 1 << (bit % 8)
			}
		})
	}
}

// TestEveryTruncation cuts small archives at every length.
func TestEveryTruncation(t *testing.T) {
	for name, f := range smallFiles(t) {
		t.Run(name, func(t *testing.T) {
			for n := range len(f.b) {
				m := f.b[:n]
				if err := Verify(bytes.NewReader(m), int64(n), f.vo); !errors.Is(err, ErrTruncated) {
					t.Fatalf("truncated to %d bytes: %v", n, err)
				}
				if _, err := NewReader(bytes.NewReader(m), int64(n), ReaderOptions{}); !errors.Is(err, ErrTruncated) {
					t.Fatalf("open truncated to %d bytes: %v", n, err)
				}
			}
			m := append(bytes.Clone(f.b), 0)
			if err := Verify(bytes.NewReader(m), int64(len(m)), f.vo); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("trailing byte: %v", err)
			}
		})
	}
}

// rebuild makes a new, fully checksummed file from the segments of b in
// the given order (indexes may repeat or be left out), keeping each
// segment's stored bytes and entry fields. For a plain file the result is a
// valid file; for an encrypted one, authentication must fail.
func rebuild(t *testing.T, b []byte, order []int) []byte {
	t.Helper()
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(len(order))
	off := dataStart(n)
	var idx, data []byte
	idx = append(idx, b[:HeaderSize]...)
	for _, i := range order {
		e := r.ents[i]
		e.offset = off
		off += e.storedLen
		var eb [EntrySize]byte
		e.marshal(eb[:])
		idx = append(idx, eb[:]...)
		data = append(data, b[r.ents[i].offset:r.ents[i].offset+e.storedLen]...)
	}
	le.PutUint32(idx[8:], uint32(n))
	le.PutUint64(idx[12:], off+FooterSize)
	le.PutUint64(idx[24:], xxhash.Sum64(idx[:24]))
	idx = le.AppendUint64(idx, xxhash.Sum64(idx))
	out := append(idx, data...)
	out = le.AppendUint64(out, xxhash.Sum64(out))
	return append(out, TrailerMagic[:]...)
}

func TestReorderSwapDuplicate(t *testing.T) {
	p := [][]byte{[]byte("first segment"), []byte("second segment, longer"), []byte("third")}
	segs := []seg{{t: TypeConversation, p: p[0]}, {t: TypeConversation, p: p[1]}, {t: TypeConversation, p: p[2]}}
	plain := build(t, WriterOptions{}, segs...)
	enc := build(t, encOpts(CodecNone), segs...)
	deepEnc := VerifyOptions{Deep: true, Passphrase: []byte(testPassphrase)}

	// The rebuild helper itself must produce a sound file from the
	// identity order, or the tests below prove nothing.
	if !bytes.Equal(rebuild(t, plain, []int{0, 1, 2}), plain) || !bytes.Equal(rebuild(t, enc, []int{0, 1, 2, 3}), enc) {
		t.Fatal("rebuild with the identity order changed the file")
	}

	t.Run("encrypted, checksums recomputed", func(t *testing.T) {
		for name, order := range map[string][]int{
			"reorder":   {0, 2, 1, 3},
			"swap":      {0, 3, 2, 1},
			"duplicate": {0, 1, 2, 3, 2},
			"drop":      {0, 1, 3},
			"drop last": {0, 1, 2},
			"repeat":    {0, 1, 1, 2, 3},
		} {
			m := rebuild(t, enc, order)
			if err := Verify(bytes.NewReader(m), int64(len(m)), deepEnc); !errors.Is(err, ErrAuth) {
				t.Errorf("%s: got %v, want ErrAuth", name, err)
			}
		}
	})
	t.Run("plain, naive edits", func(t *testing.T) {
		r, _ := open(t, plain, ReaderOptions{})
		s := r.Segments()
		// Swap two index entries.
		m := bytes.Clone(plain)
		e0, e1 := m[HeaderSize:HeaderSize+EntrySize], m[HeaderSize+EntrySize:HeaderSize+2*EntrySize]
		tmp := bytes.Clone(e0)
		copy(e0, e1)
		copy(e1, tmp)
		if err := Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true}); !errors.Is(err, ErrChecksum) {
			t.Errorf("swapped entries: %v", err)
		}
		// Same, index checksum recomputed: offsets no longer line up.
		if err := Verify(bytes.NewReader(reseal(m, false)), int64(len(m)), VerifyOptions{Deep: true}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("swapped entries, resealed: %v", err)
		}
		// Swap segment data (moving the bytes, keeping the index).
		order := rebuild(t, plain, []int{1, 0, 2})
		copy(order[:HeaderSize+3*EntrySize+IndexSumSize], plain)
		if err := Verify(bytes.NewReader(order), int64(len(order)), VerifyOptions{Deep: true}); !errors.Is(err, ErrChecksum) {
			t.Errorf("swapped data: %v", err)
		}
		// Duplicate a segment's bytes over another of the same length.
		m = bytes.Clone(plain)
		copy(m[s[2].Offset:], m[s[0].Offset:s[0].Offset+s[2].StoredLen])
		if err := Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true}); !errors.Is(err, ErrChecksum) {
			t.Errorf("duplicated data: %v", err)
		}
		// Duplicate an entry without updating the header.
		m = rebuild(t, plain, []int{0, 1, 2, 2})
		copy(m, plain[:HeaderSize])
		if err := Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true}); err == nil {
			t.Error("duplicated entry with the old header accepted")
		}
	})
}

// TestHostile crafts files whose checksums are all valid but whose fields
// are impossible or unsupported: each must be refused with the right
// sentinel and region, without large allocations.
func TestHostile(t *testing.T) {
	text := bytes.Repeat([]byte("abcdefgh"), 4000)
	base := build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeMetadata, p: []byte("meta")}, seg{t: TypeConversation, p: text})
	lz := build(t, WriterOptions{Codec: CodecLZ4}, seg{t: TypeConversation, p: text})
	entry := func(i, field int) int { return HeaderSize + i*EntrySize + field }
	type tc struct {
		name   string
		file   []byte
		mod    func(m []byte)
		at     string // "open" or "read"
		want   error
		region string
	}
	cases := []tc{
		{"bad magic", base, func(m []byte) { m[0] = 'X' }, "open", ErrBadMagic, "header"},
		{"version 2", base, func(m []byte) { le.PutUint16(m[4:], 2) }, "open", ErrUnsupported, "header"},
		{"version 0", base, func(m []byte) { le.PutUint16(m[4:], 0) }, "open", ErrUnsupported, "header"},
		{"unknown must-understand header flag", base, func(m []byte) { le.PutUint16(m[6:], 0x0004) }, "open", ErrUnsupported, "header"},
		{"ignorable header flag", base, func(m []byte) { le.PutUint16(m[6:], 0x0100) }, "ok", nil, ""},
		{"reserved header bytes", base, func(m []byte) { m[21] = 1 }, "open", ErrUnsupported, "header"},
		{"encrypted flag on a plain file", base, func(m []byte) { le.PutUint16(m[6:], HeaderEncrypted) }, "open", ErrCorrupt, "index entry 0"},
		{"segment count 2^32-1", base, func(m []byte) { le.PutUint32(m[8:], 0xFFFFFFFF) }, "open", ErrCorrupt, "header"},
		{"huge total size", base, func(m []byte) { le.PutUint64(m[12:], 1<<62) }, "open", ErrTruncated, "file"},
		{"total size too small", base, func(m []byte) { le.PutUint64(m[12:], 10) }, "open", ErrCorrupt, "file"},
		{"offset past end", base, func(m []byte) { le.PutUint64(m[entry(1, 0):], 1<<40) }, "open", ErrCorrupt, "index entry 1"},
		{"overlapping offset", base, func(m []byte) { le.PutUint64(m[entry(1, 0):], dataStart(2)) }, "open", ErrCorrupt, "index entry 1"},
		{"huge stored length", base, func(m []byte) { le.PutUint64(m[entry(1, 8):], 1<<63) }, "open", ErrCorrupt, "index entry 1"},
		{"stored length short of footer", base, func(m []byte) { le.PutUint64(m[entry(1, 8):], le.Uint64(m[entry(1, 8):])-1) }, "open", ErrCorrupt, "footer"},
		{"type 0", base, func(m []byte) { le.PutUint16(m[entry(0, 32):], 0) }, "open", ErrCorrupt, "index entry 0"},
		{"unknown must-understand entry flag", base, func(m []byte) { m[entry(0, 34)] |= 0x40 }, "open", ErrUnsupported, "index entry 0"},
		{"ignorable entry flag", base, func(m []byte) { m[entry(0, 35)] |= 0x80 }, "ok", nil, ""},
		{"reserved entry bytes", base, func(m []byte) { m[entry(0, 38)] = 1 }, "open", ErrUnsupported, "index entry 0"},
		{"required unknown type", base, func(m []byte) { le.PutUint16(m[entry(0, 32):], 0x8123) }, "open", ErrUnsupported, "index entry 0"},
		{"required reserved-range type", base, func(m []byte) { le.PutUint16(m[entry(0, 32):], 200) }, "open", ErrUnsupported, "index entry 0"},
		{"optional unknown type", base, func(m []byte) { le.PutUint16(m[entry(0, 32):], 0x8123); m[entry(0, 34)] &^= byte(FlagRequired) }, "ok", nil, ""},
		{"required unknown codec", base, func(m []byte) { m[entry(1, 36)] = 9 }, "open", ErrUnsupported, "index entry 1"},
		{"optional unknown codec", base, func(m []byte) { m[entry(1, 36)] = 9; m[entry(1, 34)] &^= byte(FlagRequired) }, "read", ErrUnsupported, "segment 1 (conversation)"},
		{"crypto-params in plain file", base, func(m []byte) { le.PutUint16(m[entry(0, 32):], uint16(TypeCryptoParams)) }, "open", ErrCorrupt, "index entry 0"},
		{"uncompressed raw != stored", base, func(m []byte) { le.PutUint64(m[entry(0, 16):], 5) }, "open", ErrCorrupt, "index entry 0"},
		{"zstd raw length 2^40", base, func(m []byte) { le.PutUint64(m[entry(1, 16):], 1<<40) }, "read", ErrTooLarge, "segment 1 (conversation)"},
		{"zstd raw length short", base, func(m []byte) { le.PutUint64(m[entry(1, 16):], uint64(len(text)-1)) }, "read", ErrCorrupt, "segment 1 (conversation)"},
		{"zstd raw length long", base, func(m []byte) { le.PutUint64(m[entry(1, 16):], uint64(len(text)+1)) }, "read", ErrCorrupt, "segment 1 (conversation)"},
		{"zstd raw length 900 MiB", base, func(m []byte) { le.PutUint64(m[entry(1, 16):], 900<<20) }, "read", ErrCorrupt, "segment 1 (conversation)"},
		{"lz4 raw length 900 MiB", lz, func(m []byte) { le.PutUint64(m[entry(0, 16):], 900<<20) }, "read", ErrCorrupt, "segment 0 (conversation)"},
		{"lz4 raw length short", lz, func(m []byte) { le.PutUint64(m[entry(0, 16):], uint64(len(text)-1)) }, "read", ErrCorrupt, "segment 0 (conversation)"},
		{"lz4 raw length long", lz, func(m []byte) { le.PutUint64(m[entry(0, 16):], uint64(len(text)+1)) }, "read", ErrCorrupt, "segment 0 (conversation)"},
		{"lz4 declared as zstd", lz, func(m []byte) { m[entry(0, 36)] = byte(CodecZstd) }, "read", ErrCorrupt, "segment 0 (conversation)"},
		{"trailing magic", base, func(m []byte) { m[len(m)-1] = 0 }, "open", ErrBadMagic, "footer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := bytes.Clone(c.file)
			c.mod(m)
			m = reseal(m, false)
			r, err := open(t, m, ReaderOptions{})
			if c.at == "open" {
				checkErr(t, err, c.want, c.region)
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			var rerr error
			for i := range r.NumSegments() {
				if _, err := r.ReadSegment(i); err != nil && rerr == nil {
					rerr = err
				}
			}
			verr := Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true})
			if c.at == "ok" {
				if rerr != nil && !errors.Is(rerr, ErrUnsupported) {
					t.Fatalf("read: %v", rerr)
				}
				if verr != nil {
					t.Fatalf("verify: %v", verr)
				}
				return
			}
			checkErr(t, rerr, c.want, c.region)
			if c.want != ErrUnsupported {
				checkErr(t, verr, c.want, c.region)
			}
		})
	}
}

func checkErr(t *testing.T, err, want error, region string) {
	t.Helper()
	var fe *FormatError
	if !errors.Is(err, want) || !errors.As(err, &fe) || fe.Region != region {
		t.Fatalf("got %v; want %v in %q", err, want, region)
	}
	if !strings.Contains(err.Error(), region) {
		t.Fatalf("message %q does not name %q", err, region)
	}
}

// TestZstdBomb: a tiny zstd segment that truly decodes to a lot must obey
// the cap, and one that claims more than it holds must fail without
// allocating the claim.
func TestZstdBomb(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	zeros := make([]byte, 8<<20)
	frame := enc.EncodeAll(zeros, nil)
	if len(frame)*zstdFastRatio > len(zeros) {
		t.Fatalf("frame of %d bytes is not a bomb", len(frame))
	}
	got, err := decompress(CodecZstd, frame, len(zeros))
	if err != nil || !bytes.Equal(got, zeros) {
		t.Fatalf("streamed decode: %v", err)
	}
	if _, err := decompress(CodecZstd, frame, len(zeros)-1); err == nil {
		t.Fatal("short raw length accepted")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := decompress(CodecZstd, frame[:len(frame)/2], 900<<20); err == nil {
		t.Fatal("broken frame accepted")
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Fatalf("a %d-byte frame claiming 900 MiB made the reader allocate %d MiB", len(frame)/2, d>>20)
	}
	if _, err := decompress(CodecLZ4, []byte{0xff, 0xff, 0xff}, 100); err == nil {
		t.Fatal("garbage lz4 accepted")
	}
}

// shrunk is a ReaderAt over b that reads nothing at or past end, as a
// file truncated after it was opened.
type shrunk struct {
	b   []byte
	end int64
}

func (s shrunk) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.end {
		return 0, io.EOF
	}
	n := copy(p, s.b[off:min(int64(len(s.b)), s.end)])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestReadSegmentRegions: ReadSegment's errors name the segment they are
// about (the region is formatted only when something is wrong): a stored
// byte changed after the index was written, and a file that lost the
// segment's bytes after it was opened.
func TestReadSegmentRegions(t *testing.T) {
	text := bytes.Repeat([]byte("abcdefgh"), 4000)
	base := build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeMetadata, p: []byte("meta")}, seg{t: TypeConversation, p: text})
	r, err := open(t, base, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conv := r.Segments()[1]

	flipped := bytes.Clone(base)
	flipped[conv.Offset+conv.StoredLen/2] ^= 0x40
	fr, err := open(t, flipped, ReaderOptions{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if _, err := fr.ReadSegment(0); err != nil {
		t.Fatalf("segment 0: %v", err)
	}
	_, err = fr.ReadSegment(1)
	checkErr(t, err, ErrChecksum, "segment 1 (conversation)")

	sr, err := NewReader(shrunk{base, int64(len(base))}, int64(len(base)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cut := shrunk{base, conv.Offset + conv.StoredLen/2}
	sr.ra = cut
	_, err = sr.ReadSegment(1)
	checkErr(t, err, ErrTruncated, "segment 1 (conversation)")
	if !strings.Contains(err.Error(), fmt.Sprintf("read %d of %d bytes", conv.StoredLen/2, conv.StoredLen)) {
		t.Fatalf("message %q does not say how much was read", err)
	}
}
