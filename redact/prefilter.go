package redact

import "math/bits"

// prefilter finds every occurrence of the rules' keywords, case-
// insensitively, in one pass whose cost does not depend on the number of
// rules or keywords.
//
// Each byte is mapped to a 6-bit code (0 for bytes that occur in no
// keyword); a rolling 18-bit window of the last three codes indexes a
// bitset of the keywords' first three bytes. Only positions whose trigram
// is set are verified against the (few) keywords starting with it. The
// rolling window has no data-dependent loads in its dependency chain, so
// the scan runs at a few hundred MB/s to over 1 GB/s on ordinary text.
type prefilter struct {
	code [256]uint8
	bits *[(triMask + 1) / 64]uint64 // 1<<18 bits
	// The keywords starting with the trigram of the n-th set bit of bits
	// (in bit order) are cands[candOff[n]:candOff[n+1]]; n is the bit's
	// rank, rank[x>>6] plus the set bits below x in its word.
	rank    *[(triMask + 1) / 64]uint16
	candOff []int32
	cands   []int32
	kws     [][]byte // lower-cased
	kwOwner []int    // keyword index -> matcher index
	// known is how many leading bytes of a candidate keyword its trigram
	// hit has already matched: 3 (at most the keyword's length) when every
	// keyword byte has its own code (a code then names one lower-cased
	// byte), else 0.
	known int
}

// hit is one keyword occurrence: input[start:end] equals the keyword, case
// folded.
type hit struct {
	matcher    int
	start, end int
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

const triMask = 1<<18 - 1

// newPrefilter builds the filter. keywords[i] is owned by owners[i]; every
// keyword must be at least 2 bytes long.
func newPrefilter(keywords []string, owners []int) *prefilter {
	p := &prefilter{bits: new([(triMask + 1) / 64]uint64), rank: new([(triMask + 1) / 64]uint16)}
	cands := map[uint32][]int32{}
	next, distinct := uint8(1), 0
	for _, kw := range keywords {
		for i := 0; i < len(kw); i++ {
			c := lowerASCII(kw[i])
			if p.code[c] == 0 {
				distinct++
				p.code[c] = next
				if next < 63 {
					next++ // beyond 62 distinct bytes, codes are shared
				}
			}
		}
	}
	if distinct <= 63 {
		p.known = 3
	}
	for c := 'A'; c <= 'Z'; c++ {
		p.code[c] = p.code[c+32]
	}
	for i, kw := range keywords {
		low := make([]byte, len(kw))
		for j := range kw {
			low[j] = lowerASCII(kw[j])
		}
		p.kws = append(p.kws, low)
		p.kwOwner = append(p.kwOwner, owners[i])
		c0, c1 := uint32(p.code[low[0]]), uint32(p.code[low[1]])
		var thirds []uint32
		if len(low) >= 3 {
			thirds = []uint32{uint32(p.code[low[2]])}
		} else {
			for c := uint32(0); c < 64; c++ {
				thirds = append(thirds, c)
			}
		}
		for _, c2 := range thirds {
			idx := c0<<12 | c1<<6 | c2
			if p.bits[idx/64]&(1<<(idx%64)) == 0 {
				p.bits[idx/64] |= 1 << (idx % 64)
			}
			cands[idx] = append(cands[idx], int32(i))
		}
	}
	n := 0
	for wi, word := range p.bits {
		p.rank[wi] = uint16(n)
		for ; word != 0; word &= word - 1 {
			idx := uint32(wi)<<6 | uint32(bits.TrailingZeros64(word))
			p.candOff = append(p.candOff, int32(len(p.cands)))
			p.cands = append(p.cands, cands[idx]...)
			n++
		}
	}
	p.candOff = append(p.candOff, int32(len(p.cands)))
	return p
}

// scan appends every keyword hit in b to hits and returns it. It allocates
// only when there is at least one hit.
func (p *prefilter) scan(b []byte, hits []hit) []hit {
	if len(p.kws) == 0 || len(b) < 2 {
		return hits
	}
	code, bits := &p.code, p.bits
	w := uint32(code[b[0]])<<6 | uint32(code[b[1]])
	// Position i is the third byte of the trigram starting at i-2; a
	// virtual code-0 byte follows the input so that 2-byte keywords at the
	// very end are seen. (bits is an array and x is masked: no bounds
	// checks in the loop. w keeps older codes above the window: the mask
	// is not on the loop's dependency chain, a shift and an or per byte.)
	n := len(b)
	for i := 2; i < n; i++ {
		w = w<<6 | uint32(code[b[i]])
		if x := w & triMask; bits[x>>6]&(1<<(x&63)) != 0 {
			hits = p.verify(b, i-2, x, hits)
		}
	}
	if w = (w << 6) & triMask; bits[w>>6]&(1<<(w&63)) != 0 {
		hits = p.verify(b, n-2, w, hits)
	}
	// a 2-byte keyword at the very start when the input is 2 bytes long is
	// covered by i == n above; nothing else can start at n-1.
	return hits
}

func (p *prefilter) verify(b []byte, at int, w uint32, hits []hit) []hit {
	word := p.bits[w>>6&(uint32(len(p.bits))-1)]
	n := int(p.rank[w>>6&(uint32(len(p.rank))-1)]) + bits.OnesCount64(word&(1<<(w&63)-1))
	for _, k := range p.cands[p.candOff[n]:p.candOff[n+1]] {
		kw := p.kws[k]
		if at+len(kw) > len(b) {
			continue
		}
		ok := true
		for j := min(p.known, len(kw)); j < len(kw); j++ {
			if lowerASCII(b[at+j]) != kw[j] {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, hit{matcher: p.kwOwner[k], start: at, end: at + len(kw)})
		}
	}
	return hits
}
