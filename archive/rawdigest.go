package archive

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// A RawDigest computes, while a raw transcript file is being read, the
// digests an Encoder would otherwise compute once the file is redacted
// and cut: its SHA-256 (the raw manifest's) and its xxhash64 (a chunk's
// OrigHash). A reader that reads a file piece by piece gives it each
// piece as soon as it is read (Add) and ends it with the whole file (End),
// so that the digests are made on another core while the read goes on;
// it then sets it as the RawFile's Digest.
//
// An Encoder uses a RawDigest only for a file that is stored as it was
// read (redaction changed none of its lines) in one chunk (no larger than
// the chunk size), and only when it covers the RawFile's Data exactly (the
// same bytes, given in order, and End called with that very slice);
// otherwise it hashes the stored bytes itself, as it does for a RawFile
// without a Digest. The file's bytes must not change after they are
// given to Add.
type RawDigest struct {
	pieces chan []byte
	done   chan struct{}
	base   unsafe.Pointer // &data[0] of End's data
	n      int            // len(data) of End's data
	// Set by run before done is closed:
	ok  bool // the pieces were n bytes
	sha string
	mid []byte // the SHA-256 state after the whole file (a one-chunk file's Mid)
	xxh uint64
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
	d := &RawDigest{pieces: make(chan []byte, rawDigestPieces), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *RawDigest) run() {
	defer close(d.done)
	sh, xh := sha256.New(), xxhash.New()
	total := 0
	for p := range d.pieces {
		sh.Write(p)
		_, _ = xh.Write(p)
		total += len(p)
	}
	if total != d.n {
		return
	}
	if bm, ok := sh.(encoding.BinaryMarshaler); ok {
		d.mid, _ = bm.MarshalBinary()
	}
	d.sha = hex.EncodeToString(sh.Sum(nil))
	d.xxh = xh.Sum64()
	d.ok = true
}

// Add gives the digest the next bytes of the file, those following the
// bytes of the earlier calls. They must not change afterwards.
func (d *RawDigest) Add(p []byte) {
	if len(p) > 0 {
		d.pieces <- p
	}
}

// End ends the digest: data is the whole file, the bytes given to Add in
// order (nil when the read failed: the digest then covers nothing). It
// must be called once, after the last Add.
func (d *RawDigest) End(data []byte) {
	d.n = len(data)
	if len(data) > 0 {
		d.base = unsafe.Pointer(unsafe.SliceData(data))
	}
	close(d.pieces)
}

// of returns the digests of data (waiting for them) when d covers it.
func (d *RawDigest) of(data []byte) (sha string, mid []byte, xxh uint64, ok bool) {
	if d == nil || len(data) == 0 || len(data) != d.n || unsafe.Pointer(unsafe.SliceData(data)) != d.base {
		return "", nil, 0, false
	}
	<-d.done
	return d.sha, d.mid, d.xxh, d.ok
}
