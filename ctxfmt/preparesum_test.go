package ctxfmt

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestPrepareSum: a payload prepared with its xxhash64 given is the one
// Prepare makes, whatever the codec and level, and with the sum unknown
// too.
func TestPrepareSum(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var payload []byte
	for len(payload) < 300<<10 {
		payload = append(payload, []byte("line of text with some repetition ")...)
		payload = append(payload, byte('a'+rng.Intn(26)))
	}
	called := 0
	for _, c := range []Codec{CodecZstd, CodecLZ4, CodecNone} {
		for _, l := range []Level{LevelFastest, LevelDefault, LevelBest, LevelMax} {
			want, err := Prepare(c, l, payload)
			if err != nil {
				t.Fatal(err)
			}
			for _, known := range []bool{true, false} {
				got, err := PrepareSum(c, l, payload, func() (uint64, bool) {
					called++
					return xxhash.Sum64(payload), known
				})
				if err != nil {
					t.Fatal(err)
				}
				if got.codec != want.codec || !bytes.Equal(got.comp, want.comp) || got.rawLen != want.rawLen {
					t.Fatalf("%s %s, sum known %v: PrepareSum differs from Prepare", c, l, known)
				}
			}
		}
	}
	if libzstdBuilt && called == 0 {
		t.Fatal("the sum was never asked for")
	}
}

// TestPrepareSumWrong: a wrong sum is caught when the segment is read
// (libzstd's frames carry the sum given).
func TestPrepareSumWrong(t *testing.T) {
	if !libzstdBuilt {
		t.Skip("no libzstd: the sum is never used")
	}
	payload := bytes.Repeat([]byte("some text to compress, "), 20000)
	for _, wrong := range []bool{false, true} {
		p, err := PrepareSum(CodecZstd, LevelDefault, payload, func() (uint64, bool) {
			if wrong {
				return xxhash.Sum64(payload) + 1, true
			}
			return xxhash.Sum64(payload), true
		})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddPrepared(TypeRawTranscript, p); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.ReadSegment(0)
		if wrong != (err != nil) || !wrong && !bytes.Equal(got, payload) {
			t.Fatalf("wrong sum %v: read error %v", wrong, err)
		}
	}
}
