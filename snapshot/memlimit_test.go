package snapshot

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestLimitMemory: a save holds the runtime to saveMemory beside the
// transcript's size and restores the limit it found; it never raises a
// lower limit, and a transcript it cannot stat leaves the limit alone.
func TestLimitMemory(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(tr, make([]byte, 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, tc := range []struct {
		name       string
		transcript string
		before     int64
		during     int64
	}{
		{"no limit set", tr, math.MaxInt64, saveMemory + 1000},
		{"a higher limit", tr, 1 << 40, saveMemory + 1000},
		{"a lower limit kept", tr, 32 << 20, 32 << 20},
		{"missing transcript", filepath.Join(dir, "missing"), math.MaxInt64, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(tc.before)
			restore := LimitMemory(tc.transcript)
			if got := debug.SetMemoryLimit(-1); got != tc.during {
				t.Errorf("limit during the save = %d, want %d", got, tc.during)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != tc.before {
				t.Errorf("limit after the save = %d, want %d (restored)", got, tc.before)
			}
		})
	}
}

// TestLimitMemoryConcurrent: saves running at once in one process share
// one limit, saveMemory beside the sum of their transcripts, whichever
// finishes first; the last restores the limit found by the first.
func TestLimitMemoryConcurrent(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for p, n := range map[string]int{a: 1000, b: 5000} {
		if err := os.WriteFile(p, make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	doneA := LimitMemory(a)
	if got := limit(); got != saveMemory+1000 {
		t.Fatalf("one save: limit %d, want %d", got, saveMemory+1000)
	}
	doneB := LimitMemory(b)
	if got := limit(); got != saveMemory+6000 {
		t.Fatalf("two saves: limit %d, want %d", got, saveMemory+6000)
	}
	doneA()
	doneA() // a second call changes nothing
	if got := limit(); got != saveMemory+5000 {
		t.Fatalf("the first save done: limit %d, want %d", got, saveMemory+5000)
	}
	doneB()
	if got := limit(); got != math.MaxInt64 {
		t.Fatalf("both done: limit %d, want the limit found (%d)", got, int64(math.MaxInt64))
	}
}

// TestMemFile: the archive buffer SaveCurrent verifies and writes holds
// exactly the bytes written, whatever the sizes of the writes, and reads
// them back at any offset across its blocks.
func TestMemFile(t *testing.T) {
	data := make([]byte, 3*memBlock+12345)
	for i := range data {
		data[i] = byte(i * 7 / 5)
	}
	for _, tc := range []struct {
		name  string
		write int // bytes per Write
	}{
		{"one write", len(data)},
		{"small writes", 1000},
		{"block-sized writes", memBlock},
		{"writes straddling blocks", memBlock/3 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m memFile
			for off := 0; off < len(data); off += tc.write {
				p := data[off:min(off+tc.write, len(data))]
				if n, err := m.Write(p); n != len(p) || err != nil {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if m.size != int64(len(data)) {
				t.Fatalf("size %d, want %d", m.size, len(data))
			}
			var out bytes.Buffer
			if n, err := m.WriteTo(&out); n != m.size || err != nil || !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("WriteTo: %d bytes, %v; equal %v", n, err, bytes.Equal(out.Bytes(), data))
			}
			for _, at := range []int64{0, 1, 64<<10 - 1, memBlock - 5, 2*memBlock + 7, m.size - 100} {
				p := make([]byte, 300)
				n, err := m.ReadAt(p, at)
				want := data[at:min(at+300, m.size)]
				if n != len(want) || !bytes.Equal(p[:n], want) {
					t.Fatalf("ReadAt(%d): %d bytes, want %d", at, n, len(want))
				}
				if (n < len(p)) != (err == io.EOF) {
					t.Fatalf("ReadAt(%d): %d bytes, err %v", at, n, err)
				}
			}
			if _, err := m.ReadAt(make([]byte, 1), -1); err == nil {
				t.Fatal("ReadAt(-1): no error")
			}
		})
	}
}
