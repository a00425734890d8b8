// Package mpguard checks msgpack bytes from an archive before
// github.com/vmihailenco/msgpack decodes them: that every length a header
// declares lies within the bytes and nesting stays bounded (WellFormed),
// and that the Go values decoding into a given type would allocate stay
// within a budget proportional to the segment's size (CheckCost). Both
// walk the bytes without recursion into msgpack and without allocating.
package mpguard

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// Decoding a segment allocates Go values whose size the bytes alone do
// not bound: msgpack v5.4.1 allocates a slice's elements from the array
// header before it reads them (its allocation limit is inverted), so an
// array of n nils costs n times the element type's size. Every decoder of
// this package therefore checks, before it allocates anything, what the
// values it is about to build would take against a budget that depends
// on the segment's size (package archive's unmarshal runs CheckCost).

// segmentBudget is the most memory the values decoded from a segment of n
// bytes may take: a fixed allowance plus a few times the segment (what an
// archive's own segments need is well below twice their size; see
// archive's TestSegmentBudgetRealArchives).
func segmentBudget(n int) uint64 { return budgetBase + budgetPerByte*uint64(n) }

const (
	budgetBase    = 16 << 20
	budgetPerByte = 4
)

// ErrOverBudget: what a segment declares would take more memory than its
// size allows.
var ErrOverBudget = errors.New("the values a segment declares would take more memory than its size allows")

// budget counts the bytes a decoder is about to allocate.
type budget struct{ used, limit uint64 }

func newBudget(segLen int) budget { return budget{limit: segmentBudget(segLen)} }

// take reserves n values of size bytes; false once over the limit.
func (b *budget) take(n int, size uintptr) bool {
	if n < 0 {
		return false
	}
	c := uint64(n) * uint64(max(size, 1))
	if size != 0 && c/uint64(size) != uint64(n) {
		return false
	}
	b.used += c
	return b.used <= b.limit && b.used >= c
}

// msgpackCost walks the first msgpack value of b as msgpack.Unmarshal
// would decode it into a value of type t, adding up what the decoding
// would allocate, without allocating: ok is false when the total exceeds
// the budget, or when b holds something archive.Encode never writes that msgpack
// would decode with allocations this walk does not model (a struct
// encoded as an array). b must have passed WellFormed.
func msgpackCost(b []byte, t reflect.Type, bud *budget) bool {
	w := costWalker{b: b, bud: bud}
	return w.value(t, 0)
}

type costWalker struct {
	b   []byte
	i   int
	bud *budget
	// stop: msgpack fails at this point (with an error, before anything
	// more is allocated), so the walk ends there.
	stop bool
}

// mpKind is the class of a msgpack value's header.
type mpKind uint8

const (
	mpNil mpKind = iota
	mpScalar
	mpStr // str or bin: n bytes follow
	mpExt // n bytes (type byte included) follow
	mpArray
	mpMap
)

// head decodes the header of the msgpack value at b[i]: its kind, its
// length n (bytes for str and bin; bytes with the type byte for ext;
// elements for arrays; pairs for maps; the bytes that follow for a
// scalar) and where the header ends. ok is false for a header cut short
// and for 0xc1, a code never used.
func head(b []byte, i int) (k mpKind, n uint64, end int, ok bool) {
	if i >= len(b) {
		return 0, 0, i, false
	}
	c := b[i]
	i++
	be := func(k mpKind, w int) (mpKind, uint64, int, bool) { // a w-byte big-endian length
		if w > len(b)-i {
			return 0, 0, i, false
		}
		var v uint64
		for _, x := range b[i : i+w] {
			v = v<<8 | uint64(x)
		}
		return k, v, i + w, true
	}
	switch {
	case c == 0xc0:
		return mpNil, 0, i, true
	case c <= 0x7f || c >= 0xe0 || c == 0xc2 || c == 0xc3:
		return mpScalar, 0, i, true
	case c <= 0x8f:
		return mpMap, uint64(c & 0x0f), i, true
	case c <= 0x9f:
		return mpArray, uint64(c & 0x0f), i, true
	case c <= 0xbf:
		return mpStr, uint64(c & 0x1f), i, true
	case c == 0xc4 || c == 0xd9:
		return be(mpStr, 1)
	case c == 0xc5 || c == 0xda:
		return be(mpStr, 2)
	case c == 0xc6 || c == 0xdb:
		return be(mpStr, 4)
	case c >= 0xc7 && c <= 0xc9:
		k, n, end, ok = be(mpExt, 1<<(c-0xc7))
		return k, n + 1, end, ok // the type byte
	case c == 0xca || c == 0xce || c == 0xd2:
		return mpScalar, 4, i, true
	case c == 0xcb || c == 0xcf || c == 0xd3:
		return mpScalar, 8, i, true
	case c == 0xcc || c == 0xd0:
		return mpScalar, 1, i, true
	case c == 0xcd || c == 0xd1:
		return mpScalar, 2, i, true
	case c >= 0xd4 && c <= 0xd8:
		return mpExt, 1 + 1<<(c-0xd4), i, true
	case c == 0xdc || c == 0xdd:
		return be(mpArray, 2<<(c-0xdc))
	case c == 0xde || c == 0xdf:
		return be(mpMap, 2<<(c-0xde))
	}
	return 0, 0, i, false
}

// header reads one value's header: its kind and length (bytes for str,
// bin and ext; elements for arrays; pairs for maps), passing over a
// scalar's bytes.
func (w *costWalker) header() (mpKind, int, bool) {
	k, n, end, ok := head(w.b, w.i)
	w.i = end
	if !ok || n > uint64(len(w.b)) {
		return 0, 0, false
	}
	if k == mpScalar {
		return k, 0, w.skipN(int(n))
	}
	return k, int(n), true
}

func (w *costWalker) skipN(n int) bool {
	if n < 0 || n > len(w.b)-w.i {
		return false
	}
	w.i += n
	return true
}

// skip passes over one value (msgpack skips unknown fields without
// allocating for them).
func (w *costWalker) skip() bool {
	if w.stop {
		return true
	}
	ok, _, end := WellFormed(w.b[w.i:])
	w.i += end
	return ok
}

var (
	typeTime        = reflect.TypeFor[time.Time]()
	typeUnmarshaler = reflect.TypeFor[msgpack.Unmarshaler]()
	typeCustomDec   = reflect.TypeFor[msgpack.CustomDecoder]()
	typeIface       = reflect.TypeFor[any]()
)

// Sizes of what msgpack builds for an interface value.
const (
	ifaceMapEntry = 64 // a map[string]any entry with its share of buckets
	ifaceValue    = 16
)

func (w *costWalker) value(t reflect.Type, depth int) bool {
	if w.stop {
		return true
	}
	if depth > MaxDepth {
		return false
	}
	if t == typeTime || reflect.PointerTo(t).Implements(typeUnmarshaler) || reflect.PointerTo(t).Implements(typeCustomDec) {
		// Decoded by its own code from the value's bytes (a copy of them
		// at most); a nested decoder checks its own input.
		start := w.i
		if !w.skip() {
			return false
		}
		return w.bud.take(w.i-start, 1) && w.bud.take(1, t.Size())
	}
	start := w.i
	k, n, ok := w.header()
	if !ok {
		return false
	}
	if k == mpNil {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.i = start
		return w.bud.take(1, t.Elem().Size()) && w.value(t.Elem(), depth+1)
	case reflect.Interface:
		switch k {
		case mpStr, mpExt:
			return w.bud.take(n, 1) && w.bud.take(1, ifaceValue) && w.skipN(n)
		case mpArray:
			if !w.bud.take(n, ifaceValue) {
				return false
			}
			for range n {
				if !w.value(typeIface, depth+1) {
					return false
				}
			}
		case mpMap:
			if !w.bud.take(n, ifaceMapEntry) {
				return false
			}
			for range 2 * n {
				if !w.value(typeIface, depth+1) {
					return false
				}
			}
		}
		return true
	case reflect.String:
		if k == mpStr {
			return w.bud.take(n, 1) && w.skipN(n)
		}
	case reflect.Slice:
		if k == mpStr {
			return w.bud.take(n, 1) && w.skipN(n)
		}
		if k == mpArray {
			if !w.bud.take(n, t.Elem().Size()) {
				return false
			}
			for range n {
				if !w.value(t.Elem(), depth+1) {
					return false
				}
			}
			return true
		}
	case reflect.Array:
		if k == mpArray {
			if n > t.Len() {
				return false
			}
			for range n {
				if !w.value(t.Elem(), depth+1) {
					return false
				}
			}
			return true
		}
	case reflect.Map:
		if k == mpMap {
			if !w.bud.take(n, 2*(t.Key().Size()+t.Elem().Size())+16) {
				return false
			}
			for range n {
				if !w.value(t.Key(), depth+1) || !w.value(t.Elem(), depth+1) {
					return false
				}
			}
			return true
		}
	case reflect.Struct:
		switch k {
		case mpMap:
			fields := structFields(t)
			for range n {
				if w.stop {
					return true
				}
				kk, kn, ok := w.header()
				if !ok {
					return false
				}
				var name []byte
				switch kk {
				case mpNil: // msgpack reads it as ""
				case mpStr:
					if !w.skipN(kn) {
						return false
					}
					name = w.b[w.i-kn : w.i]
				default:
					w.stop = true
					return true
				}
				if f, ok := fields.byName[string(name)]; ok {
					if !w.value(f, depth+1) {
						return false
					}
				} else if !w.skip() {
					return false
				}
			}
			return true
		case mpArray:
			// msgpack decodes the fields in order when the array holds
			// exactly as many values as the struct has fields.
			fields := structFields(t)
			if n != len(fields.list) {
				w.stop = true
				return true
			}
			for _, f := range fields.list {
				if !w.value(f, depth+1) {
					return false
				}
			}
			return true
		}
	}
	// A scalar, or a value msgpack refuses for t (an error, before any
	// allocation): passed over.
	switch k {
	case mpScalar:
		return true // header passed over its bytes
	case mpStr, mpExt:
		return w.skipN(n)
	}
	w.i = start
	return w.skip()
}

// msgpackFields are a struct's fields as msgpack v5 sees them.
type msgpackFields struct {
	byName map[string]reflect.Type
	list   []reflect.Type // in order, for the array form
}

var fieldCache sync.Map // reflect.Type → *msgpackFields

// structFields lists t's fields as msgpack v5 names them: the tag's name,
// else the Go name; "-" left out; embedded structs without a name
// inlined.
func structFields(t reflect.Type) *msgpackFields {
	if m, ok := fieldCache.Load(t); ok {
		return m.(*msgpackFields)
	}
	m := &msgpackFields{byName: map[string]reflect.Type{}}
	addStructFields(t, m, 0)
	fieldCache.Store(t, m)
	return m
}

func addStructFields(t reflect.Type, m *msgpackFields, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("msgpack")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		ft := f.Type
		if f.Anonymous && name == "" && depth < 8 {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addStructFields(ft, m, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m.byName[name]; !dup {
			m.byName[name] = f.Type
			m.list = append(m.list, f.Type)
		}
	}
}

// CheckCost checks that decoding b into v (a pointer) would allocate
// within the budget of a segment of len(b) bytes, and returns what the
// walk counted: an error wrapping ErrOverBudget when it would not,
// ErrMalformed for bytes whose decoding the walk does not model. b must
// have passed WellFormed.
func CheckCost(b []byte, v any) (used uint64, err error) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return 0, fmt.Errorf("mpguard: decoding into %T", v)
	}
	bud := newBudget(len(b))
	if !msgpackCost(b, t.Elem(), &bud) {
		if bud.used > bud.limit {
			return bud.used, fmt.Errorf("%w (%d bytes declared for a %d-byte segment)", ErrOverBudget, bud.used, len(b))
		}
		return bud.used, ErrMalformed
	}
	return bud.used, nil
}

// ErrMalformed: a length runs past the end of the bytes, or values nest
// deeper than MaxDepth.
var ErrMalformed = errors.New("malformed msgpack: a length runs past the end of the segment, or values nest too deep")

// MaxDepth bounds the nesting of a segment's msgpack (no version
// wrote more than a few levels; msgpack's recursive skip of an unknown
// field could exhaust the stack). msgpack itself has no such limit: a
// deeper value is the one input refused where msgpack might decode it.
const MaxDepth = 256

// WellFormed walks the first msgpack value of b without recursion
// or allocation: ok when every header's content lies within b, no code is
// invalid (0xc1) and nesting stays within MaxDepth; where it is
// not ok (depth aside) msgpack fails too, but may first allocate what a
// header declares. largest is the largest length a header declared (for
// the tests, which run msgpack on refused input only when that is small);
// end is where the first value ends.
func WellFormed(b []byte) (ok bool, largest uint64, end int) {
	var stack [MaxDepth + 1]uint64 // values left at each open level
	depth := 0
	stack[0] = 1
	i := 0
	for {
		for stack[depth] == 0 {
			if depth == 0 {
				return true, largest, i
			}
			depth--
		}
		stack[depth]--
		k, n, end, ok := head(b, i)
		i = end
		if !ok {
			return false, largest, i
		}
		var skip, items uint64
		switch k {
		case mpArray:
			items = n
		case mpMap:
			items = 2 * n
		default:
			skip = n
		}
		largest = max(largest, skip, items)
		left := uint64(len(b) - i)
		if skip > left || items > left {
			return false, largest, i
		}
		i += int(skip)
		if items > 0 {
			if depth == MaxDepth {
				return false, largest, i
			}
			depth++
			stack[depth] = items
		}
	}
}
