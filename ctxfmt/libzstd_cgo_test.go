//go:build cgo

package ctxfmt

import (
	"bytes"
	"testing"

	ddzstd "github.com/DataDog/zstd"
)

// TestLibzstdMaxLevels: LevelMax compresses at libzstd level 22 up to
// maxUltraInput bytes and at level 19 above, and either way the frame's
// window stays within 8 MiB (docs/FORMAT.md), so a decoder needs no more
// memory than for a level-19 frame.
func TestLibzstdMaxLevels(t *testing.T) {
	lz := libzstdLevels()[LevelMax]
	for _, tc := range []struct{ n, want int }{
		{1, 22}, {1 << 20, 22}, {maxUltraInput, 22}, {maxUltraInput + 1, 19}, {256 << 20, 19},
	} {
		if got := lz.levelFor(tc.n); got != tc.want {
			t.Errorf("levelFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	if got := libzstdLevels()[LevelDefault].levelFor(1); got != 3 {
		t.Errorf("default level: %d, want 3", got)
	}
	// Both sides of the boundary, and an input just over 4 MiB (level 22
	// would pick a 16 MiB window for it without a known content size).
	for _, n := range []int{4<<20 + 1, maxUltraInput + 1} {
		p := bytes.Repeat(textPayload(64<<10, uint64(n)), n/(64<<10)+1)[:n]
		out, ok, err := libzstdCompress(LevelMax, p, nil)
		if !ok || err != nil {
			t.Fatalf("%d bytes: ok %v, err %v", n, ok, err)
		}
		h := frameInfo(t, out)
		if h.WindowSize > 8<<20 || !h.HasFCS || h.FrameContentSize != uint64(n) || !h.HasCheckSum {
			t.Errorf("%d bytes: frame header %+v", n, h)
		}
		want, err := ddzstd.CompressLevel(nil, p, lz.levelFor(n))
		if err != nil {
			t.Fatal(err)
		}
		if wc, err := withContentChecksum(want, p); err != nil || !bytes.Equal(out, wc) {
			t.Errorf("%d bytes: not libzstd level %d's frame (err %v)", n, lz.levelFor(n), err)
		}
		if got := independentDecode(t, out); !bytes.Equal(got, p) {
			t.Errorf("%d bytes: decodes to other bytes", n)
		}
	}
}
