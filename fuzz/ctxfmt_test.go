package fuzz

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/hostile"
)

// The published secrets of the golden vectors (docs/FORMAT.md).
var (
	vectorPassphrase = []byte("ben10 test vector")
	vectorKey        = func() []byte {
		k := make([]byte, 32)
		for i := range k {
			k[i] = byte(i)
		}
		return k
	}()
)

// addCtxSeeds adds every golden .ctx vector to the corpus.
func addCtxSeeds(f *testing.F, add func(b []byte)) {
	names, err := filepath.Glob("../testdata/ctxfmt/*.ctx")
	if err != nil || len(names) == 0 {
		f.Fatalf("no golden vectors in ../testdata/ctxfmt (%v)", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
	// Files written now at the default and max levels (the golden vectors
	// above include frames libzstd wrote).
	text := bytes.Repeat([]byte(`{"type":"user","message":{"role":"user","content":"run go test ./... and fix the failing test"},"uuid":"0f6c"}`+"\n"), 12)
	for _, l := range []ctxfmt.Level{ctxfmt.LevelDefault, ctxfmt.LevelMax} {
		var buf bytes.Buffer
		w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd, Level: l})
		if err != nil {
			f.Fatal(err)
		}
		if err := w.Add(ctxfmt.TypeMetadata, []byte(`{"session":"fuzz"}`)); err != nil {
			f.Fatal(err)
		}
		if err := w.Add(ctxfmt.TypeRawTranscript, text); err != nil {
			f.Fatal(err)
		}
		if err := w.Close(); err != nil {
			f.Fatal(err)
		}
		add(buf.Bytes())
	}
	// (Codec 3, which the writer no longer makes, comes with the golden
	// vectors zstd-dict.ctx and libzstd-dict.ctx.)
	add(nil)
	add([]byte("Ben\n"))
}

// cheapKeys returns reader options with the vector secrets, unless the
// (fuzzed) Argon2id parameters would make each run slow: the caps allow
// up to 256 MiB, which is legitimate but useless for fuzzing.
func cheapKeys(b []byte) ctxfmt.ReaderOptions {
	r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
	if err != nil {
		return ctxfmt.ReaderOptions{}
	}
	ci, ok := r.CryptoInfo()
	switch {
	case !ok:
		return ctxfmt.ReaderOptions{}
	case ci.KDF == "raw-key":
		return ctxfmt.ReaderOptions{Key: vectorKey}
	case ci.Argon2.MemoryKiB <= 4096 && ci.Argon2.Time <= 2:
		return ctxfmt.ReaderOptions{Passphrase: vectorPassphrase}
	}
	return ctxfmt.ReaderOptions{}
}

func isFormatError(err error) bool {
	var fe *ctxfmt.FormatError
	return errors.As(err, &fe)
}

// FuzzCtxfmtOpen: opening arbitrary bytes never panics, fails only with
// a *FormatError, and an opened file's index is consistent with its size.
func FuzzCtxfmtOpen(f *testing.F) {
	addCtxSeeds(f, func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), cheapKeys(b))
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("not a *FormatError: %v", err)
			}
			return
		}
		h := r.Header()
		if h.TotalSize != uint64(len(b)) || int(h.SegmentCount) != r.NumSegments() {
			t.Fatalf("header %+v for %d bytes", h, len(b))
		}
		end := int64(ctxfmt.HeaderSize + ctxfmt.EntrySize*r.NumSegments() + ctxfmt.IndexSumSize)
		for _, s := range r.Segments() {
			if s.Offset != end || s.StoredLen < 0 || s.Offset+s.StoredLen > int64(len(b))-ctxfmt.FooterSize {
				t.Fatalf("segment %d at %d+%d, expected at %d in %d bytes", s.Index, s.Offset, s.StoredLen, end, len(b))
			}
			end += s.StoredLen
		}
		if end != int64(len(b))-ctxfmt.FooterSize {
			t.Fatalf("segments end at %d, footer at %d", end, len(b)-ctxfmt.FooterSize)
		}
	})
}

// FuzzCtxfmtReadSegment: reading any segment of arbitrary bytes never
// panics; a successful read has exactly the recorded raw length.
func FuzzCtxfmtReadSegment(f *testing.F) {
	addCtxSeeds(f, func(b []byte) {
		for i := range 5 {
			f.Add(b, uint8(i))
		}
	})
	f.Fuzz(func(t *testing.T, b []byte, i uint8) {
		r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), cheapKeys(b))
		if err != nil || r.NumSegments() == 0 {
			return
		}
		idx := int(i) % r.NumSegments()
		got, err := r.ReadSegment(idx)
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("not a *FormatError: %v", err)
			}
			return
		}
		if want := r.Segments()[idx].RawLen; int64(len(got)) != want {
			t.Fatalf("segment %d: %d bytes, index says %d", idx, len(got), want)
		}
	})
}

// FuzzCtxfmtVerify: deep verification never panics; a file that passes
// deep verification reads back completely, and (plain files) copying every
// segment with CopyRaw reproduces it byte for byte, unless a segment is
// compressed against another one (zstd-dict), which CopyRaw refuses.
func FuzzCtxfmtVerify(f *testing.F) {
	addCtxSeeds(f, func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		ro := cheapKeys(b)
		err := ctxfmt.Verify(bytes.NewReader(b), int64(len(b)), ctxfmt.VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key})
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("not a *FormatError: %v", err)
			}
			return
		}
		r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ro)
		if err != nil {
			t.Fatalf("verified file does not open: %v", err)
		}
		for _, s := range r.Segments() {
			if !s.Codec.Known() {
				continue
			}
			if _, err := r.ReadSegment(s.Index); err != nil {
				t.Fatalf("verified file: segment %d: %v", s.Index, err)
			}
		}
		if r.Encrypted() || r.Header().Flags != 0 {
			return
		}
		var out bytes.Buffer
		w, err := ctxfmt.NewWriter(&out, ctxfmt.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range r.Segments() {
			err := w.CopyRaw(r, i)
			if s.Codec == ctxfmt.CodecZstdDict {
				// Compressed against another segment of its file: never
				// copied alone.
				if err == nil {
					t.Fatalf("CopyRaw %d copied a zstd-dict segment", i)
				}
				return
			}
			if err != nil {
				t.Fatalf("CopyRaw %d: %v", i, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), b) {
			t.Fatal("copying every segment of a verified plain file changed its bytes")
		}
	})
}

// FuzzCtxfmtResealed mutates files and then repairs every checksum, so
// the fuzzer explores the structure behind them: open, read every
// segment and deep-verify must never panic, and must agree: a file that
// deep-verifies reads back completely — except optional segments with an
// unknown codec, which a deep verify checks only by checksum and
// authentication (docs/FORMAT.md) and which read as ErrUnsupported.
func FuzzCtxfmtResealed(f *testing.F) {
	addCtxSeeds(f, func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		b = hostile.Reseal(b)
		ro := cheapKeys(b)
		r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ro)
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("not a *FormatError: %v", err)
			}
			return
		}
		readAll := true
		for i := range r.NumSegments() {
			got, err := r.ReadSegment(i)
			if err != nil {
				if !isFormatError(err) {
					t.Fatalf("segment %d: not a *FormatError: %v", i, err)
				}
				if r.Segments()[i].Codec.Known() {
					readAll = false
				} else if !errors.Is(err, ctxfmt.ErrUnsupported) {
					t.Fatalf("segment %d with codec %s: %v, want ErrUnsupported", i, r.Segments()[i].Codec, err)
				}
				continue
			}
			if int64(len(got)) != r.Segments()[i].RawLen {
				t.Fatalf("segment %d: %d bytes, index says %d", i, len(got), r.Segments()[i].RawLen)
			}
		}
		err = ctxfmt.Verify(bytes.NewReader(b), int64(len(b)), ctxfmt.VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key})
		if err == nil && !readAll {
			t.Fatal("deep verify passed but a segment did not read")
		}
	})
}
