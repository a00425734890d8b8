package remote

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// split cuts data into chunks as push does, one Cut after another.
func split(t *testing.T, c *Chunker, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(data) > 0 {
		n := c.Cut(data)
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

func TestChunkerBoundsAndReassembly(t *testing.T) {
	c := NewChunker([]byte("seed"))
	for _, n := range []int{0, 1, MinChunk, MinChunk + 1, MaxChunk, 3*MaxChunk + 17, 16 << 20} {
		data := randomBytes(uint64(n), n)
		parts := split(t, c, data)
		if got := bytes.Join(parts, nil); !bytes.Equal(got, data) {
			t.Fatalf("n=%d: chunks do not reassemble the input", n)
		}
		for i, p := range parts {
			if len(p) > MaxChunk || (i < len(parts)-1 && len(p) < MinChunk) {
				t.Fatalf("n=%d: chunk %d of %d has %d bytes", n, i, len(parts), len(p))
			}
		}
		if n >= 16<<20 {
			avg := n / len(parts)
			if avg < AvgChunk/2 || avg > 2*AvgChunk {
				t.Errorf("n=%d: average chunk %d bytes, want about %d", n, avg, AvgChunk)
			}
		}
	}
}

// Content-defined boundaries resynchronize after an insertion: bytes
// inserted at the front change only the first chunks.
func TestChunkerResyncAfterInsert(t *testing.T) {
	c := NewChunker([]byte("seed"))
	data := randomBytes(1, 8<<20)
	a := split(t, c, data)
	b := split(t, c, append([]byte("a few bytes inserted at the start"), data...))
	set := map[string]bool{}
	for _, p := range a {
		set[string(p)] = true
	}
	shared := 0
	for _, p := range b {
		if set[string(p)] {
			shared += len(p)
		}
	}
	if shared < len(data)*9/10 {
		t.Fatalf("after an insertion %d of %d bytes are in shared chunks, want ≥ 90%%", shared, len(data))
	}
}

// The gear table depends on the seed, so chunk sizes differ between
// teams; the same seed cuts the same way.
func TestChunkerSeeded(t *testing.T) {
	data := randomBytes(2, 1<<20)
	a := split(t, NewChunker([]byte("team a")), data)
	a2 := split(t, NewChunker([]byte("team a")), data)
	b := split(t, NewChunker([]byte("team b")), data)
	if len(a) != len(a2) || !bytes.Equal(a[0], a2[0]) {
		t.Fatal("the same seed cut differently")
	}
	if len(a[0]) == len(b[0]) && len(a[1]) == len(b[1]) {
		t.Fatal("two seeds cut the first two chunks at the same places")
	}
}
