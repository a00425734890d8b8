package archive

import (
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/vmihailenco/msgpack/v5"
)

// The file registry's stored form (docs/FORMAT.md, "file-registry"), in
// the compact positional form of the recall (recall_codec.go):
//
//	[fileRegistryForm, base, [[Path, Hash, AccessCount, Reads, Edits,
//	 Writes, LastAccess], …]]
//
// where Hash is 32 bytes (msgpack bin) when it is a lowercase hex SHA-256,
// as the importers write it, and a string otherwise, and LastAccess is a
// time as in the recall (milliseconds after base, the latest access).
// The map form pre-release builds wrote (an array of maps keyed by
// FileRecord's msgpack tags) is refused with ErrSchema.
const fileRegistryForm = 2

// fileRegistry is the file registry segment's payload.
type fileRegistry []FileRecord

type (
	registryWire struct {
		Form  int64
		Base  int64
		Files []fileWire
	}
	fileWire struct {
		Path                              string
		Hash                              wireHash
		AccessCount, Reads, Edits, Writes int
		LastAccess                        wireTime
	}
	// wireHash is a hash as the registry stores it: a lowercase hex
	// SHA-256 as its 32 bytes, anything else as a string.
	wireHash string
)

// MarshalMsgpack encodes the registry in the compact form.
func (fr fileRegistry) MarshalMsgpack() ([]byte, error) {
	var base timeBase
	for _, f := range fr {
		if t := f.LastAccess; !t.IsZero() && msTime(t) && t.UnixMilli() > int64(base) {
			base = timeBase(t.UnixMilli())
		}
	}
	w := registryWire{Form: fileRegistryForm, Base: int64(base), Files: make([]fileWire, len(fr))}
	for i := range fr {
		_ = base.copyValue(reflect.ValueOf(&w.Files[i]).Elem(), reflect.ValueOf(fr[i])) // no error putting times
	}
	return marshalArrays(&w)
}

// UnmarshalMsgpack decodes the compact form of the registry.
func (fr *fileRegistry) UnmarshalMsgpack(b []byte) error {
	var w registryWire
	if err := unmarshalCompact(b, fileRegistryForm, "file registry", &w); err != nil {
		return err
	}
	var out fileRegistry
	if err := timeBase(w.Base).copyValue(reflect.ValueOf(&out).Elem(), reflect.ValueOf(w.Files)); err != nil {
		return err
	}
	*fr = out
	return nil
}

// mapForm reports whether b is the map form of a payload whose compact
// form is an array starting with its form number: an array that is
// empty or whose first element is a map, as pre-release builds wrote
// the recall and the file registry.
func mapForm(b []byte) bool {
	first := 1
	if len(b) > 0 {
		switch b[0] {
		case 0xdc:
			first = 3
		case 0xdd:
			first = 5
		}
	}
	isArray := len(b) > 0 && (b[0]&0xf0 == 0x90 || b[0] == 0xdc || b[0] == 0xdd)
	if !isArray {
		return len(b) > 0 && (b[0]&0xf0 == 0x80 || b[0] == 0xde || b[0] == 0xdf)
	}
	if first >= len(b) {
		return len(b) == 1 && b[0] == 0x90 // the map form's empty list
	}
	c := b[first]
	return c&0xf0 == 0x80 || c == 0xde || c == 0xdf
}

// sha256Hex returns the 32 bytes of a lowercase hex SHA-256 (exactly what
// hex.EncodeToString gives back).
func sha256Hex(s string) ([]byte, bool) {
	if len(s) != 64 {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil && hex.EncodeToString(b) == s
}

// EncodeMsgpack writes a SHA-256 as bin, anything else as a string.
func (h wireHash) EncodeMsgpack(e *msgpack.Encoder) error {
	if b, ok := sha256Hex(string(h)); ok {
		return e.EncodeBytes(b)
	}
	return e.EncodeString(string(h))
}

// DecodeMsgpack reads what EncodeMsgpack writes (a bin of 32 bytes only).
func (h *wireHash) DecodeMsgpack(d *msgpack.Decoder) error {
	c, err := d.PeekCode()
	if err != nil {
		return err
	}
	if c == 0xc4 || c == 0xc5 || c == 0xc6 {
		b, err := d.DecodeBytes()
		if err != nil {
			return err
		}
		if len(b) != 32 {
			return fmt.Errorf("%w: a hash of %d bytes", errCompactForm, len(b))
		}
		*h = wireHash(hex.EncodeToString(b))
		return nil
	}
	s, err := d.DecodeString()
	*h = wireHash(s)
	return err
}
