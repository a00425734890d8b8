package fuzz

import (
	"bytes"
	"context"
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// payloadBase is a small valid archive, its segments' types and decoded
// payloads: FuzzArchivePayloads replaces one payload and reseals.
func payloadBase(tb testing.TB) (types []ctxfmt.SegmentType, payloads [][]byte) {
	tb.Helper()
	st, err := claude.Import(context.Background(), filepath.Join("..", "transcript", "claude", "testdata", "v1.jsonl"), archive.ImportOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{ChunkSize: 512}); err != nil {
		tb.Fatal(err)
	}
	r, err := ctxfmt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ctxfmt.ReaderOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	for i, s := range r.Segments() {
		b, err := r.ReadSegment(i)
		if err != nil {
			tb.Fatal(err)
		}
		types = append(types, s.Type)
		payloads = append(payloads, b)
	}
	return types, payloads
}

// FuzzArchivePayloads replaces the decoded payload of one segment of a
// valid archive (chosen by which) with the fuzzer's bytes and writes the
// container again, every checksum sealed, so that what is mutated is what
// the archive's decoders read (metadata, conversation, tools, registry,
// recall, raw chunks…), not the container. Every reader must return
// without panicking and without allocating more than 64 MiB plus 16 times
// the payload (the budget a segment's decoded values get is 16 MiB plus 4
// times its size).
func FuzzArchivePayloads(f *testing.F) {
	types, payloads := payloadBase(f)
	for i, p := range payloads {
		f.Add(uint8(i), p)
	}
	f.Add(uint8(0), []byte{0xdd, 0x00, 0x10, 0x00, 0x00, 0xc0})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		k := int(which) % len(types)
		var buf bytes.Buffer
		w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecNone})
		if err != nil {
			t.Fatal(err)
		}
		for i, typ := range types {
			p := payloads[i]
			if i == k {
				p = data
			}
			if err := w.Add(typ, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		before := allocated()
		readEverything(b)
		if got, limit := allocated()-before, uint64(64<<20+16*len(data)+8*len(b)); got > limit {
			t.Fatalf("segment %d (%s), %d payload bytes: the readers allocated %d bytes, over %d", k, types[k], len(data), got, limit)
		}
	})
}

// readEverything runs every archive read over b; errors are expected.
func readEverything(b []byte) {
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
	if err != nil {
		return
	}
	a.Summary()
	a.Messages()
	a.Tools()
	a.Files()
	a.Tasks()
	a.Compactions()
	a.Preferences()
	if r, ok, err := a.Recall(); ok && err == nil {
		archive.Digest(r, archive.DigestOptions{})
	}
	a.RawFiles()
	a.FileContents()
}

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

// allocated is the bytes allocated on the heap so far.
func allocated() uint64 {
	metrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}
