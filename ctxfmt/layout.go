package ctxfmt

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Fixed sizes and constants of format version 1 (docs/FORMAT.md).
const (
	Version = 1 // the format version this package writes and reads

	HeaderSize     = 32 // bytes
	EntrySize      = 40 // bytes per index entry
	IndexSumSize   = 8  // the index checksum after the entries
	FooterSize     = 16 // footer checksum + trailing magic
	TagSize        = 16 // AES-GCM tag appended to encrypted segments
	cryptoSegSize  = 80 // crypto parameters segment, v1
	minFileSize    = HeaderSize + IndexSumSize + FooterSize
	maxSegmentsCap = 1<<32 - 1
)

// Magic is the first four bytes of every .ctx file: "Ben" and the byte 10.
var Magic = [4]byte{'B', 'e', 'n', 0x0A}

// TrailerMagic is the last eight bytes of every .ctx file: "Ben\nend\n".
var TrailerMagic = [8]byte{'B', 'e', 'n', 0x0A, 'e', 'n', 'd', 0x0A}

var le = binary.LittleEndian

// Header is the decoded 32-byte file header.
type Header struct {
	Version      uint16 // format version (1)
	Flags        uint16 // header flags; bit 0 = encrypted
	SegmentCount uint32 // number of index entries
	TotalSize    uint64 // size of the whole file in bytes
	Checksum     uint64 // xxhash64 of header bytes 0–23
}

// Encrypted reports whether the header's encrypted flag is set.
func (h Header) Encrypted() bool { return h.Flags&HeaderEncrypted != 0 }

func (h *Header) marshal() [HeaderSize]byte {
	var b [HeaderSize]byte
	copy(b[0:4], Magic[:])
	le.PutUint16(b[4:], h.Version)
	le.PutUint16(b[6:], h.Flags)
	le.PutUint32(b[8:], h.SegmentCount)
	le.PutUint64(b[12:], h.TotalSize)
	// b[20:24] reserved, zero
	h.Checksum = xxhash.Sum64(b[:24])
	le.PutUint64(b[24:], h.Checksum)
	return b
}

// entry is one decoded index entry.
type entry struct {
	offset    uint64
	storedLen uint64
	rawLen    uint64
	checksum  uint64
	typ       SegmentType
	flags     SegmentFlags
	codec     Codec
	reserved  [3]byte
}

func (e *entry) marshal(b []byte) {
	_ = b[EntrySize-1]
	le.PutUint64(b[0:], e.offset)
	le.PutUint64(b[8:], e.storedLen)
	le.PutUint64(b[16:], e.rawLen)
	le.PutUint64(b[24:], e.checksum)
	le.PutUint16(b[32:], uint16(e.typ))
	le.PutUint16(b[34:], uint16(e.flags))
	b[36] = byte(e.codec)
	copy(b[37:40], e.reserved[:])
}

func unmarshalEntry(b []byte) entry {
	_ = b[EntrySize-1]
	var e entry
	e.offset = le.Uint64(b[0:])
	e.storedLen = le.Uint64(b[8:])
	e.rawLen = le.Uint64(b[16:])
	e.checksum = le.Uint64(b[24:])
	e.typ = SegmentType(le.Uint16(b[32:]))
	e.flags = SegmentFlags(le.Uint16(b[34:]))
	e.codec = Codec(b[36])
	copy(e.reserved[:], b[37:40])
	return e
}

// dataStart is the offset of the first segment in a file of n segments.
func dataStart(n uint64) uint64 { return HeaderSize + n*EntrySize + IndexSumSize }

// segmentAAD builds the associated data of segment i: header bytes 0–23,
// the entry's bytes 0–23 (offset, stored and raw length) and 32–39 (type,
// flags, codec, reserved), and i as uint32. The entry checksum (bytes
// 24–31) is excluded because it is computed over the ciphertext.
func segmentAAD(hdr []byte, ent []byte, i int) []byte {
	aad := make([]byte, 0, 60)
	aad = append(aad, hdr[:24]...)
	aad = append(aad, ent[:24]...)
	aad = append(aad, ent[32:40]...)
	return le.AppendUint32(aad, uint32(i))
}

// segmentNonce is the 12-byte GCM nonce of segment i: i as uint64 followed
// by four zero bytes. Unique per segment under the file's own subkey.
func segmentNonce(i int) []byte {
	n := make([]byte, 12)
	le.PutUint64(n, uint64(i))
	return n
}
