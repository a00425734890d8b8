//go:build unix

package archive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// grownFixture writes an archive of old (chunked at chunk bytes) and a
// file holding old and then more lines, and returns them.
func grownFixture(t *testing.T, old []byte, chunk int) (*Archive, string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	st := &State{Raw: []RawFile{{Name: "s.jsonl", Data: old}}}
	if err := Encode(&buf, st, EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := append(slices.Clone(old), []byte("{\"type\":\"user\",\"n\":\"new\"}\n{\"type\":\"user\",\"n\":\"newer\"}\n")...)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, full, 0o600); err != nil {
		t.Fatal(err)
	}
	return a, p, full
}

func manyLines(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{\"type\":\"user\",\"n\":%d,\"pad\":%q}\n", i, bytes.Repeat([]byte{'a' + byte(i%26)}, 100+i%700))
	}
	return b.Bytes()
}

// A large prefix is mapped, not read; what ReadGrown gives is the same
// as when it streams it (a prefix below minMapped).
func TestReadGrownMapped(t *testing.T) {
	old := manyLines(2000)
	if len(old) < 2*minMapped {
		t.Fatalf("fixture of %d bytes", len(old))
	}
	a, p, full := grownFixture(t, old, 256<<10)
	maps := 0
	grownMapped = func() { maps++ }
	defer func() { grownMapped = nil }()
	keep := func(l int) bool { return l%7 == 3 }
	g, ok, err := a.ReadGrown(p, "s.jsonl", len(old), 256<<10, 1<<30, keep)
	if err != nil || !ok || maps != 1 {
		t.Fatalf("ReadGrown: %v %v, mapped %d times", ok, err, maps)
	}
	if g.From < minMapped || !bytes.Equal(g.Data[g.From:], full[g.From:]) {
		t.Fatalf("data from %d differs", g.From)
	}
	starts := []int{0}
	for i, c := range full[:len(full)-1] {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	if !slices.Equal(g.Starts, starts) {
		t.Fatal("line starts differ")
	}
	for l := range starts {
		got, ok := g.Line(l)
		end := len(full) // the last line keeps its newline
		if l+1 < len(starts) {
			end = starts[l+1] - 1
		}
		if kept := starts[l] >= g.From || keep(l); ok != kept || (ok && !bytes.Equal(got, full[starts[l]:end])) {
			t.Fatalf("line %d: %v %.30q", l, ok, got)
		}
	}
	// A changed byte in the mapped prefix is found.
	changed := slices.Clone(full)
	changed[minMapped/2]++
	if err := os.WriteFile(p, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.ReadGrown(p, "s.jsonl", len(old), 256<<10, 1<<30, keep); ok || err != nil {
		t.Fatalf("changed prefix: %v %v", ok, err)
	}
}

// A file truncated while its prefix is mapped faults on the bytes it lost:
// ReadGrown reports it not grown (the save reads it whole), never crashes.
func TestReadGrownMappedTruncated(t *testing.T) {
	old := manyLines(2000)
	a, p, _ := grownFixture(t, old, 256<<10)
	for _, keepTo := range []int{0, 4096, len(old) / 2} {
		if err := os.WriteFile(p, append(slices.Clone(old), "{}\n"...), 0o600); err != nil {
			t.Fatal(err)
		}
		grownMapped = func() {
			if err := os.Truncate(p, int64(keepTo)); err != nil {
				t.Error(err)
			}
		}
		g, ok, err := a.ReadGrown(p, "s.jsonl", len(old), 256<<10, 1<<30, func(int) bool { return true })
		grownMapped = nil
		if ok || g != nil {
			t.Fatalf("truncated to %d: read as grown (%v)", keepTo, err)
		}
	}
}
