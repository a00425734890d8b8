package archive

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// A RawDigest computes, while a raw transcript file is being read, the
// digests an Encoder would otherwise compute once the file is redacted
// and cut: its SHA-256 (the raw manifest's) and its xxhash64 (a chunk's
// OrigHash). A reader that reads a file piece by piece gives it each
// piece as soon as it is read (Add) and ends it with the whole file (End),
// so that the digests are made on another core while the read goes on;
// it then sets it as the RawFile's Digest. What is not digested when the
// read ends is left to the Encoder, which needs the digests only once the
// file is redacted: the other core then redacts rather than hashes.
//
// An Encoder uses a RawDigest only for a file that is stored as it was
// read (redaction changed none of its lines) in one chunk (no larger than
// the chunk size), and only when it covers the RawFile's Data exactly (the
// same bytes, given in order, and End called with that very slice);
// otherwise it hashes the stored bytes itself, as it does for a RawFile
// without a Digest. The file's bytes must not change after they are
// given to Add.
type RawDigest struct {
	pieces  chan []byte
	drained chan struct{}  // closed once run has taken every piece
	base    unsafe.Pointer // &data[0] of End's data
	n       int            // len(data) of End's data

	ended atomic.Bool // End was called: run leaves the pieces to rest
	// Only run uses these until drained is closed:
	rest  [][]byte // pieces not digested by run
	sh    hash.Hash
	xh    *xxhash.Digest
	total int

	once sync.Once // finish, by the first of
	ok   bool      // the pieces were n bytes
	sha  string
	mid  []byte // the SHA-256 state after the whole file (a one-chunk file's Mid)
	xxh  uint64
}

// rawDigestPieces is how many pieces a RawDigest holds before Add waits
// for it: a reader that gives pieces of DigestPiece bytes of a file up to
// DefaultChunkSize never waits.
const rawDigestPieces = DefaultChunkSize/DigestPiece + 2

// DigestPiece is the size of the pieces a reader is meant to give a
// RawDigest (any size works).
const DigestPiece = 256 << 10

// NewRawDigest starts the digests of a file about to be read.
func NewRawDigest() *RawDigest {
	d := &RawDigest{pieces: make(chan []byte, rawDigestPieces), drained: make(chan struct{}), sh: sha256.New(), xh: xxhash.New()}
	go d.run()
	return d
}

func (d *RawDigest) run() {
	defer close(d.drained)
	for p := range d.pieces {
		if d.ended.Load() {
			d.rest = append(d.rest, p)
		} else {
			d.add(p)
		}
	}
}

func (d *RawDigest) add(p []byte) {
	d.sh.Write(p)
	_, _ = d.xh.Write(p)
	d.total += len(p)
}

// Add gives the digest the next bytes of the file, those following the
// bytes of the earlier calls. They must not change afterwards.
func (d *RawDigest) Add(p []byte) {
	if len(p) > 0 {
		d.pieces <- p
	}
}

// End ends the read: data is the whole file, the bytes given to Add in
// order (nil when the read failed: the digest then covers nothing). It
// must be called once, after the last Add. The pieces not digested yet
// are left to the first use of the digests.
func (d *RawDigest) End(data []byte) {
	d.n = len(data)
	if len(data) > 0 {
		d.base = unsafe.Pointer(unsafe.SliceData(data))
	}
	d.ended.Store(true)
	close(d.pieces)
}

// of returns the digests of data when d covers it, digesting what the
// read left.
func (d *RawDigest) of(data []byte) (sha string, mid []byte, xxh uint64, ok bool) {
	if d == nil || len(data) == 0 || len(data) != d.n || unsafe.Pointer(unsafe.SliceData(data)) != d.base {
		return "", nil, 0, false
	}
	<-d.drained
	d.once.Do(func() {
		for _, p := range d.rest {
			d.add(p)
		}
		d.rest = nil
		if d.total != d.n {
			return
		}
		if bm, ok := d.sh.(encoding.BinaryMarshaler); ok {
			d.mid, _ = bm.MarshalBinary()
		}
		d.sha = hex.EncodeToString(d.sh.Sum(nil))
		d.xxh = d.xh.Sum64()
		d.ok = true
	})
	return d.sha, d.mid, d.xxh, d.ok
}
