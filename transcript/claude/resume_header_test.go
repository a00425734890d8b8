package claude

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// oldResumeHeader is the resume header older importer versions wrote
// before the state's msgpack body (see resumeMagic).
func oldResumeHeader(off, lines int, kept []int) []byte {
	b := slices.Clone(resumeMagic)
	b = binary.AppendUvarint(b, uint64(off))
	b = binary.AppendUvarint(b, uint64(lines))
	b = binary.AppendUvarint(b, uint64(len(kept)))
	last := 0
	for _, l := range kept {
		b = binary.AppendUvarint(b, uint64(l-last))
		last = l
	}
	return b
}

// The header older archives' resume states start with is skipped, and
// hostile headers are refused (never a panic, never a line number outside
// the state's lines).
func TestResumeHeader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		lines := 1 + rng.IntN(500)
		off := lines * (1 + rng.IntN(100))
		var want []int
		for l := range lines {
			if rng.IntN(10) == 0 {
				want = append(want, l)
			}
		}
		b := append(oldResumeHeader(off, lines, want), 0xc0) // a msgpack nil as the body
		h, body, ok := parseResumeHeader(b)
		if !ok || h.off != off || h.lines != lines || !bytes.Equal(body, []byte{0xc0}) || !slices.Equal(h.kept, want) {
			t.Fatalf("round trip: %v %+v", ok, h)
		}
		valid := func(h resumeHint) bool {
			return slices.IsSorted(h.kept) && (len(h.kept) == 0 || (h.kept[0] >= 0 && h.kept[len(h.kept)-1] < h.lines))
		}
		for i := range len(b) - 1 {
			if h, _, ok := parseResumeHeader(b[:i]); ok && !valid(h) {
				t.Fatalf("cut at %d: kept lines %v of %d", i, h.kept, h.lines)
			}
		}
		for range 20 {
			c := slices.Clone(b)
			c[rng.IntN(len(c))] = byte(rng.IntN(256))
			if h, _, ok := parseResumeHeader(c); ok && !valid(h) {
				t.Fatalf("mutated: kept lines %v of %d", h.kept, h.lines)
			}
		}
	}
	if _, body, ok := parseResumeHeader([]byte{0x80}); ok || !bytes.Equal(body, []byte{0x80}) {
		t.Fatal("a state without a header")
	}
	// Numbers far beyond the input allocate nothing for them.
	huge := append(slices.Clone(resumeMagic), binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, 1<<34), 1<<33), 1)...)
	huge = append(huge, 5)
	if h, _, ok := parseResumeHeader(huge); !ok || !slices.Equal(h.kept, []int{5}) || h.lines != 1<<33 {
		t.Fatalf("huge header: %v %+v", ok, h)
	}
}

// Any bytes as a resume state: the header parses or is refused, never a
// panic or a line outside the state's lines.
func FuzzResumeHeader(f *testing.F) {
	f.Add(oldResumeHeader(1000, 10, []int{3}))
	f.Add([]byte("B10R"))
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, _, ok := parseResumeHeader(b)
		if !ok {
			return
		}
		if !slices.IsSorted(h.kept) || (len(h.kept) > 0 && (h.kept[0] < 0 || h.kept[len(h.kept)-1] >= h.lines)) || len(h.kept) > len(b) {
			t.Fatalf("kept lines %v of %d", h.kept, h.lines)
		}
	})
}
