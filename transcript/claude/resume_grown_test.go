package claude

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// The resume header round-trips, and hostile headers are refused (never
// a panic, never a line number outside the state's lines).
func TestResumeHeader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		lines := 1 + rng.IntN(500)
		rs := &resumeState{Off: lines * (1 + rng.IntN(100)), Lines: lines}
		for range rng.IntN(40) {
			l := rng.IntN(lines)
			rs.Msgs = append(rs.Msgs, archive.Message{Ref: archive.RawRef{Line: l}, TextSpans: []archive.Span{{Off: 1, Len: 1}}})
		}
		b := appendResumeHeader(nil, rs, 0)
		b = append(b, 0xc0) // a msgpack nil as the body
		h, body, ok := parseResumeHeader(b)
		var want []int
		for l, k := range restoreLines(rs, 0) {
			if k {
				want = append(want, l)
			}
		}
		if !ok || h.off != rs.Off || h.lines != rs.Lines || !bytes.Equal(body, []byte{0xc0}) || !slices.Equal(h.kept, want) {
			t.Fatalf("round trip: %v %+v", ok, h)
		}
		keep := h.keeper()
		for l := range lines {
			if keep(l) != slices.Contains(want, l) {
				t.Fatalf("keeper: line %d", l)
			}
		}
		// Asked out of order too (each line twice, the second time after
		// a later one).
		keep = h.keeper()
		for l := range lines {
			for _, q := range []int{l, max(l-1, 0), l} {
				if keep(q) != slices.Contains(want, q) {
					t.Fatalf("keeper out of order: line %d", q)
				}
			}
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

// A main file read without a line the restore needs is not restored from
// (the save then reads the files whole): restore reports it, never reads
// the missing bytes.
func TestRestoreNeedsItsLines(t *testing.T) {
	src := filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(src))
	cut := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	var base bytes.Buffer
	if _, _, err := Save(&base, p, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: 1024}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	prev, err := archive.Open(bytes.NewReader(base.Bytes()), int64(base.Len()), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pre := loadResume(prev)
	if pre == nil {
		t.Fatal("no resume state")
	}
	kept := restoreLines(pre, 0)
	needed := slices.Index(kept, true)
	if needed < 0 {
		t.Fatal("the state reads no line")
	}
	for _, drop := range []bool{false, true} {
		pre := loadResume(prev)
		g, ok, err := prev.ReadGrown(p, filepath.Base(p), pre.Off, 1024, MaxFileSize, func(l int) bool { return l < len(kept) && kept[l] && !(drop && l == needed) })
		if err != nil || !ok {
			t.Fatalf("ReadGrown: %v %v", ok, err)
		}
		files := []archive.RawFile{{Name: filepath.Base(p), Data: g.Data}}
		_, ok = resumeImport(files, nil, "", archive.ImportOptions{NoSubagents: true}, prev, pre, &restoredMain{grown: g})
		if g.From <= 0 {
			t.Fatal("nothing left unread")
		}
		if ok == drop {
			t.Fatalf("line %d dropped %v: restored %v", needed, drop, ok)
		}
	}
}

// Any bytes as a resume state: the header parses or is refused, never a
// panic or a line outside the state's lines.
func FuzzResumeHeader(f *testing.F) {
	rs := &resumeState{Off: 1000, Lines: 10, Msgs: []archive.Message{{Ref: archive.RawRef{Line: 3}, TextSpans: []archive.Span{{Off: 1, Len: 2}}}}}
	f.Add(appendResumeHeader(nil, rs, 0))
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
		keep := h.keeper()
		for _, l := range h.kept {
			if !keep(l) {
				t.Fatalf("line %d not kept", l)
			}
		}
	})
}
