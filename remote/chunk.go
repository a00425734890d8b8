package remote

import (
	"crypto/sha256"
	"encoding/binary"
)

// Chunk sizes of the content-defined chunker. A growing session's archive
// shares its unchanged raw segments with the previous one; boundaries
// chosen from the content (not from offsets) make those shared bytes
// produce the same chunks even when the bytes before them moved.
const (
	MinChunk = 64 << 10
	AvgChunk = 256 << 10
	MaxChunk = 1 << 20
)

// FastCDC masks (normalized chunking, level 2): more bits before the
// average size make a cut less likely, fewer after it more likely.
const (
	maskS = uint64(1<<20-1) << 44 // 20 bits
	maskL = uint64(1<<16-1) << 48 // 16 bits
)

// Chunker splits a byte stream at content-defined boundaries (FastCDC
// with a gear table derived from a seed). The seed is a secret derived
// from the team key, so the chunk sizes seen in the bucket do not let an
// observer test a guess of the plaintext with a public table.
type Chunker struct {
	gear [256]uint64
}

// NewChunker returns a chunker whose gear table is derived from seed.
func NewChunker(seed []byte) *Chunker {
	c := &Chunker{}
	var ctr [8]byte
	for i := 0; i < 256; i += 4 {
		binary.BigEndian.PutUint64(ctr[:], uint64(i))
		h := sha256.New()
		h.Write([]byte("ben10 remote gear v1\x00"))
		h.Write(seed)
		h.Write(ctr[:])
		sum := h.Sum(nil)
		for j := 0; j < 4; j++ {
			c.gear[i+j] = binary.BigEndian.Uint64(sum[8*j:])
		}
	}
	return c
}

// Cut returns the length of the first chunk of b: len(b) when b is no
// longer than MinChunk, at most MaxChunk otherwise.
func (c *Chunker) Cut(b []byte) int {
	n := len(b)
	if n <= MinChunk {
		return n
	}
	if n > MaxChunk {
		n = MaxChunk
	}
	norm := AvgChunk
	if n < norm {
		norm = n
	}
	var fp uint64
	i := MinChunk
	for ; i < norm; i++ {
		fp = (fp << 1) + c.gear[b[i]]
		if fp&maskS == 0 {
			return i + 1
		}
	}
	for ; i < n; i++ {
		fp = (fp << 1) + c.gear[b[i]]
		if fp&maskL == 0 {
			return i + 1
		}
	}
	return n
}
