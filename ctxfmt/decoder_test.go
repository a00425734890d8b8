package ctxfmt

import (
	"bytes"
	"runtime"
	"testing"
	"weak"
)

// TestReadSegmentKeepsNothing: once its caller drops a segment
// ReadSegment decoded, nothing in the package keeps it alive (an idle
// klauspost decoder used to hold its last output, so the segments an
// incremental save reads from the earlier archive stayed live beside the
// save's peak). A weak pointer to the output must be cleared by a
// collection: no timing, no heap figures.
func TestReadSegmentKeepsNothing(t *testing.T) {
	for _, c := range []Codec{CodecZstd, CodecLZ4} {
		t.Run(c.String(), func(t *testing.T) {
			payload := textPayload(1<<20, 3)
			b := build(t, WriterOptions{Codec: c}, seg{t: 1, p: payload})
			r, err := open(t, b, ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if si := r.Segments()[0]; si.Codec != c {
				t.Fatalf("segment stored with %s, want %s", si.Codec, c)
			}
			out, err := r.ReadSegment(0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, payload) {
				t.Fatal("payload differs")
			}
			wp := weak.Make(&out[0])
			out = nil
			runtime.GC()
			runtime.GC()
			if wp.Value() != nil {
				t.Fatal("the decoded segment is still reachable after its caller dropped it")
			}
		})
	}
}
