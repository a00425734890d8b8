package archive_test

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// EncodeOptions.Progress reports the raw transcript's bytes, growing to
// the total, through the redaction and the compression of every segment;
// it changes nothing in the bytes written.
func TestEncodeProgress(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	var raw int64
	for _, f := range st.Raw {
		raw += int64(len(f.Data))
	}
	same := func(line []byte) []byte { return line }
	for _, c := range []struct {
		name   string
		opts   archive.EncodeOptions
		chunks bool // more than one segment: progress before the end
	}{
		{"one segment", archive.EncodeOptions{Codec: ctxfmt.CodecZstd}, false},
		{"segments", archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: 512}, true},
		{"segments, redacted", archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: 512, RedactLine: same, RedactFingerprint: "same"}, true},
		{"uncompressed", archive.EncodeOptions{ChunkSize: 512}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := encode(t, st, c.opts)
			var mu sync.Mutex
			var calls [][2]int64
			c.opts.Progress = func(done, total int64) {
				mu.Lock()
				calls = append(calls, [2]int64{done, total})
				mu.Unlock()
			}
			if got := encode(t, st, c.opts); !bytes.Equal(got, want) {
				t.Fatal("Progress changed the archive's bytes")
			}
			if len(calls) == 0 {
				t.Fatal("Progress never called")
			}
			prev := int64(0)
			for i, cl := range calls {
				if cl[1] != raw || cl[0] <= prev || cl[0] > raw {
					t.Fatalf("call %d of %v: done %d total %d (raw bytes %d, previous done %d)", i, calls, cl[0], cl[1], raw, prev)
				}
				prev = cl[0]
			}
			if last := calls[len(calls)-1]; last[0] != raw {
				t.Fatalf("last call %v, want done = total = %d", last, raw)
			}
			if c.chunks && len(calls) < 3 {
				t.Errorf("only %d calls for a transcript of several segments: %v", len(calls), calls)
			}
		})
	}
}
