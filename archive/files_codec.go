package archive

import (
	"encoding/hex"
	"fmt"
	"unsafe"
)

// The file registry's stored form. Archives of earlier versions hold it as
// a msgpack array of maps keyed by field names (decoded by reflection).
// Since then it is written in the compact positional form of the recall
// (recall_codec.go):
//
//	[fileRegistryForm, base, [[Path, Hash, AccessCount, Reads, Edits,
//	 Writes, LastAccess], …]]
//
// where Hash is 32 bytes (msgpack bin) when it is a lowercase hex SHA-256,
// as the importers write it, and a string otherwise, and LastAccess is a
// time as in the recall (milliseconds after base, the latest access).
// Readers ignore elements after the ones they know.
const fileRegistryForm = 2

// fileRegistry is the file registry segment's payload.
type fileRegistry []FileRecord

// MarshalMsgpack encodes the registry in the compact form.
func (fr fileRegistry) MarshalMsgpack() ([]byte, error) {
	e := mpWriter{b: make([]byte, 0, 64+96*len(fr))}
	for _, f := range fr {
		if t := f.LastAccess; !t.IsZero() && msTime(t) && t.UnixMilli() > e.base {
			e.base = t.UnixMilli()
		}
	}
	e.array(3)
	e.int(fileRegistryForm)
	e.int(e.base)
	e.array(len(fr))
	for _, f := range fr {
		e.array(7)
		e.str(f.Path)
		if h, ok := sha256Hex(f.Hash); ok {
			e.b = append(e.b, 0xc4, byte(len(h)))
			e.b = append(e.b, h...)
		} else {
			e.str(f.Hash)
		}
		e.int(int64(f.AccessCount))
		e.int(int64(f.Reads))
		e.int(int64(f.Edits))
		e.int(int64(f.Writes))
		e.time(f.LastAccess)
	}
	return e.b, nil
}

// sha256Hex returns the 32 bytes of a lowercase hex SHA-256 (exactly what
// hex.EncodeToString gives back).
func sha256Hex(s string) ([]byte, bool) {
	if len(s) != 64 {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return nil, false
		}
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// UnmarshalMsgpack decodes either form of the registry.
func (fr *fileRegistry) UnmarshalMsgpack(b []byte) error {
	if len(b) < 2 || !(b[0]&0xf0 == 0x90 || b[0] == 0xdc || b[0] == 0xdd) {
		return fr.mapForm(b)
	}
	// The compact form's first element is the form number; the map form's
	// is a map (or the array is empty).
	first := 1
	switch b[0] {
	case 0xdc:
		first = 3
	case 0xdd:
		first = 5
	}
	if first >= len(b) || b[first] >= 0x80 {
		return fr.mapForm(b)
	}
	d := mpReader{b: b, s: string(b)}
	top := d.array(3)
	if form := d.int64(); form != fileRegistryForm && d.err == nil {
		return fmt.Errorf("%w: compact file registry form %d (this build reads %d)", ErrSchema, form, fileRegistryForm)
	}
	d.base = d.int64()
	n := d.array(0)
	if n > (len(d.b)-d.i)/8 || !d.alloc(n, unsafe.Sizeof(FileRecord{})) { // a record: an array of 7
		d.fail("more file records than bytes")
		return d.err
	}
	out := make(fileRegistry, 0, n)
	for k := 0; k < n && d.err == nil; k++ {
		m := d.array(7)
		f := FileRecord{Path: d.str()}
		if d.need(1) && d.b[d.i] == 0xc4 {
			if d.need(2) && d.b[d.i+1] == 32 && d.need(34) {
				f.Hash = hex.EncodeToString(d.b[d.i+2 : d.i+34])
				d.i += 34
			} else {
				d.fail("hash of another length")
			}
		} else {
			f.Hash = d.str()
		}
		f.AccessCount, f.Reads, f.Edits, f.Writes = d.int(), d.int(), d.int(), d.int()
		f.LastAccess = d.time()
		d.rest(m, 7)
		out = append(out, f)
	}
	d.rest(top, 3)
	if d.err == nil && d.i != len(d.b) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return d.err
	}
	if len(out) == 0 {
		out = nil
	}
	*fr = out
	return nil
}

func (fr *fileRegistry) mapForm(b []byte) error {
	var old []FileRecord
	if err := unmarshal(b, &old); err != nil {
		return err
	}
	*fr = old
	return nil
}
