package ctxfmt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	payloads := map[string][]byte{
		"empty":  {},
		"byte":   {42},
		"text":   textPayload(200_000, 1),
		"random": randomPayload(70_000, 2),
		"zeros":  make([]byte, 1<<20),
	}
	for _, c := range []Codec{CodecNone, CodecLZ4, CodecZstd} {
		for _, l := range []Level{LevelFastest, LevelDefault, LevelBetter, LevelBest, LevelMax} {
			t.Run(fmt.Sprintf("%s-%s", c, l), func(t *testing.T) {
				var segs []seg
				names := []string{"empty", "byte", "text", "random", "zeros"}
				for i, name := range names {
					segs = append(segs, seg{t: SegmentType(i + 1), p: payloads[name]})
				}
				b := build(t, WriterOptions{Codec: c, Level: l}, segs...)
				r, err := open(t, b, ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true}); err != nil {
					t.Fatal(err)
				}
				if got := r.NumSegments(); got != len(names) {
					t.Fatalf("segments %d, want %d", got, len(names))
				}
				for i, name := range names {
					got, err := r.ReadSegment(i)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !bytes.Equal(got, payloads[name]) {
						t.Fatalf("%s: payload differs", name)
					}
					si := r.Segments()[i]
					if si.RawLen != int64(len(payloads[name])) || si.Type != SegmentType(i+1) || !si.Required || si.Encrypted || !si.Known {
						t.Fatalf("%s: info %+v", name, si)
					}
					switch {
					case name == "random" || name == "empty" || name == "byte" || c == CodecNone:
						if si.Codec != CodecNone {
							t.Fatalf("%s stored with %s, want none (incompressible)", name, si.Codec)
						}
					default:
						if si.Codec != c || si.StoredLen >= si.RawLen {
							t.Fatalf("%s: codec %s stored %d raw %d", name, si.Codec, si.StoredLen, si.RawLen)
						}
					}
				}
			})
		}
	}
}

func TestDeterministic(t *testing.T) {
	segs := []seg{
		{t: TypeMetadata, p: []byte(`{"v":1}`)},
		{t: TypeConversation, p: textPayload(300_000, 3)},
		{t: TypeFileContents, p: textPayload(100_000, 4), o: SegmentOptions{Codec: CodecLZ4, Level: LevelBest, Optional: true}},
		{t: TypeRawTranscript, p: randomPayload(5000, 5)},
	}
	first := build(t, WriterOptions{Codec: CodecZstd, Concurrency: 1}, segs...)
	for _, conc := range []int{0, 2, 3, 8} {
		for range 3 {
			if b := build(t, WriterOptions{Codec: CodecZstd, Concurrency: conc}, segs...); !bytes.Equal(b, first) {
				t.Fatalf("concurrency %d: output differs", conc)
			}
		}
	}
}

func TestSegmentOptions(t *testing.T) {
	p := textPayload(50_000, 9)
	b := build(t, WriterOptions{Codec: CodecZstd},
		seg{t: TypeConversation, p: p},
		seg{t: TypeSummaries, p: p, o: SegmentOptions{Codec: CodecLZ4}},
		seg{t: TypeToolHistory, p: p, o: SegmentOptions{Codec: CodecNone, Optional: true}},
	)
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Segments()
	if s[0].Codec != CodecZstd || s[1].Codec != CodecLZ4 || s[2].Codec != CodecNone {
		t.Fatalf("codecs %s %s %s", s[0].Codec, s[1].Codec, s[2].Codec)
	}
	if !s[0].Required || !s[1].Required || s[2].Required {
		t.Fatalf("required flags %v %v %v", s[0].Required, s[1].Required, s[2].Required)
	}
	if got := r.Find(TypeSummaries); len(got) != 1 || got[0] != 1 {
		t.Fatalf("Find = %v", got)
	}
	if got := r.Find(TypePreferences); got != nil {
		t.Fatalf("Find absent = %v", got)
	}
}

func TestWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewWriter(&buf, WriterOptions{Codec: 9}); err == nil {
		t.Error("unknown codec accepted")
	}
	if _, err := NewWriter(&buf, WriterOptions{Encryption: &Encryption{}}); err == nil {
		t.Error("encryption without key accepted")
	}
	if _, err := NewWriter(&buf, WriterOptions{Encryption: &Encryption{Key: make([]byte, 16)}}); err == nil {
		t.Error("16-byte key accepted")
	}
	if _, err := NewWriter(&buf, WriterOptions{Encryption: &Encryption{Key: make([]byte, 32), Passphrase: []byte("x")}}); err == nil {
		t.Error("key and passphrase accepted")
	}
	if _, err := NewWriter(&buf, WriterOptions{Encryption: &Encryption{Passphrase: []byte("x"), Argon2: Argon2Params{MemoryKiB: MaxArgon2MemoryKiB + 1}}}); err == nil {
		t.Error("argon2 memory above the cap accepted")
	}
	w, _ := NewWriter(&buf, WriterOptions{})
	if err := w.Add(0, nil); err == nil {
		t.Error("type 0 accepted")
	}
	if err := w.Add(TypeCryptoParams, nil); err == nil {
		t.Error("crypto-params accepted")
	}
	if err := w.AddWith(TypeMetadata, nil, SegmentOptions{Codec: 7}); err == nil {
		t.Error("unknown segment codec accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(TypeMetadata, nil); err == nil {
		t.Error("Add after Close accepted")
	}
	if err := w.Close(); err == nil {
		t.Error("second Close accepted")
	}
}

func TestEmptyFile(t *testing.T) {
	b := build(t, WriterOptions{})
	if len(b) != minFileSize {
		t.Fatalf("empty file is %d bytes, want %d", len(b), minFileSize)
	}
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.NumSegments() != 0 || r.Header().TotalSize != uint64(len(b)) {
		t.Fatalf("header %+v", r.Header())
	}
	if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenFile(t *testing.T) {
	b := build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeMetadata, p: []byte("hello")})
	name := filepath.Join(t.TempDir(), "a.ctx")
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := OpenFile(name, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := rc.ReadSegment(0)
	if err != nil || string(got) != "hello" {
		t.Fatalf("%q %v", got, err)
	}
	if err := VerifyFile(name, VerifyOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(filepath.Join(t.TempDir(), "missing"), ReaderOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestMaxSegmentSize(t *testing.T) {
	b := build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeConversation, p: textPayload(10_000, 1)})
	r, err := open(t, b, ReaderOptions{MaxSegmentSize: 9_999})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.ReadSegment(0)
	var fe *FormatError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &fe) || fe.Region != "segment 0 (conversation)" {
		t.Fatalf("got %v", err)
	}
	if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, MaxSegmentSize: 9_999}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("verify: %v", err)
	}
}

func TestAddPreparedSameBytes(t *testing.T) {
	payload := bytes.Repeat([]byte("prepared segment payload "), 4000)
	for _, c := range []Codec{CodecNone, CodecLZ4, CodecZstd} {
		var a, b bytes.Buffer
		wa, _ := NewWriter(&a, WriterOptions{Codec: c})
		if err := wa.Add(TypeRawTranscript, payload); err != nil {
			t.Fatal(err)
		}
		if err := wa.Close(); err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(c, LevelDefault, payload)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := NewWriter(&b, WriterOptions{Codec: c})
		if err := wb.AddPrepared(TypeRawTranscript, p); err != nil {
			t.Fatal(err)
		}
		if err := wb.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: AddPrepared wrote different bytes than Add", c)
		}
	}
	if _, err := Prepare(Codec(9), LevelDefault, payload); err == nil {
		t.Error("Prepare accepted an unknown codec")
	}
}
