package ctxfmt

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// testArgon2 keeps key derivation cheap in tests.
var testArgon2 = Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}

const testPassphrase = "correct horse battery staple"

// seg is one segment of a test file.
type seg struct {
	t SegmentType
	p []byte
	o SegmentOptions
}

// build writes segs with opts and returns the file bytes.
func build(t testing.TB, opts WriterOptions, segs ...seg) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		o := s.o
		if o == (SegmentOptions{}) {
			o.UseDefaults = true
		}
		if err := w.AddWith(s.t, s.p, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func open(t testing.TB, b []byte, opts ReaderOptions) (*Reader, error) {
	t.Helper()
	return NewReader(bytes.NewReader(b), int64(len(b)), opts)
}

// textPayload is compressible, transcript-like text.
func textPayload(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"the ", "file ", "func ", "error ", "tool_use ", "\"content\": ", "{\"type\":\"text\"} ", "go test ./... ", "\n", "assistant ", "user ", "ctxfmt ", "segment "}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.Bytes()[:n]
}

// randomPayload is incompressible.
func randomPayload(n int, seed uint64) []byte {
	rng := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	b := make([]byte, n)
	rng.Read(b)
	return b
}

// reseal recomputes the header checksum, every entry checksum (when
// entries is true), the index checksum and the footer of a (modified)
// file, so that only deeper checks can catch the modification.
func reseal(b []byte, entries bool) []byte {
	b = bytes.Clone(b)
	le.PutUint64(b[24:], xxhash.Sum64(b[:24]))
	n := uint64(le.Uint32(b[8:]))
	end := HeaderSize + n*EntrySize
	if end+IndexSumSize > uint64(len(b)) {
		return b
	}
	if entries {
		for i := range n {
			eb := b[HeaderSize+i*EntrySize:]
			off, sl := le.Uint64(eb[0:]), le.Uint64(eb[8:])
			if off <= uint64(len(b)) && sl <= uint64(len(b))-off {
				le.PutUint64(eb[24:], xxhash.Sum64(b[off:off+sl]))
			}
		}
	}
	le.PutUint64(b[end:], xxhash.Sum64(b[:end]))
	if len(b) >= FooterSize {
		le.PutUint64(b[len(b)-FooterSize:], xxhash.Sum64(b[:len(b)-FooterSize]))
	}
	return b
}
