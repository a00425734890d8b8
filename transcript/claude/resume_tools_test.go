package claude

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
)

func encodeSkels(t *testing.T, ts toolSkels) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(ts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// toolSkels round-trips every field, and malformed bytes (every truncation,
// random changes) give an error or a value, never a panic or a huge
// allocation.
func TestToolSkelsEncoding(t *testing.T) {
	ts := toolSkels{
		{ID: "toolu_1", Name: "Bash", Success: true, DurationMS: 1234, Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
			RelatedFiles: []string{"a.go", "b/c.go"}, Command: "go test ./...", Ref: archive.RawRef{File: 0, Line: 7},
			ResultRef: archive.RawRef{File: 0, Line: 9}, InputSpans: []archive.Span{{Off: 10, Len: 20, Verbatim: true}},
			OutputSpans: []archive.Span{{Off: 1, Len: 2}, {Off: 1 << 31, Len: 5, Verbatim: true}}},
		{Name: "Read", Sidechain: true, Ref: archive.RawRef{File: 2, Line: 1 << 40}, ResultRef: archive.RawRef{File: -1, Line: -1}},
		{},
	}
	b := encodeSkels(t, ts)
	var got toolSkels
	if err := unmarshalSafe(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ts) {
		t.Fatalf("%d tools, want %d", len(got), len(ts))
	}
	for i := range ts {
		w, g := ts[i], got[i]
		if !w.Timestamp.Equal(g.Timestamp) {
			t.Fatalf("tool %d: time %v, want %v", i, g.Timestamp, w.Timestamp)
		}
		w.Timestamp, g.Timestamp = time.Time{}, time.Time{}
		if w.ID != g.ID || w.Name != g.Name || w.Success != g.Success || w.DurationMS != g.DurationMS ||
			w.Command != g.Command || w.Sidechain != g.Sidechain || w.Ref != g.Ref || w.ResultRef != g.ResultRef ||
			len(w.RelatedFiles) != len(g.RelatedFiles) || len(w.InputSpans) != len(g.InputSpans) || len(w.OutputSpans) != len(g.OutputSpans) {
			t.Fatalf("tool %d: %+v, want %+v", i, g, w)
		}
		for k := range w.RelatedFiles {
			if w.RelatedFiles[k] != g.RelatedFiles[k] {
				t.Fatalf("tool %d: files %v, want %v", i, g.RelatedFiles, w.RelatedFiles)
			}
		}
		for k := range w.OutputSpans {
			if w.OutputSpans[k] != g.OutputSpans[k] {
				t.Fatalf("tool %d: spans %v, want %v", i, g.OutputSpans, w.OutputSpans)
			}
		}
	}
	if !bytes.Equal(encodeSkels(t, got), b) {
		t.Fatal("re-encoding differs")
	}
	for n := range len(b) {
		var x toolSkels
		if err := unmarshalSafe(b[:n], &x); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(b))
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 5000 {
		c := append([]byte(nil), b...)
		for range 1 + rng.IntN(4) {
			c[rng.IntN(len(c))] = byte(rng.IntN(256))
		}
		var x toolSkels
		_ = unmarshalSafe(c, &x)
	}
	// A huge declared length is refused before anything is allocated.
	var x toolSkels
	if err := unmarshalSafe([]byte{0xdd, 0x7f, 0xff, 0xff, 0xff}, &x); err == nil {
		t.Fatal("2^31-item tool list: no error")
	}
}
