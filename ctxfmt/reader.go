package ctxfmt

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// DefaultMaxSegmentSize is the cap on one decoded segment when
// ReaderOptions.MaxSegmentSize is zero: 1 GiB.
const DefaultMaxSegmentSize = 1 << 30

// MaxSegments is the most index entries a reader accepts (ErrTooLarge
// beyond it). The index is read and kept whole at open, and a sparse file
// can claim a large size at no cost on disk: this bounds what opening any
// file allocates (about 90 bytes an entry, some 12 MiB at the cap). A
// writer never needs as many: a 100 GiB transcript cut into the default
// 4 MiB chunks takes 25,600 segments.
const MaxSegments = 1 << 17

// ReaderOptions configure a Reader. Passphrase or Key is needed only to
// read segments of an encrypted file; the index is always readable.
type ReaderOptions struct {
	Passphrase []byte // for files encrypted with a passphrase
	Key        []byte // raw 32-byte key, for files encrypted with a key
	// MaxSegmentSize caps the decoded size of one segment (ErrTooLarge
	// beyond it). 0 = DefaultMaxSegmentSize.
	MaxSegmentSize int64
	// ExtensionTypes lists the extension segment types (0x8000–0xFFFF)
	// the caller understands; a required segment of any other
	// unregistered type makes the file unreadable (ErrUnsupported).
	ExtensionTypes []SegmentType
	// Keys, when set, is asked for the key derived from Passphrase
	// before Argon2id runs (see KeyCache).
	Keys *KeyCache
}

// SegmentInfo describes one segment as its index entry records it.
type SegmentInfo struct {
	Index     int          // position in the index, from 0
	Type      SegmentType  // what the segment holds
	Codec     Codec        // how it is compressed
	Flags     SegmentFlags // raw per-entry flags
	Offset    int64        // of the stored bytes, from the start of the file
	StoredLen int64        // bytes on disk (with the GCM tag if encrypted)
	RawLen    int64        // bytes after decoding
	Checksum  uint64       // xxhash64 of the stored bytes
	Required  bool         // FlagRequired
	Encrypted bool         // FlagEncrypted
	Known     bool         // type registered or listed in ExtensionTypes
}

// Reader reads a .ctx file. Opening reads only the header and the index
// (and the small crypto parameters segment of an encrypted file); each
// segment is read, checked and decoded on demand. A Reader is safe for
// concurrent use if its io.ReaderAt is.
type Reader struct {
	ra     io.ReaderAt
	hdr    Header
	hb     [HeaderSize]byte
	index  []byte // header + entries, as on disk
	ents   []entry
	info   []SegmentInfo
	maxSeg int64
	crypto *cryptoParams
	aead   cipher.AEAD
}

// dictionary returns the decoded payload of segment j as the dictionary
// of zstd-dict segment i: j must be another segment, neither crypto
// parameters nor itself zstd-dict, decoding to at most MaxDictLen bytes.
func (r *Reader) dictionary(i int, j uint64) ([]byte, error) {
	if j >= uint64(len(r.ents)) || int(j) == i || r.ents[j].codec == CodecZstdDict || r.ents[j].typ == TypeCryptoParams {
		return nil, fmt.Errorf("dictionary segment %d is not one a dictionary can come from", j)
	}
	if n := r.ents[j].rawLen; n > MaxDictLen {
		return nil, fmt.Errorf("dictionary segment %d decodes to %d bytes, over the %d a dictionary may hold", j, n, MaxDictLen)
	}
	d, err := r.ReadSegment(int(j))
	if err != nil {
		return nil, fmt.Errorf("dictionary segment %d: %w", j, err)
	}
	return d, nil
}

// NewReader opens a .ctx file of the given size. It checks the header, the
// index and the footer's trailing magic, and with an encrypted file and a
// passphrase or key, that the key is right (ErrWrongKey otherwise).
func NewReader(ra io.ReaderAt, size int64, opts ReaderOptions) (*Reader, error) {
	r := &Reader{ra: ra, maxSeg: opts.MaxSegmentSize}
	if r.maxSeg <= 0 {
		r.maxSeg = DefaultMaxSegmentSize
	}
	if size < 0 {
		return nil, errors.New("ctxfmt: negative size")
	}
	// Header.
	hb := r.hb[:min(size, HeaderSize)]
	if err := readFull(ra, hb, 0, "header"); err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(Magic[:], hb[:min(len(hb), 4)]) {
		return nil, ferr("header", ErrBadMagic, "first bytes are % x", hb[:min(len(hb), 4)])
	}
	if size < HeaderSize {
		return nil, ferr("header", ErrTruncated, "file is %d bytes, a header alone is %d", size, HeaderSize)
	}
	h := &r.hdr
	h.Version = le.Uint16(hb[4:])
	if h.Version != Version {
		return nil, ferr("header", ErrUnsupported, "format version %d (this reader reads version %d)", h.Version, Version)
	}
	h.Flags = le.Uint16(hb[6:])
	h.SegmentCount = le.Uint32(hb[8:])
	h.TotalSize = le.Uint64(hb[12:])
	h.Checksum = le.Uint64(hb[24:])
	if sum := xxhash.Sum64(hb[:24]); sum != h.Checksum {
		return nil, ferr("header", ErrChecksum, "bytes 0–23 hash to %016x, header says %016x", sum, h.Checksum)
	}
	if !bytes.Equal(hb[20:24], []byte{0, 0, 0, 0}) {
		return nil, ferr("header", ErrUnsupported, "reserved bytes 20–23 are % x", hb[20:24])
	}
	if unk := h.Flags & headerFlagsMustKnow &^ headerFlagsKnown; unk != 0 {
		return nil, ferr("header", ErrUnsupported, "unknown must-understand flags 0x%04x", unk)
	}
	if uint64(size) < h.TotalSize {
		return nil, ferr("file", ErrTruncated, "file is %d bytes, header says %d", size, h.TotalSize)
	}
	if uint64(size) > h.TotalSize {
		return nil, ferr("file", ErrCorrupt, "%d bytes after the end the header gives (%d)", uint64(size)-h.TotalSize, h.TotalSize)
	}
	n := uint64(h.SegmentCount)
	if h.TotalSize > math.MaxInt64 || dataStart(n)+FooterSize > h.TotalSize {
		return nil, ferr("header", ErrCorrupt, "%d segments cannot fit in %d bytes", n, h.TotalSize)
	}

	if n > MaxSegments {
		return nil, ferr("header", ErrTooLarge, "%d segments, a reader accepts up to %d", n, MaxSegments)
	}

	// Index.
	r.index = make([]byte, HeaderSize+n*EntrySize+IndexSumSize)
	copy(r.index, hb)
	if err := readFull(ra, r.index[HeaderSize:], HeaderSize, "index"); err != nil {
		return nil, err
	}
	isum := HeaderSize + n*EntrySize
	want := le.Uint64(r.index[isum:])
	if sum := xxhash.Sum64(r.index[:isum]); sum != want {
		return nil, ferr("index", ErrChecksum, "header and entries hash to %016x, index says %016x", sum, want)
	}
	r.index = r.index[:isum]
	footerAt := h.TotalSize - FooterSize
	known := func(t SegmentType) bool {
		return t.Registered() || slices.Contains(opts.ExtensionTypes, t)
	}
	r.ents = make([]entry, n)
	r.info = make([]SegmentInfo, n)
	off := dataStart(n)
	for i := range r.ents {
		e := unmarshalEntry(r.index[HeaderSize+uint64(i)*EntrySize:])
		if err := checkEntry(i, &e, off, footerAt, h.Encrypted()); err != nil {
			return nil, err
		}
		off += e.storedLen
		r.ents[i] = e
		r.info[i] = SegmentInfo{
			Index: i, Type: e.typ, Codec: e.codec, Flags: e.flags,
			Offset: int64(e.offset), StoredLen: int64(e.storedLen), RawLen: int64(e.rawLen),
			Checksum: e.checksum, Required: e.flags&FlagRequired != 0,
			Encrypted: e.flags&FlagEncrypted != 0, Known: known(e.typ),
		}
		if e.flags&FlagRequired != 0 && (!known(e.typ) || !e.codec.Known()) {
			return nil, ferr(entryRegion(i), ErrUnsupported, "required segment of type %s, codec %s, which this reader does not understand", e.typ, e.codec)
		}
	}
	if off != footerAt {
		return nil, ferr("footer", ErrCorrupt, "segments end at %d, footer starts at %d", off, footerAt)
	}

	// Footer magic.
	var foot [FooterSize]byte
	if err := readFull(ra, foot[:], int64(footerAt), "footer"); err != nil {
		return nil, err
	}
	if !bytes.Equal(foot[8:], TrailerMagic[:]) {
		return nil, ferr("footer", ErrBadMagic, "trailing magic is % x", foot[8:])
	}

	// Crypto parameters.
	if h.Encrypted() {
		if n == 0 {
			return nil, ferr("header", ErrCorrupt, "encrypted file without a crypto-params segment")
		}
		b, err := r.storedPlain(0)
		if err != nil {
			return nil, err
		}
		cp, err := parseCryptoParams(b)
		if err != nil {
			return nil, err
		}
		r.crypto = cp
		if opts.Passphrase != nil || opts.Key != nil {
			if r.aead, err = cp.openAEAD(opts.Passphrase, opts.Key, opts.Keys); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// checkEntry validates one entry's structure; off is where it must start.
func checkEntry(i int, e *entry, off, footerAt uint64, encrypted bool) error {
	// The region is named only when the entry is wrong: NewReader checks
	// every entry of the index on each open.
	fail := func(kind error, format string, args ...any) error {
		return ferr(entryRegion(i), kind, format, args...)
	}
	switch {
	case e.reserved != [3]byte{}:
		return fail(ErrUnsupported, "reserved bytes are % x", e.reserved[:])
	case e.flags&segFlagsMustKnow&^segFlagsKnown != 0:
		return fail(ErrUnsupported, "unknown must-understand flags 0x%04x", uint16(e.flags&segFlagsMustKnow&^segFlagsKnown))
	case e.typ == 0:
		return fail(ErrCorrupt, "segment type 0 is invalid")
	case e.offset != off:
		return fail(ErrCorrupt, "offset %d, the previous segment ends at %d", e.offset, off)
	case e.storedLen > footerAt-off:
		return fail(ErrCorrupt, "stored length %d runs past the footer at %d", e.storedLen, footerAt)
	case e.rawLen > math.MaxInt64:
		return fail(ErrCorrupt, "raw length %d", e.rawLen)
	}
	enc := e.flags&FlagEncrypted != 0
	isCrypto := e.typ == TypeCryptoParams
	switch {
	case encrypted && i == 0 && (!isCrypto || enc || e.codec != CodecNone):
		return fail(ErrCorrupt, "an encrypted file must start with a plain, uncompressed crypto-params segment")
	case encrypted && i > 0 && (!enc || isCrypto):
		return fail(ErrCorrupt, "every segment after crypto-params in an encrypted file must be encrypted (and only one crypto-params)")
	case !encrypted && (enc || isCrypto):
		return fail(ErrCorrupt, "encrypted segment or crypto-params in an unencrypted file")
	case enc && e.storedLen < TagSize:
		return fail(ErrCorrupt, "encrypted stored length %d is shorter than the tag", e.storedLen)
	}
	if e.codec == CodecNone {
		plain := e.storedLen
		if enc {
			plain -= TagSize
		}
		if e.rawLen != plain {
			return fail(ErrCorrupt, "uncompressed segment: raw length %d, stored %d", e.rawLen, plain)
		}
	}
	return nil
}

func readFull(ra io.ReaderAt, b []byte, off int64, region string) error {
	n, err := ra.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	return shortRead(region, n, len(b), off, err)
}

// shortRead is readFull's error for a read of n of want bytes at off.
func shortRead(region string, n, want int, off int64, err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ferr(region, ErrTruncated, "read %d of %d bytes at offset %d", n, want, off)
	}
	return fmt.Errorf("ctxfmt: %s: reading %d bytes at offset %d: %w", region, want, off, err)
}

// Header returns the decoded file header.
func (r *Reader) Header() Header { return r.hdr }

// Segments returns one SegmentInfo per index entry, in file order. The
// slice is a copy.
func (r *Reader) Segments() []SegmentInfo { return slices.Clone(r.info) }

// NumSegments is the number of index entries.
func (r *Reader) NumSegments() int { return len(r.info) }

// Find returns the indexes of every segment of type t, in file order.
func (r *Reader) Find(t SegmentType) []int {
	var out []int
	for i, e := range r.ents {
		if e.typ == t {
			out = append(out, i)
		}
	}
	return out
}

// Encrypted reports whether the file is encrypted.
func (r *Reader) Encrypted() bool { return r.hdr.Encrypted() }

// CryptoInfo describes the key derivation of an encrypted file; ok is false
// for a plain file.
func (r *Reader) CryptoInfo() (info CryptoInfo, ok bool) {
	if r.crypto == nil {
		return CryptoInfo{}, false
	}
	return r.crypto.info(), true
}

// ReadSegment reads, checks and decodes segment i: the stored bytes must
// match their checksum, authenticate (if encrypted) and decode to exactly
// the raw length the index gives. Each call allocates a fresh slice.
func (r *Reader) ReadSegment(i int) ([]byte, error) {
	if i < 0 || i >= len(r.ents) {
		return nil, fmt.Errorf("ctxfmt: no segment %d (file has %d)", i, len(r.ents))
	}
	e := r.ents[i]
	if !e.codec.Known() {
		return nil, ferr(segRegion(i, e.typ), ErrUnsupported, "codec %s", e.codec)
	}
	if e.rawLen > uint64(r.maxSeg) {
		return nil, ferr(segRegion(i, e.typ), ErrTooLarge, "decodes to %d bytes, the cap is %d", e.rawLen, r.maxSeg)
	}
	comp, err := r.storedPlain(i)
	if err != nil {
		return nil, err
	}
	var out []byte
	if e.codec == CodecZstdDict {
		out, err = decompressDict(comp, int(e.rawLen), func(j uint64) ([]byte, error) { return r.dictionary(i, j) })
	} else {
		out, err = decompress(e.codec, comp, int(e.rawLen))
	}
	if err != nil {
		return nil, ferr(segRegion(i, e.typ), ErrCorrupt, "%s data: %v", e.codec, err)
	}
	return out, nil
}

// storedPlain reads segment i's stored bytes, checks the checksum and
// decrypts them if the segment is encrypted: the result is the
// (compressed) plaintext.
func (r *Reader) storedPlain(i int) ([]byte, error) {
	e := r.ents[i]
	// The region is named only on failure (every read would format it).
	reg := func() string { return segRegion(i, e.typ) }
	buf := make([]byte, e.storedLen)
	if n, err := r.ra.ReadAt(buf, int64(e.offset)); n != len(buf) {
		return nil, shortRead(reg(), n, len(buf), int64(e.offset), err)
	}
	if sum := xxhash.Sum64(buf); sum != e.checksum {
		return nil, ferr(reg(), ErrChecksum, "stored bytes hash to %016x, index says %016x", sum, e.checksum)
	}
	if e.flags&FlagEncrypted == 0 {
		return buf, nil
	}
	if r.aead == nil {
		return nil, &FormatError{Region: reg(), Err: ErrKeyRequired}
	}
	eb := r.index[HeaderSize+uint64(i)*EntrySize:][:EntrySize]
	plain, err := r.aead.Open(buf[:0], segmentNonce(i), buf, segmentAAD(r.hb[:], eb, i))
	if err != nil {
		return nil, ferr(reg(), ErrAuth, "AES-GCM tag does not match")
	}
	return plain, nil
}

// ReadCloser is a Reader over an open file; Close closes the file.
type ReadCloser struct {
	*Reader
	f *os.File
}

// Close closes the underlying file.
func (rc *ReadCloser) Close() error { return rc.f.Close() }

// OpenFile opens the named .ctx file.
func OpenFile(name string, opts ReaderOptions) (*ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewReader(f, fi.Size(), opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &ReadCloser{Reader: r, f: f}, nil
}
