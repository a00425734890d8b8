package archive

import (
	"encoding/binary"
	"errors"
	"time"
	"unsafe"
)

// decodeMeta decodes the metadata segment into m as msgpack.Unmarshal
// would, without msgpack's reflection (which, on the first archive a
// process opens, costs more than the decoding itself).
//
// The fast path reads the form Encode writes: every struct a map keyed by
// its field names, each field once, in the msgpack types Encode uses.
// Anything else (an unknown or repeated key, a nil where Encode never
// writes one, another numeric or string form, trailing bytes, a length
// past the end of the segment) makes it give up, and the segment is
// decoded again from scratch by msgpack.Unmarshal, which then gives the
// result or the error; the fast path only spares the reflection for what
// Encode writes.
//
// msgpack.Unmarshal is reached through unmarshal, which first checks that
// the segment's first value is complete (msgpackWellFormed).
func decodeMeta(b []byte, m *metaSegment) error {
	var fast metaSegment
	r := metaReader{b: b, bud: newBudget(len(b))}
	if r.metaSegment(&fast) && r.i == len(b) {
		*m = fast
		return nil
	}
	*m = metaSegment{}
	return unmarshal(b, m)
}

var errMsgpackMalformed = errors.New("malformed msgpack: a length runs past the end of the segment, or values nest too deep")

// maxMsgpackDepth bounds the nesting of a segment's msgpack (no version
// wrote more than a few levels; msgpack's recursive skip of an unknown
// field could exhaust the stack). msgpack itself has no such limit: a
// deeper value is the one input refused where msgpack might decode it.
const maxMsgpackDepth = 256

// msgpackWellFormed walks the first msgpack value of b without recursion
// or allocation: ok when every header's content lies within b, no code is
// invalid (0xc1) and nesting stays within maxMsgpackDepth; where it is
// not ok (depth aside) msgpack fails too, but may first allocate what a
// header declares. largest is the largest length a header declared (for
// the tests, which run msgpack on refused input only when that is small).
func msgpackWellFormed(b []byte) (ok bool, largest uint64) {
	var stack [maxMsgpackDepth + 1]uint64 // values left at each open level
	depth := 0
	stack[0] = 1
	i := 0
	be := func(n int) (uint64, bool) {
		if n > len(b)-i {
			return 0, false
		}
		var v uint64
		for _, c := range b[i : i+n] {
			v = v<<8 | uint64(c)
		}
		i += n
		return v, true
	}
	for {
		for stack[depth] == 0 {
			if depth == 0 {
				return true, largest
			}
			depth--
		}
		stack[depth]--
		if i >= len(b) {
			return false, largest
		}
		c := b[i]
		i++
		var skip, items uint64
		ok := true
		switch {
		case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		case c <= 0x8f:
			items = 2 * uint64(c&0x0f)
		case c <= 0x9f:
			items = uint64(c & 0x0f)
		case c <= 0xbf:
			skip = uint64(c & 0x1f)
		case c == 0xc4 || c == 0xd9:
			skip, ok = be(1)
		case c == 0xc5 || c == 0xda:
			skip, ok = be(2)
		case c == 0xc6 || c == 0xdb:
			skip, ok = be(4)
		case c == 0xc7, c == 0xc8, c == 0xc9:
			skip, ok = be(1 << (c - 0xc7))
			skip++ // the type byte
		case c == 0xca, c == 0xce, c == 0xd2:
			skip = 4
		case c == 0xcb, c == 0xcf, c == 0xd3:
			skip = 8
		case c == 0xcc, c == 0xd0:
			skip = 1
		case c == 0xcd, c == 0xd1:
			skip = 2
		case c >= 0xd4 && c <= 0xd8:
			skip = 1 + 1<<(c-0xd4)
		case c == 0xdc:
			items, ok = be(2)
		case c == 0xdd:
			items, ok = be(4)
		case c == 0xde:
			items, ok = be(2)
			items *= 2
		case c == 0xdf:
			items, ok = be(4)
			items *= 2
		default: // 0xc1, never used
			return false, largest
		}
		largest = max(largest, skip, items)
		left := uint64(len(b) - i)
		if !ok || skip > left || items > left {
			return false, largest
		}
		i += int(skip)
		if items > 0 {
			if depth == maxMsgpackDepth {
				return false, largest
			}
			depth++
			stack[depth] = items
		}
	}
}

// metaReader reads the msgpack subset Encode writes; every method reports
// false, never panics, on anything outside it.
type metaReader struct {
	b   []byte
	i   int
	bud budget // what the slices and maps made so far take
}

// alloc reserves n elements of a type of size bytes before they are made.
func (r *metaReader) alloc(n int, size uintptr) bool { return r.bud.take(n, size) }

func (r *metaReader) code() (byte, bool) {
	if r.i >= len(r.b) {
		return 0, false
	}
	c := r.b[r.i]
	r.i++
	return c, true
}

// take returns the next n bytes.
func (r *metaReader) take(n int) ([]byte, bool) {
	if n < 0 || n > len(r.b)-r.i {
		return nil, false
	}
	p := r.b[r.i : r.i+n]
	r.i += n
	return p, true
}

func (r *metaReader) be(n int) (uint64, bool) {
	p, ok := r.take(n)
	if !ok {
		return 0, false
	}
	var v uint64
	for _, c := range p {
		v = v<<8 | uint64(c)
	}
	return v, true
}

// length reads a 1-, 2- or 4-byte big-endian length and checks that at
// least min*n bytes remain (every element takes at least min bytes), so
// that a hostile length never sizes an allocation.
func (r *metaReader) length(size, min int) (int, bool) {
	v, ok := r.be(size)
	if !ok || v > uint64(len(r.b)-r.i)/uint64(min) {
		return 0, false
	}
	return int(v), true
}

// mapLen reads a map header (nil is not accepted).
func (r *metaReader) mapLen() (int, bool) {
	c, ok := r.code()
	switch {
	case !ok:
		return 0, false
	case c >= 0x80 && c <= 0x8f:
		n := int(c & 0x0f)
		return n, 2*n <= len(r.b)-r.i
	case c == 0xde:
		return r.length(2, 2)
	case c == 0xdf:
		return r.length(4, 2)
	}
	return 0, false
}

// arrayLen reads an array header; nil gives -1.
func (r *metaReader) arrayLen() (int, bool) {
	c, ok := r.code()
	switch {
	case !ok:
		return 0, false
	case c == 0xc0:
		return -1, true
	case c >= 0x90 && c <= 0x9f:
		n := int(c & 0x0f)
		return n, n <= len(r.b)-r.i
	case c == 0xdc:
		return r.length(2, 1)
	case c == 0xdd:
		return r.length(4, 1)
	}
	return 0, false
}

// strBytes reads a str (not bin, not nil) and returns its bytes.
func (r *metaReader) strBytes() ([]byte, bool) {
	c, ok := r.code()
	if !ok {
		return nil, false
	}
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		n, ok = r.length(1, 1)
	case c == 0xda:
		n, ok = r.length(2, 1)
	case c == 0xdb:
		n, ok = r.length(4, 1)
	default:
		return nil, false
	}
	if !ok {
		return nil, false
	}
	return r.take(n)
}

func (r *metaReader) str() (string, bool) {
	p, ok := r.strBytes()
	return string(p), ok
}

// int64 reads any msgpack integer as msgpack's DecodeInt64 does.
func (r *metaReader) int64() (int64, bool) {
	c, ok := r.code()
	if !ok {
		return 0, false
	}
	if c <= 0x7f || c >= 0xe0 {
		return int64(int8(c)), true
	}
	var v uint64
	switch c {
	case 0xcc:
		v, ok = r.be(1)
	case 0xcd:
		v, ok = r.be(2)
	case 0xce:
		v, ok = r.be(4)
	case 0xcf, 0xd3:
		v, ok = r.be(8)
	case 0xd0:
		v, ok = r.be(1)
		v = uint64(int8(v))
	case 0xd1:
		v, ok = r.be(2)
		v = uint64(int16(v))
	case 0xd2:
		v, ok = r.be(4)
		v = uint64(int32(v))
	default:
		return 0, false
	}
	return int64(v), ok
}

// int reads an integer into an int field (msgpack's reflect SetInt of
// DecodeInt64's result).
func (r *metaReader) int() (int, bool) {
	v, ok := r.int64()
	return int(v), ok
}

// uint64 reads any msgpack integer as msgpack's DecodeUint64 does (the
// signed forms sign-extended, then converted).
func (r *metaReader) uint64() (uint64, bool) {
	v, ok := r.int64()
	return uint64(v), ok
}

func (r *metaReader) bool() (bool, bool) {
	c, ok := r.code()
	switch {
	case !ok:
		return false, false
	case c == 0xc2:
		return false, true
	case c == 0xc3:
		return true, true
	}
	return false, false
}

// time reads the timestamp extension (type -1) as msgpack's registered
// time.Time decoder does: time.Unix (local), the zero time in UTC.
func (r *metaReader) time() (time.Time, bool) {
	c, ok := r.code()
	if !ok {
		return time.Time{}, false
	}
	var n int
	switch c {
	case 0xd6:
		n = 4
	case 0xd7:
		n = 8
	case 0xc7:
		var l uint64
		if l, ok = r.be(1); !ok || l != 12 {
			return time.Time{}, false
		}
		n = 12
	default:
		return time.Time{}, false
	}
	id, ok := r.code()
	if !ok || int8(id) != -1 {
		return time.Time{}, false
	}
	p, ok := r.take(n)
	if !ok {
		return time.Time{}, false
	}
	var tm time.Time
	switch n {
	case 4:
		tm = time.Unix(int64(binary.BigEndian.Uint32(p)), 0)
	case 8:
		sec := binary.BigEndian.Uint64(p)
		nsec := int64(sec >> 34)
		sec &= 0x00000003ffffffff
		tm = time.Unix(int64(sec), nsec)
	default:
		nsec := binary.BigEndian.Uint32(p)
		sec := binary.BigEndian.Uint64(p[4:])
		tm = time.Unix(int64(sec), int64(nsec))
	}
	if tm.IsZero() {
		tm = tm.UTC()
	}
	return tm, true
}

// bin reads a []byte field: nil gives nil, a bin its bytes (an empty,
// non-nil slice for length 0, as msgpack gives).
func (r *metaReader) bin() ([]byte, bool) {
	c, ok := r.code()
	if !ok {
		return nil, false
	}
	var n int
	switch c {
	case 0xc0:
		return nil, true
	case 0xc4:
		n, ok = r.length(1, 1)
	case 0xc5:
		n, ok = r.length(2, 1)
	case 0xc6:
		n, ok = r.length(4, 1)
	default:
		return nil, false
	}
	if !ok {
		return nil, false
	}
	p, ok := r.take(n)
	if !ok || !r.alloc(n, 1) {
		return nil, false
	}
	return append(make([]byte, 0, n), p...), true
}

// strings reads a []string field: nil leaves it nil, an array gives a
// non-nil slice.
func (r *metaReader) strings() ([]string, bool) {
	n, ok := r.arrayLen()
	if !ok || n < 0 {
		return nil, ok
	}
	if !r.alloc(n, unsafe.Sizeof("")) {
		return nil, false
	}
	out := make([]string, n)
	for i := range out {
		if out[i], ok = r.str(); !ok {
			return nil, false
		}
	}
	return out, true
}

func (r *metaReader) ints() ([]int, bool) {
	n, ok := r.arrayLen()
	if !ok || n < 0 {
		return nil, ok
	}
	if !r.alloc(n, unsafe.Sizeof(0)) {
		return nil, false
	}
	out := make([]int, n)
	for i := range out {
		if out[i], ok = r.int(); !ok {
			return nil, false
		}
	}
	return out, true
}

// fields iterates over a struct's map: each calls field with the key and
// its bit (from bit, the field's index); a repeated key or an unknown one
// (field returns false) stops the fast path.
func (r *metaReader) fields(field func(key []byte) (bit uint64, ok bool)) bool {
	n, ok := r.mapLen()
	if !ok {
		return false
	}
	var seen uint64
	for range n {
		k, ok := r.strBytes()
		if !ok {
			return false
		}
		bit, ok := field(k)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return true
}

func (r *metaReader) metaSegment(m *metaSegment) bool {
	return r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "layout":
			m.Layout, ok = r.int()
			return 1 << 0, ok
		case "meta":
			return 1 << 1, r.metadata(&m.Meta)
		case "import":
			return 1 << 2, r.importReport(&m.Import)
		case "raw":
			m.Raw, ok = r.rawManifests()
			return 1 << 3, ok
		case "contents":
			m.Contents, ok = r.contentEntries()
			return 1 << 4, ok
		case "redacted":
			m.Redacted, ok = r.bool()
			return 1 << 5, ok
		case "redaction":
			return 1 << 6, r.redactionReport(&m.Redact)
		case "redact_fp":
			m.RedactFP, ok = r.str()
			return 1 << 7, ok
		case "counts":
			return 1 << 8, r.counts(&m.Counts)
		case "derived":
			m.Derived, ok = r.modelSource()
			return 1 << 9, ok
		case "pending":
			m.Pending, ok = r.pendingModel()
			return 1 << 10, ok
		}
		return 0, false
	})
}

func (r *metaReader) metadata(m *Metadata) bool {
	return r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		var s string
		switch string(k) {
		case "schema_version":
			m.SchemaVersion, ok = r.int()
			return 1 << 0, ok
		case "harness":
			s, ok = r.str()
			m.Harness = Harness(s)
			return 1 << 1, ok
		case "created_at":
			m.CreatedAt, ok = r.time()
			return 1 << 2, ok
		case "updated_at":
			m.UpdatedAt, ok = r.time()
			return 1 << 3, ok
		case "session_count":
			m.SessionCount, ok = r.int()
			return 1 << 4, ok
		case "directory_path":
			m.DirectoryPath, ok = r.str()
			return 1 << 5, ok
		case "directory_hash":
			m.DirectoryHash, ok = r.str()
			return 1 << 6, ok
		case "session_id":
			m.SessionID, ok = r.str()
			return 1 << 7, ok
		case "subagent_ids":
			m.SubagentIDs, ok = r.strings()
			return 1 << 8, ok
		case "title":
			m.Title, ok = r.str()
			return 1 << 9, ok
		case "client_version":
			m.ClientVersion, ok = r.str()
			return 1 << 10, ok
		case "git_branch":
			m.GitBranch, ok = r.str()
			return 1 << 11, ok
		case "model":
			m.Model, ok = r.str()
			return 1 << 12, ok
		case "message_count":
			m.MessageCount, ok = r.int()
			return 1 << 13, ok
		case "tool_count":
			m.ToolCount, ok = r.int()
			return 1 << 14, ok
		case "file_count":
			m.FileCount, ok = r.int()
			return 1 << 15, ok
		case "total_tokens":
			m.TotalTokens, ok = r.int64()
			return 1 << 16, ok
		case "context_tokens":
			m.ContextTokens, ok = r.int64()
			return 1 << 17, ok
		case "context_window":
			m.ContextWindow, ok = r.int64()
			return 1 << 18, ok
		case "first_activity":
			m.FirstActivity, ok = r.time()
			return 1 << 19, ok
		case "last_activity":
			m.LastActivity, ok = r.time()
			return 1 << 20, ok
		}
		return 0, false
	})
}

func (r *metaReader) importReport(m *ImportReport) bool {
	return r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "lines":
			m.Lines, ok = r.int()
			return 1 << 0, ok
		case "skipped":
			m.Skipped, ok = r.int()
			return 1 << 1, ok
		case "partial":
			m.Partial, ok = r.int()
			return 1 << 2, ok
		case "truncated":
			m.Truncated, ok = r.bool()
			return 1 << 3, ok
		case "invalid_utf8":
			m.InvalidUTF8, ok = r.int()
			return 1 << 4, ok
		case "unknown_types":
			m.UnknownTypes, ok = r.stringIntMap()
			return 1 << 5, ok
		case "problems":
			m.Problems, ok = r.strings()
			return 1 << 6, ok
		case "blank":
			m.Blank, ok = r.int()
			return 1 << 7, ok
		case "files":
			m.Files, ok = r.int()
			return 1 << 8, ok
		}
		return 0, false
	})
}

// stringIntMap reads a map[string]int field: nil leaves it nil, a map
// (even an empty one) gives a non-nil map; a repeated key keeps the last
// value, as msgpack does.
func (r *metaReader) stringIntMap() (map[string]int, bool) {
	if r.i < len(r.b) && r.b[r.i] == 0xc0 {
		r.i++
		return nil, true
	}
	n, ok := r.mapLen()
	if !ok || !r.alloc(n, 64) {
		return nil, false
	}
	out := make(map[string]int, n)
	for range n {
		k, ok := r.str()
		if !ok {
			return nil, false
		}
		if out[k], ok = r.int(); !ok {
			return nil, false
		}
	}
	return out, true
}

func (r *metaReader) rawManifests() ([]rawManifest, bool) {
	n, ok := r.arrayLen()
	if !ok || n < 0 {
		return nil, ok
	}
	if !r.alloc(n, unsafe.Sizeof(rawManifest{})) {
		return nil, false
	}
	out := make([]rawManifest, n)
	for i := range out {
		m := &out[i]
		ok := r.fields(func(k []byte) (uint64, bool) {
			var ok bool
			switch string(k) {
			case "name":
				m.Name, ok = r.str()
				return 1 << 0, ok
			case "size":
				m.Size, ok = r.int64()
				return 1 << 1, ok
			case "sha256":
				m.SHA256, ok = r.str()
				return 1 << 2, ok
			case "chunks":
				m.Chunks, ok = r.rawChunks()
				return 1 << 3, ok
			case "redacted_lines":
				m.RedactedLines, ok = r.ints()
				return 1 << 4, ok
			}
			return 0, false
		})
		if !ok {
			return nil, false
		}
	}
	return out, true
}

func (r *metaReader) rawChunks() ([]rawChunk, bool) {
	n, ok := r.arrayLen()
	if !ok || n < 0 {
		return nil, ok
	}
	if !r.alloc(n, unsafe.Sizeof(rawChunk{})) {
		return nil, false
	}
	out := make([]rawChunk, n)
	for i := range out {
		c := &out[i]
		ok := r.fields(func(k []byte) (uint64, bool) {
			var ok bool
			switch string(k) {
			case "n":
				c.StoredLen, ok = r.int64()
				return 1 << 0, ok
			case "on":
				c.OrigLen, ok = r.int64()
				return 1 << 1, ok
			case "oh":
				c.OrigHash, ok = r.uint64()
				return 1 << 2, ok
			case "lines":
				c.Lines, ok = r.int()
				return 1 << 3, ok
			case "mid":
				c.Mid, ok = r.bin()
				return 1 << 4, ok
			case "pk":
				c.Packed, ok = r.bool()
				return 1 << 5, ok
			}
			return 0, false
		})
		if !ok {
			return nil, false
		}
	}
	return out, true
}

func (r *metaReader) contentEntries() ([]contentEntry, bool) {
	n, ok := r.arrayLen()
	if !ok || n < 0 {
		return nil, ok
	}
	if !r.alloc(n, unsafe.Sizeof(contentEntry{})) {
		return nil, false
	}
	out := make([]contentEntry, n)
	for i := range out {
		e := &out[i]
		ok := r.fields(func(k []byte) (uint64, bool) {
			var ok bool
			switch string(k) {
			case "path":
				e.Path, ok = r.str()
				return 1 << 0, ok
			case "size":
				e.Size, ok = r.int64()
				return 1 << 1, ok
			case "sha256":
				e.SHA256, ok = r.str()
				return 1 << 2, ok
			}
			return 0, false
		})
		if !ok {
			return nil, false
		}
	}
	return out, true
}

func (r *metaReader) redactionReport(m *RedactionReport) bool {
	return r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "enabled":
			m.Enabled, ok = r.bool()
			return 1 << 0, ok
		case "lines_changed":
			m.LinesChanged, ok = r.int()
			return 1 << 1, ok
		case "texts_changed":
			m.TextsChanged, ok = r.int()
			return 1 << 2, ok
		case "contents_changed":
			m.ContentsChanged, ok = r.int()
			return 1 << 3, ok
		}
		return 0, false
	})
}

func (r *metaReader) counts(m *counts) bool {
	return r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "compactions":
			m.Compactions, ok = r.int()
			return 1 << 0, ok
		case "preferences":
			m.Preferences, ok = r.int()
			return 1 << 1, ok
		case "active":
			m.Active, ok = r.int()
			return 1 << 2, ok
		case "pending":
			m.Pending, ok = r.int()
			return 1 << 3, ok
		case "completed":
			m.Completed, ok = r.int()
			return 1 << 4, ok
		}
		return 0, false
	})
}

// modelSource reads the *ModelSource field: nil leaves it nil, a map
// gives a new ModelSource.
func (r *metaReader) modelSource() (*ModelSource, bool) {
	if r.i < len(r.b) && r.b[r.i] == 0xc0 {
		r.i++
		return nil, true
	}
	m := new(ModelSource)
	ok := r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "importer":
			m.Importer, ok = r.str()
			return 1 << 0, ok
		case "version":
			m.Version, ok = r.int()
			return 1 << 1, ok
		case "root":
			m.Root, ok = r.str()
			return 1 << 2, ok
		}
		return 0, false
	})
	return m, ok
}

// pendingModel reads a raw-only archive's PendingModel (see rawonly.go).
func (r *metaReader) pendingModel() (*PendingModel, bool) {
	if r.i < len(r.b) && r.b[r.i] == 0xc0 {
		r.i++
		return nil, true
	}
	m := new(PendingModel)
	ok := r.fields(func(k []byte) (uint64, bool) {
		var ok bool
		switch string(k) {
		case "importer":
			m.Importer, ok = r.str()
			return 1 << 0, ok
		case "version":
			m.Version, ok = r.int()
			return 1 << 1, ok
		case "root":
			m.Root, ok = r.str()
			return 1 << 2, ok
		case "resumable":
			m.Resumable, ok = r.bool()
			return 1 << 3, ok
		case "file_contents":
			m.FileContents, ok = r.bool()
			return 1 << 4, ok
		case "exclude":
			m.ExcludePatterns, ok = r.strings()
			return 1 << 5, ok
		case "max_file_content":
			m.MaxFileContent, ok = r.int64()
			return 1 << 6, ok
		case "chunks":
			var n int
			if n, ok = r.arrayLen(); !ok || n < 0 {
				return 1 << 7, ok
			}
			if !r.alloc(n, unsafe.Sizeof([]rawChunk(nil))) {
				return 1 << 7, false
			}
			m.Chunks = make([][]rawChunk, n)
			for i := range m.Chunks {
				if m.Chunks[i], ok = r.rawChunks(); !ok {
					return 1 << 7, false
				}
			}
			return 1 << 7, true
		}
		return 0, false
	})
	return m, ok
}
