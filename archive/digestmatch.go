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

// containsTerms reports containsTerm(text, terms[i]) for every i, in one
// pass over text instead of one per term; terms[i] is named when
// named[i] is set (named must be as long as terms and all false).
//
// A match of a term at offset i has no path byte before it, so i starts a
// run (a maximal sequence of path bytes). Let k be the length of the
// term's leading path bytes. If k < len(term), term[k] is not a path byte,
// so the run at i is exactly term[:k]. If k == len(term), the byte after
// the match is not a name byte: the run ends there or continues with '.'.
// So every match starts a run whose whole text, or a prefix of it that a
// '.' follows, equals term[:k]. The terms are put in a hash table by
// term[:k], and text's runs and their dotted prefixes are looked up in it;
// each term found is checked at that offset with containsTerm's own rule.
// Terms that do not start with a path byte (k == 0), and all terms when
// there are only a few, are searched with containsTerm.
func containsTerms(text string, terms []string, named []bool) {
	const few = 12 // about what indexing costs in scans of text
	if len(terms) < few || len(text) >= 1<<31-1 || len(terms) >= 1<<31-1 {
		for i, p := range terms {
			named[i] = containsTerm(text, p)
		}
		return
	}
	size, bits := 16, uint32(4)
	for size < 2*len(terms) {
		size, bits = size<<1, bits+1
	}
	shift, mask := 32-bits, uint32(size-1)
	// slots[j] is 1 + the first term of a key, 0 if empty; next chains the
	// terms of the same key; klen[i] is the key length of term i.
	slots := make([]int32, size)
	next := make([]int32, len(terms))
	klen := make([]int32, len(terms))
	hashes := make([]uint32, len(terms))
	left := 0 // terms in the table not named yet
	minK, maxK := len(text)+1, 0
	var first [256]bool // first bytes of the keys: other runs are skipped
	for i, p := range terms {
		k := 0
		for k < len(p) && byteClass[p[k]]&classPath != 0 {
			k++
		}
		if k == 0 {
			named[i] = containsTerm(text, p)
			continue
		}
		if len(p) > len(text) {
			continue // cannot occur
		}
		key := p[:k]
		h := termHashOf(key)
		klen[i], hashes[i] = int32(k), h
		minK, maxK = min(minK, k), max(maxK, k)
		first[p[0]] = true
		for j := h * termHashMix >> shift; ; j = (j + 1) & mask {
			f := slots[j] - 1
			if f < 0 {
				slots[j] = int32(i) + 1
				next[i] = -1
				break
			}
			if hashes[f] == h && terms[f][:klen[f]] == key {
				next[i], next[f] = next[f], int32(i) // after the first: order does not matter
				break
			}
		}
		left++
	}
	if left == 0 {
		return
	}
	lookup := func(h uint32, start, end int) {
		if n := end - start; n < minK || n > maxK {
			return
		}
		key := text[start:end]
		for j := h * termHashMix >> shift; ; j = (j + 1) & mask {
			f := slots[j] - 1
			if f < 0 {
				return
			}
			if hashes[f] != h || terms[f][:klen[f]] != key {
				continue
			}
			for t := f; t >= 0; t = next[t] {
				if named[t] {
					continue
				}
				p := terms[t]
				if strings.HasPrefix(text[start:], p) && (start+len(p) == len(text) || byteClass[text[start+len(p)]]&className == 0) {
					named[t] = true
					left--
				}
			}
			return
		}
	}
	for i := 0; i < len(text) && left > 0; {
		if byteClass[text[i]]&classPath == 0 {
			i++
			continue
		}
		start := i
		if !first[text[i]] {
			for i++; i < len(text) && byteClass[text[i]]&classPath != 0; i++ {
			}
			continue
		}
		h := uint32(termHashInit)
		for ; i < len(text) && byteClass[text[i]]&classPath != 0; i++ {
			if text[i] == '.' && i > start {
				lookup(h, start, i)
			}
			h = (h ^ uint32(text[i])) * termHashPrime
		}
		lookup(h, start, i)
	}
}

// termHashMix spreads a hash's high bits into the slot number (Fibonacci
// hashing: FNV's low bits depend on the bytes' low bits only).
const termHashMix = 0x9e3779b1

// termHash is the hash of the table: FNV-1a's multiply on each byte,
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
