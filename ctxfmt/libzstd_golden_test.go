package ctxfmt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// libzstdVectors are archives written by an earlier cgo build, whose
// LevelDefault and LevelMax segments were compressed by libzstd (through
// github.com/DataDog/zstd, levels 3 and 22, the dictionary segment with
// ZSTD_compress_usingCDict) before the writer became pure Go. Every
// reader must keep decoding them: they stand for every archive users
// already have.
var libzstdVectors = []struct {
	file  string
	level Level
	dict  bool
}{
	{"libzstd-default.ctx", LevelDefault, false},
	{"libzstd-max.ctx", LevelMax, false},
	{"libzstd-dict.ctx", LevelDefault, true},
}

// libzstdPayloads are the segments of every libzstd vector: metadata, a
// recall text and a conversation of about 90 KiB that repeats with
// variations, as a transcript does.
func libzstdPayloads() (meta, recall, conv []byte) {
	meta = []byte(`{"format":"ben10 libzstd vector","project":"/home/dev/demo"}`)
	recall = []byte("commands: go vet ./... ; go test ./ctxfmt ; make build\nfiles: ctxfmt/codec.go ctxfmt/reader.go\n")
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u-%04d","message":{"role":"user","content":"step %d: run go test ./ctxfmt -run Test%d"}}`+"\n", i, i, i%37)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a-%04d","message":{"role":"assistant","content":[{"type":"text","text":"%d of %d tests pass in %d.%02ds"}]}}`+"\n", i, i%91, 91, i%7, i%100)
	}
	b.Write(recall)
	return meta, recall, []byte(b.String())
}

func writeLibzstdVector(t *testing.T, level Level, dict bool) []byte {
	t.Helper()
	meta, recall, conv := libzstdPayloads()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Codec: CodecZstd, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	add := func(typ SegmentType, p []byte, o SegmentOptions) {
		o.Codec, o.Level = CodecZstd, level
		if err := w.AddWith(typ, p, o); err != nil {
			t.Fatal(err)
		}
	}
	add(TypeMetadata, meta, SegmentOptions{})
	add(TypeSummaries, recall, SegmentOptions{Optional: true})
	if dict {
		addDict(t, w, TypeConversation, conv, 1, recall, level)
	} else {
		add(TypeConversation, conv, SegmentOptions{})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLibzstdVectors: archives whose frames libzstd wrote decode, verify
// deeply and give back their payloads in this pure-Go build, and they are
// not what this build writes for the same input (so the test does read
// another encoder's frames).
func TestLibzstdVectors(t *testing.T) {
	meta, recall, conv := libzstdPayloads()
	want := map[SegmentType][]byte{TypeMetadata: meta, TypeSummaries: recall, TypeConversation: conv}
	for _, v := range libzstdVectors {
		t.Run(v.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(goldenDir, v.file))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(b, writeLibzstdVector(t, v.level, v.dict)) {
				t.Fatalf("%s equals this build's output: not a libzstd vector", v.file)
			}
			if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true}); err != nil {
				t.Fatalf("verify %s: %v", v.file, err)
			}
			r, err := open(t, b, ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.NumSegments() != len(want) {
				t.Fatalf("%s: %d segments, want %d", v.file, r.NumSegments(), len(want))
			}
			for i, si := range r.Segments() {
				got, err := r.ReadSegment(i)
				if err != nil {
					t.Fatalf("%s segment %d (%s): %v", v.file, i, si.Type, err)
				}
				if !bytes.Equal(got, want[si.Type]) {
					t.Errorf("%s segment %d (%s): payload differs (%d bytes, want %d)", v.file, i, si.Type, len(got), len(want[si.Type]))
				}
				if si.Type != TypeConversation {
					continue
				}
				if wantCodec := map[bool]Codec{false: CodecZstd, true: CodecZstdDict}[v.dict]; si.Codec != wantCodec {
					t.Errorf("%s conversation: codec %s, want %s", v.file, si.Codec, wantCodec)
				}
			}
		})
	}
}
