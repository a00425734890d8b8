package archive

import "strings"

// Byte classes of containsTerm's boundary rule. Path and name runes are
// all ASCII, so a byte decides: a byte of a multi-byte or invalid sequence
// decodes to a rune that is neither.
const (
	className = 1 << iota // _ / \ - 0-9 a-z A-Z (isNameRune)
	classPath             // a name byte or '.' (isPathRune)
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 128; c++ {
		if isNameRune(rune(c)) {
			t[c] |= className
		}
		if isPathRune(rune(c)) {
			t[c] |= classPath
		}
	}
	return t
}()

// termIndex answers containsTerm(text, term) for many terms with one pass
// over text instead of one per term.
//
// A match of term at offset i has no path byte before it, so i starts a
// run (a maximal sequence of path bytes). Let k be the length of term's
// leading path bytes. If k < len(term), term[k] is not a path byte, so the
// run at i is exactly term[:k]. If k == len(term), the byte after the
// match is not a name byte: the run ends there or continues with '.'. The
// index therefore holds, for every run, the run itself and each of its
// prefixes that a '.' follows, keyed by a hash of their bytes: every match
// position is among the entries whose text equals term[:k], and each such
// entry is checked with containsTerm's own rule. Terms that do not start
// with a path byte (k == 0) are searched the old way.
type termIndex struct {
	text  string
	shift uint32     // slot of hash h: h*termHashMix >> shift
	mask  uint32     // len(slots)-1
	slots []termSlot // open addressing, one per distinct key; len is a power of two
	occ   []termOcc  // every occurrence of every key
}

// termHashMix spreads a hash's high bits into the slot number (Fibonacci
// hashing: FNV's low bits depend on the bytes' low bits only).
const termHashMix = 0x9e3779b1

// termSlot is a distinct key, text[start:end] at its first occurrence,
// and the last of its occurrences (an index into occ plus one; 0 marks an
// empty slot).
type termSlot struct {
	start, end int32
	hash       uint32
	last       int32
}

// termOcc is where an occurrence starts and the previous occurrence of the
// same key (an index into occ plus one; 0 for none).
type termOcc struct {
	start, prev int32
}

// termHash is the hash of the index: FNV-1a's multiply on each byte,
// continued byte by byte so that a run's prefixes are hashed on the way.
const (
	termHashInit  = 2166136261
	termHashPrime = 16777619
)

func termHashOf(s string) uint32 {
	h := uint32(termHashInit)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * termHashPrime
	}
	return h
}

// newTermIndex indexes text. Offsets are int32: a text of 2 GiB or more
// (never a compaction summary) gets no index, and lookups scan.
func newTermIndex(text string) *termIndex {
	x := &termIndex{text: text}
	if len(text) >= 1<<31-1 {
		return x
	}
	// Occurrences: one per run plus one per '.' inside a run; counted
	// first so that the tables are allocated once.
	n := 0
	for i := 0; i < len(text); i++ {
		c := byteClass[text[i]]
		if c&classPath != 0 && (i == 0 || byteClass[text[i-1]]&classPath == 0) {
			n++
		}
		if text[i] == '.' && i > 0 && byteClass[text[i-1]]&classPath != 0 {
			n++
		}
	}
	size, bits := 16, uint32(4)
	for size < 2*n {
		size, bits = size<<1, bits+1
	}
	x.slots = make([]termSlot, size)
	x.occ = make([]termOcc, 0, n)
	x.mask = uint32(size - 1)
	x.shift = 32 - bits
	for i := 0; i < len(text); {
		if byteClass[text[i]]&classPath == 0 {
			i++
			continue
		}
		start := i
		h := uint32(termHashInit)
		for ; i < len(text) && byteClass[text[i]]&classPath != 0; i++ {
			if text[i] == '.' && i > start {
				x.insert(h, start, i)
			}
			h = (h ^ uint32(text[i])) * termHashPrime
		}
		x.insert(h, start, i)
	}
	return x
}

func (x *termIndex) insert(h uint32, start, end int) {
	key := x.text[start:end]
	for j := h * termHashMix >> x.shift; ; j = (j + 1) & x.mask {
		s := &x.slots[j]
		if s.last == 0 {
			*s = termSlot{start: int32(start), end: int32(end), hash: h}
		} else if s.hash != h || x.text[s.start:s.end] != key {
			continue
		}
		x.occ = append(x.occ, termOcc{start: int32(start), prev: s.last})
		s.last = int32(len(x.occ))
		return
	}
}

// contains reports containsTerm(x.text, p).
func (x *termIndex) contains(p string) bool {
	if p == "" {
		return false
	}
	k := 0
	for k < len(p) && byteClass[p[k]]&classPath != 0 {
		k++
	}
	if k == 0 || x.slots == nil {
		return containsTerm(x.text, p)
	}
	key := p[:k]
	h := termHashOf(key)
	text := x.text
	for j := h * termHashMix >> x.shift; ; j = (j + 1) & x.mask {
		s := &x.slots[j]
		if s.last == 0 {
			return false
		}
		if s.hash != h || text[s.start:s.end] != key {
			continue
		}
		for o := s.last; o != 0; o = x.occ[o-1].prev {
			i := int(x.occ[o-1].start)
			if strings.HasPrefix(text[i:], p) && (i+len(p) == len(text) || byteClass[text[i+len(p)]]&className == 0) {
				return true
			}
		}
		return false
	}
}
