package ctxfmt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SegmentType says what a segment holds. The numeric values are part of the
// file format (see docs/FORMAT.md, "Segment types"); names are what the CLI
// and diagnostics use.
type SegmentType uint16

// The segment type registry of format version 1. Values 1–12 are assigned;
// 13–0x7FFF are reserved for future registry additions; 0x8000–0xFFFF are
// free for extensions. 0 is never valid.
const (
	TypeMetadata        SegmentType = 1
	TypeConversation    SegmentType = 2
	TypeFileRegistry    SegmentType = 3
	TypeToolHistory     SegmentType = 4
	TypeTaskState       SegmentType = 5
	TypePreferences     SegmentType = 6
	TypeSummaries       SegmentType = 7
	TypeCompactions     SegmentType = 8
	TypeRawTranscript   SegmentType = 9
	TypeFileContents    SegmentType = 10
	TypeRedactionReport SegmentType = 11
	TypeCryptoParams    SegmentType = 12

	// ExtensionTypeMin is the first segment type value free for
	// extensions; every value from it to 0xFFFF is an extension type.
	ExtensionTypeMin SegmentType = 0x8000
)

var typeNames = [...]string{
	TypeMetadata:        "metadata",
	TypeConversation:    "conversation",
	TypeFileRegistry:    "file-registry",
	TypeToolHistory:     "tool-history",
	TypeTaskState:       "task-state",
	TypePreferences:     "preferences",
	TypeSummaries:       "summaries",
	TypeCompactions:     "compactions",
	TypeRawTranscript:   "raw-transcript",
	TypeFileContents:    "file-contents",
	TypeRedactionReport: "redaction-report",
	TypeCryptoParams:    "crypto-params",
}

// Registered reports whether t is one of the registry's assigned types.
func (t SegmentType) Registered() bool {
	return t != 0 && int(t) < len(typeNames)
}

// String returns the registry name of t, or "type-0xNNNN" for an
// unregistered value (which ParseSegmentType accepts back).
func (t SegmentType) String() string {
	if t.Registered() {
		return typeNames[t]
	}
	return fmt.Sprintf("type-0x%04x", uint16(t))
}

// ParseSegmentType parses a registry name ("conversation"), the form
// String gives unregistered values ("type-0x8001"), or a bare number
// (decimal or 0x-prefixed hex). Zero is never a valid type.
func ParseSegmentType(name string) (SegmentType, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	for i, n := range typeNames {
		if n != "" && n == s {
			return SegmentType(i), nil
		}
	}
	num := strings.TrimPrefix(s, "type-")
	v, err := strconv.ParseUint(num, 0, 16)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("ctxfmt: unknown segment type %q (known: %s, or a number 1–65535)", name, strings.Join(typeNames[1:], ", "))
	}
	return SegmentType(v), nil
}

// Types returns every registered segment type in numeric order.
func Types() []SegmentType {
	out := make([]SegmentType, 0, len(typeNames)-1)
	for i := 1; i < len(typeNames); i++ {
		out = append(out, SegmentType(i))
	}
	return out
}

// Codec is how a segment's bytes are compressed. The values are part of
// the file format.
type Codec uint8

const (
	CodecNone Codec = 0 // stored as is
	CodecLZ4  Codec = 1 // one LZ4 block (no frame)
	CodecZstd Codec = 2 // one or more Zstandard frames (RFC 8878)
	// CodecZstdDict is one Zstandard frame compressed against the decoded
	// payload of another segment of the same file, used as a raw-content
	// dictionary (as `zstd --patch-from`): the stored plaintext is that
	// segment's index (uvarint) followed by the frame. The dictionary
	// segment is never itself of this codec. Pre-release builds wrote it
	// at LevelMax; this package reads it and never writes it.
	CodecZstdDict Codec = 3
)

// MaxDictLen is the largest payload a CodecZstdDict segment's dictionary
// may decode to. Readers refuse a larger one; writers compress without
// the dictionary instead. It bounds what reading one segment may cost.
const MaxDictLen = 1 << 20

// Known reports whether this implementation can decode c.
func (c Codec) Known() bool { return c <= CodecZstdDict }

// writable reports whether a Writer can write c (not CodecZstdDict).
func (c Codec) writable() bool { return c <= CodecZstd }

var codecNames = [...]string{CodecNone: "none", CodecLZ4: "lz4", CodecZstd: "zstd", CodecZstdDict: "zstd-dict"}

// String returns "none", "lz4", "zstd", "zstd-dict" or "codec-N".
func (c Codec) String() string {
	if c.Known() {
		return codecNames[c]
	}
	return fmt.Sprintf("codec-%d", uint8(c))
}

// ParseCodec parses "none", "lz4" or "zstd".
func ParseCodec(s string) (Codec, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none", "raw", "store":
		return CodecNone, nil
	case "lz4":
		return CodecLZ4, nil
	case "zstd", "zstandard":
		return CodecZstd, nil
	}
	return 0, fmt.Errorf("ctxfmt: unknown codec %q (want none, lz4 or zstd)", s)
}

// Level is a compression effort. It is a writer setting only: it is not
// stored in the file and a reader never needs it. The zero value means
// LevelDefault.
type Level uint8

const (
	LevelFastest Level = 1 // zstd: klauspost SpeedFastest; lz4: fast block compressor
	// LevelDefault: zstd: klauspost SpeedDefault (≈ `zstd -3`); lz4: fast
	// block compressor.
	LevelDefault Level = 2
	LevelBetter  Level = 3 // zstd: SpeedBetterCompression; lz4: HC, depth 4 (lz4.Level4)
	LevelBest    Level = 4 // zstd: SpeedBestCompression; lz4: HC, depth 9 (lz4.Level9)
	// LevelMax: a segment is compressed as at LevelBest (the same bytes).
	// Meant for archives written once and kept.
	LevelMax Level = 5
)

func (l Level) norm() Level {
	if l == 0 || l > LevelMax {
		return LevelDefault
	}
	return l
}

var levelNames = [...]string{LevelFastest: "fastest", LevelDefault: "default", LevelBetter: "better", LevelBest: "best", LevelMax: "max"}

// String returns "fastest", "default", "better", "best" or "max".
func (l Level) String() string { return levelNames[l.norm()] }

// ParseLevel parses "fastest" (or "fast"), "default" (or ""), "better",
// "best", "max", or a zstd level number 1–22 mapped with LevelFromZstd.
func ParseLevel(s string) (Level, error) {
	switch name := strings.ToLower(strings.TrimSpace(s)); name {
	case "fast":
		return LevelFastest, nil
	case "":
		return LevelDefault, nil
	default:
		if i := slices.Index(levelNames[:], name); i > 0 {
			return Level(i), nil
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 22 {
		return 0, fmt.Errorf("ctxfmt: unknown level %q (want fastest, default, better, best, max or 1–22)", s)
	}
	return LevelFromZstd(n), nil
}

// LevelFromZstd maps a zstd command-line level (the PRD's
// compression_level, 1–22) onto the five levels: 1–2 → fastest,
// 3–5 → default, 6–9 → better, 10–15 → best (the bands of klauspost's
// zstd.EncoderLevelFromZstd), 16–22 → max.
// Values below 1 give fastest and values above 22 give max.
func LevelFromZstd(n int) Level {
	switch {
	case n < 3:
		return LevelFastest
	case n < 6:
		return LevelDefault
	case n < 10:
		return LevelBetter
	case n < 16:
		return LevelBest
	}
	return LevelMax
}

// SegmentFlags are the per-segment flags of an index entry. Bits 0–7 are
// must-understand (a reader refuses a file with an unknown one set); bits
// 8–15 are ignorable.
type SegmentFlags uint16

const (
	// FlagRequired marks a segment a reader must understand (type and
	// codec) to use the file at all. An unknown segment without it is
	// skipped; one with it makes the file unreadable (ErrUnsupported).
	FlagRequired SegmentFlags = 1 << 0
	// FlagEncrypted marks a segment whose stored bytes are AES-256-GCM
	// ciphertext followed by the 16-byte tag.
	FlagEncrypted SegmentFlags = 1 << 1

	segFlagsKnown       = FlagRequired | FlagEncrypted
	segFlagsMustKnow    = SegmentFlags(0x00FF)
	headerFlagsKnown    = HeaderEncrypted
	headerFlagsMustKnow = uint16(0x00FF)
)

// HeaderEncrypted is the header flag of an encrypted file (bit 0).
const HeaderEncrypted uint16 = 1 << 0

// String lists the set flags, e.g. "required|encrypted"; "-" for none.
func (f SegmentFlags) String() string {
	var parts []string
	if f&FlagRequired != 0 {
		parts = append(parts, "required")
	}
	if f&FlagEncrypted != 0 {
		parts = append(parts, "encrypted")
	}
	if rest := f &^ segFlagsKnown; rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%04x", uint16(rest)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "|")
}
