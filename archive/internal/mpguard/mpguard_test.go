package mpguard

import (
	"bytes"
	"errors"
	"testing"
)

// TestWellFormed: a value is well formed when every length it declares
// lies within the bytes, no code is invalid and nesting stays within
// MaxDepth; WellFormed reports where the first value ends.
func TestWellFormed(t *testing.T) {
	deep := func(n int) []byte { return append(bytes.Repeat([]byte{0x91}, n), 0xc0) }
	for _, tc := range []struct {
		name string
		b    []byte
		ok   bool
		end  int
	}{
		{"empty array", []byte{0x90}, true, 1},
		{"two values", []byte{0x01, 0x02}, true, 1},
		{"map of one pair", []byte{0x81, 0xa1, 'k', 0xc3}, true, 4},
		{"nothing", nil, false, 0},
		{"array missing its element", []byte{0x91}, false, 0},
		{"array32 declaring 2^31 elements", []byte{0xdd, 0x7f, 0xff, 0xff, 0xff}, false, 0},
		{"str8 longer than the bytes", []byte{0xd9, 0x10, 'a'}, false, 0},
		{"invalid code 0xc1", []byte{0xc1}, false, 0},
		{"nested MaxDepth deep", deep(MaxDepth), true, MaxDepth + 1},
		{"nested past MaxDepth", deep(MaxDepth + 1), false, 0},
	} {
		ok, _, end := WellFormed(tc.b)
		if ok != tc.ok || (ok && end != tc.end) {
			t.Errorf("%s: WellFormed = %v, end %d; want %v, end %d", tc.name, ok, end, tc.ok, tc.end)
		}
	}
}

// TestCheckCost: nils that msgpack would allocate whole elements for are
// counted against the segment's budget; within it the check passes.
func TestCheckCost(t *testing.T) {
	nils := func(n int) []byte {
		return append([]byte{0xdd, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, bytes.Repeat([]byte{0xc0}, n)...)
	}
	type big struct{ X [4096]byte }
	for _, tc := range []struct {
		name string
		b    []byte
		v    any
		ok   bool
		is   error // the refusal wraps it (nil: any error)
	}{
		{"a thousand nil ints", nils(1000), &[]int{}, true, nil},
		{"64 Ki nil 4 KiB structs", nils(1 << 16), &[]big{}, false, ErrOverBudget},
		{"not a pointer", nils(1), []int{}, false, nil},
	} {
		_, err := CheckCost(tc.b, tc.v)
		if (err == nil) != tc.ok || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("%s: CheckCost = %v, want ok %v (wrapping %v)", tc.name, err, tc.ok, tc.is)
		}
	}
	b := nils(1 << 16)
	if used, err := CheckCost(b, &[]big{}); err == nil || used <= segmentBudget(len(b)) {
		t.Errorf("CheckCost of 64 Ki 4 KiB structs: counted %d, budget %d, error %v", used, segmentBudget(len(b)), err)
	}
	if used, err := CheckCost(nils(1000), &[]int{}); err != nil || used != 1000*8 {
		t.Errorf("CheckCost of a thousand nil ints: counted %d, error %v; want 8000 bytes", used, err)
	}
}
