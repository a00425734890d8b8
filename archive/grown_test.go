package archive_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// genLines is a transcript-like file of n JSON lines of random lengths
// (some long, some empty objects, some with "\r\n" endings).
func genLines(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		pad := bytes.Repeat([]byte{'a' + byte(i%26)}, rng.IntN(3000))
		if rng.IntN(40) == 0 {
			pad = bytes.Repeat([]byte{'z'}, 150_000+rng.IntN(100_000))
		}
		fmt.Fprintf(&b, `{"type":"user","n":%d,"pad":%q}`, i, pad)
		if rng.IntN(10) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// saveRaw writes an archive holding data as raw file name (chunked at
// chunk bytes) and opens it.
func saveRaw(t *testing.T, name string, data []byte, chunk int) *archive.Archive {
	t.Helper()
	st := &archive.State{Raw: []archive.RawFile{{Name: name, Data: data}}}
	var buf bytes.Buffer
	if err := archive.Encode(&buf, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk}); err != nil {
		t.Fatal(err)
	}
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func lineStartsOf(b []byte) []int {
	var s []int
	for off := 0; off < len(b); {
		s = append(s, off)
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return s
}

// ReadGrown gives, for a grown copy of an archived file, the file's bytes
// from From on, every line start, the kept lines and nothing else; it
// declines a copy whose prefix changed or that shrank; an incremental save
// of what it read is the archive a save of the whole file gives.
func TestReadGrown(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dir := t.TempDir()
	read := 0
	for round := range 40 {
		full := genLines(rng, 50+rng.IntN(150))
		starts := lineStartsOf(full)
		cutLine := 1 + rng.IntN(len(starts)-1)
		old := full[:starts[cutLine]]
		chunk := []int{4 << 10, 64 << 10, 1 << 20, 0}[rng.IntN(4)]
		a := saveRaw(t, "s.jsonl", old, chunk)
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, full, 0o600); err != nil {
			t.Fatal(err)
		}
		keepSet := map[int]bool{}
		for range rng.IntN(20) {
			keepSet[rng.IntN(cutLine)] = true
		}
		keep := func(l int) bool { return keepSet[l] }
		prefix := len(old)
		g, ok, err := a.ReadGrown(p, "s.jsonl", prefix, chunk, 1<<30, keep)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			// Only when no chunk can be copied (a short single chunk).
			continue
		}
		read++
		if len(g.Data) != len(full) || !bytes.Equal(g.Data[g.From:], full[g.From:]) || g.From > prefix {
			t.Fatalf("round %d: data from %d differs (len %d of %d)", round, g.From, len(g.Data), len(full))
		}
		if !slices.Equal(g.Starts, starts) {
			t.Fatalf("round %d: line starts differ", round)
		}
		for l := range starts {
			line, ok := g.Line(l)
			end := len(full)
			if l+1 < len(starts) {
				end = starts[l+1] - 1
			}
			want := full[starts[l]:end]
			switch {
			case starts[l] >= g.From || keepSet[l]:
				if !ok || !bytes.Equal(line, want) {
					t.Fatalf("round %d: line %d: %v %.40q, want %.40q", round, l, ok, line, want)
				}
			case ok:
				t.Fatalf("round %d: line %d neither kept nor after From (%d) is given", round, l, g.From)
			}
		}
		// An incremental save of the grown data is a full save's archive.
		st := &archive.State{Raw: []archive.RawFile{{Name: "s.jsonl", Data: g.Data}}}
		var inc, whole bytes.Buffer
		stats, err := archive.EncodeWithStats(&inc, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk, Previous: a})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if stats.CopiedSegments == 0 {
			t.Fatalf("round %d: nothing copied", round)
		}
		if err := archive.Encode(&whole, &archive.State{Raw: []archive.RawFile{{Name: "s.jsonl", Data: full}}}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk, Previous: a}); err != nil {
			t.Fatal(err)
		}
		checkRawEqual(t, inc.Bytes(), full)
		if !bytes.Equal(withoutTimes(t, inc.Bytes()), withoutTimes(t, whole.Bytes())) {
			t.Fatalf("round %d: the archive differs from one saved from the whole file", round)
		}
		// The encoder refuses the data with another chunk size, which
		// would have it read the missing bytes.
		if other := chunk * 2; chunk != 0 && g.From > 0 {
			var x bytes.Buffer
			st := &archive.State{Raw: []archive.RawFile{{Name: "s.jsonl", Data: g.Data}}}
			if _, err := archive.EncodeWithStats(&x, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: other, Previous: a}); err == nil {
				checkRawEqual(t, x.Bytes(), full) // only when it copies at least up to From
			}
		}
		// Without the previous archive, it must not be used at all.
		if _, err := archive.EncodeWithStats(io.Discard, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk}); err == nil && g.From > 0 {
			t.Fatalf("round %d: a GrownFile's data encoded without its previous archive", round)
		}
		// A changed byte anywhere in the prefix, or a shorter file: declined.
		bad := slices.Clone(full)
		i := rng.IntN(prefix)
		bad[i] ^= 0x20
		if err := os.WriteFile(p, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.ReadGrown(p, "s.jsonl", prefix, chunk, 1<<30, keep); ok {
			t.Fatalf("round %d: a copy changed at byte %d of %d accepted", round, i, prefix)
		}
		if err := os.WriteFile(p, full[:prefix-1], 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.ReadGrown(p, "s.jsonl", prefix, chunk, 1<<30, keep); ok {
			t.Fatalf("round %d: a shorter copy accepted", round)
		}
	}
	if read < 15 {
		t.Fatalf("ReadGrown read %d copies of 40", read)
	}
}

// checkRawEqual checks that archive b stores raw file data.
func checkRawEqual(t *testing.T, b, data []byte) {
	t.Helper()
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := a.RawFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 1 || !bytes.Equal(raw[0].Data, data) {
		t.Fatal("the archive's raw file is not the file")
	}
}

// withoutTimes re-encodes nothing: archives written with the same Now
// are compared; this returns b's raw segments' payloads and manifest.
func withoutTimes(t *testing.T, b []byte) []byte {
	t.Helper()
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, s := range a.Container().Segments() {
		if s.Type == ctxfmt.TypeMetadata {
			continue
		}
		p, err := a.Container().ReadSegment(s.Index)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s %d\n", s.Type, len(p))
		out.Write(p)
	}
	fmt.Fprintf(&out, "%+v", a.RawFileInfos())
	return out.Bytes()
}

// A file being appended to while ReadGrown reads it (as Claude Code does)
// reads as one of its states: a prefix of the final file, whole lines or
// a partial last one.
func TestReadGrownWhileAppended(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	base := genLines(rng, 300)
	a := saveRaw(t, "s.jsonl", base, 64<<10)
	more := genLines(rng, 400)
	if err := os.WriteFile(p, base, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for off := 0; off < len(more); {
			n := min(len(more)-off, 1+rng.IntN(20000))
			if _, err := f.Write(more[off : off+n]); err != nil {
				return
			}
			off += n
			time.Sleep(100 * time.Microsecond)
		}
	}()
	final := append(slices.Clone(base), more...)
	reads := 0
	for {
		select {
		case <-done:
			if reads < 2 {
				t.Fatalf("%d reads while the file grew", reads)
			}
			return
		default:
		}
		g, ok, err := a.ReadGrown(p, "s.jsonl", len(base), 64<<10, 1<<30, func(l int) bool { return l%3 == 0 })
		if err != nil || !ok {
			t.Fatalf("read %d: %v %v", reads, ok, err)
		}
		reads++
		if len(g.Data) > len(final) || !bytes.Equal(g.Data[g.From:], final[g.From:len(g.Data)]) {
			t.Fatalf("read %d: not a prefix of the file", reads)
		}
		if !slices.Equal(g.Starts, lineStartsOf(final[:len(g.Data)])) {
			t.Fatalf("read %d: line starts differ", reads)
		}
	}
}
