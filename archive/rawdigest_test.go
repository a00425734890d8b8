package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"math/rand"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestRawDigest: a RawDigest given a file in random pieces has the file's
// SHA-256, its state after the whole file and its xxhash64; it covers
// that very slice only, and nothing when the pieces are not the file's
// length or the read failed.
func TestRawDigest(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for iter := range 200 {
		data := make([]byte, 1+rng.Intn(1<<20))
		rng.Read(data)
		d := NewRawDigest()
		for off := 0; off < len(data); {
			n := min(len(data)-off, rng.Intn(DigestPiece+1))
			if iter%7 == 0 {
				n = min(len(data)-off, 1+rng.Intn(100))
			}
			d.Add(data[off : off+n])
			off += n
		}
		d.End(data)
		sha, mid, xxh, ok := d.of(data)
		h := sha256.New()
		h.Write(data)
		wantMid, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
		if !ok || sha != hex.EncodeToString(h.Sum(nil)) || !bytes.Equal(mid, wantMid) || xxh != xxhash.Sum64(data) {
			t.Fatalf("iter %d: digest of %d bytes differs (ok %v)", iter, len(data), ok)
		}
		if _, _, _, ok := d.of(bytes.Clone(data)); ok {
			t.Fatal("a copy of the data is covered")
		}
		if _, _, _, ok := d.of(data[:len(data)-1]); ok {
			t.Fatal("a prefix of the data is covered")
		}
		var none *RawDigest
		if _, _, _, ok := none.of(data); ok {
			t.Fatal("a nil digest covers data")
		}
	}
	// Pieces that are not the whole file, a failed read.
	data := []byte("0123456789")
	d := NewRawDigest()
	d.Add(data[:4])
	d.End(data)
	if _, _, _, ok := d.of(data); ok {
		t.Fatal("a digest of 4 of 10 bytes covers them")
	}
	d = NewRawDigest()
	d.Add(data)
	d.End(nil)
	if _, _, _, ok := d.of(data); ok {
		t.Fatal("a failed read's digest covers data")
	}
}
