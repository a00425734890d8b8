package ctxfmt

import (
	"errors"
	"io"
	"os"

	"github.com/cespare/xxhash/v2"
)

// VerifyOptions choose how much Verify checks.
type VerifyOptions struct {
	// Deep also reads every segment: checksum, authentication (encrypted
	// files) and decoding to the recorded raw length.
	Deep bool
	// Passphrase or Key opens an encrypted file; without one, a deep
	// verify of an encrypted file checks every checksum and then returns
	// ErrKeyRequired.
	Passphrase []byte
	Key        []byte
	// MaxSegmentSize and Keys as in ReaderOptions.
	MaxSegmentSize int64
	Keys           *KeyCache
}

// Verify checks a whole file. The cheap check covers the header, the index,
// the layout and the footer checksum over every byte; Deep adds every
// segment. The first problem found is returned as a *FormatError naming
// its region; segment problems are reported before the footer's, so a
// damaged segment is named rather than only the footer.
func Verify(ra io.ReaderAt, size int64, opts VerifyOptions) error {
	r, err := NewReader(ra, size, ReaderOptions{Passphrase: opts.Passphrase, Key: opts.Key, MaxSegmentSize: opts.MaxSegmentSize, Keys: opts.Keys})
	if err != nil {
		return err
	}
	if r.hdr.Encrypted() && len(r.ents) < 2 {
		// The header (segment count, total size) is authenticated only as
		// part of each encrypted segment: with none, nothing vouches that
		// the file was not cut after its crypto parameters.
		return ferr("file", ErrTruncated, "an encrypted file with no segment after its crypto parameters: nothing authenticates it (cut after the key parameters?)")
	}
	needKey := false
	if opts.Deep {
		for i, e := range r.ents {
			switch {
			case e.flags&FlagEncrypted != 0 && r.aead == nil:
				// Checksum only: storedPlain stops at the missing key.
				needKey = true
				if _, err := r.storedPlain(i); err != nil && !errors.Is(err, ErrKeyRequired) {
					return err
				}
			case !e.codec.Known():
				// Optional segment in a codec this reader cannot decode
				// (required ones were refused at open): checksum and
				// authentication only.
				if _, err := r.storedPlain(i); err != nil {
					return err
				}
			default:
				if err := r.checkSegment(i); err != nil {
					return err
				}
			}
		}
	}
	if err := r.checkFooter(); err != nil {
		return err
	}
	if needKey {
		return &FormatError{Region: "file", Err: ErrKeyRequired, Detail: "checksums are sound; authentication and decoding need the passphrase or key"}
	}
	return nil
}

// VerifyFile runs Verify on the named file.
func VerifyFile(name string, opts VerifyOptions) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return Verify(f, fi.Size(), opts)
}

// checkFooter hashes every byte before the footer and compares.
func (r *Reader) checkFooter() error {
	footerAt := int64(r.hdr.TotalSize - FooterSize)
	d := xxhash.New()
	if err := copySection(d, r.ra, 0, footerAt, "footer"); err != nil {
		return err
	}
	var foot [8]byte
	if err := readFull(r.ra, foot[:], footerAt, "footer"); err != nil {
		return err
	}
	if sum, want := d.Sum64(), le.Uint64(foot[:]); sum != want {
		return ferr("footer", ErrChecksum, "bytes 0–%d hash to %016x, footer says %016x", footerAt-1, sum, want)
	}
	return nil
}

func copySection(w io.Writer, ra io.ReaderAt, off, n int64, region string) error {
	buf := make([]byte, min(n, 1<<20))
	for n > 0 {
		b := buf[:min(n, int64(len(buf)))]
		if err := readFull(ra, b, off, region); err != nil {
			return err
		}
		w.Write(b)
		off += int64(len(b))
		n -= int64(len(b))
	}
	return nil
}

// checkSegment is ReadSegment without keeping the output: a Zstandard
// segment (the common codec, and the one that can expand most) is decoded
// into nothing, so a deep verify costs a decoder window per segment
// rather than the segment's decoded size.
func (r *Reader) checkSegment(i int) error {
	e := r.ents[i]
	if e.codec != CodecZstd || e.rawLen > uint64(r.maxSeg) {
		_, err := r.ReadSegment(i)
		return err
	}
	comp, err := r.storedPlain(i)
	if err != nil {
		return err
	}
	if err := zstdCheck(comp, int(e.rawLen)); err != nil {
		return ferr(segRegion(i, e.typ), ErrCorrupt, "%s data: %v", e.codec, err)
	}
	return nil
}
