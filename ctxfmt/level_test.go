package ctxfmt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Level
		err  bool
	}{
		{in: "fastest", want: LevelFastest},
		{in: "fast", want: LevelFastest},
		{in: "", want: LevelDefault},
		{in: " Default ", want: LevelDefault},
		{in: "better", want: LevelBetter},
		{in: "best", want: LevelBest},
		{in: "max", want: LevelMax},
		{in: "MAX", want: LevelMax},
		{in: "1", want: LevelFastest},
		{in: "3", want: LevelDefault},
		{in: "9", want: LevelBetter},
		{in: "15", want: LevelBest},
		{in: "16", want: LevelMax},
		{in: "19", want: LevelMax},
		{in: "22", want: LevelMax},
		{in: "0", err: true},
		{in: "23", err: true},
		{in: "ultra", err: true},
	} {
		got, err := ParseLevel(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
	for _, l := range []Level{LevelFastest, LevelDefault, LevelBetter, LevelBest, LevelMax} {
		back, err := ParseLevel(l.String())
		if err != nil || back != l {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", l.String(), back, err, l)
		}
	}
	if Level(0).String() != "default" || Level(6).String() != "default" || LevelMax.String() != "max" {
		t.Errorf("String: 0 → %q, 6 → %q, max → %q", Level(0), Level(6), LevelMax)
	}
}

func TestLevelFromZstd(t *testing.T) {
	want := map[int]Level{-5: LevelFastest, 0: LevelFastest, 1: LevelFastest, 2: LevelFastest,
		3: LevelDefault, 5: LevelDefault, 6: LevelBetter, 9: LevelBetter, 10: LevelBest, 15: LevelBest,
		16: LevelMax, 19: LevelMax, 22: LevelMax, 40: LevelMax}
	for n, l := range want {
		if got := LevelFromZstd(n); got != l {
			t.Errorf("LevelFromZstd(%d) = %s, want %s", n, got, l)
		}
	}
}

// transcriptPayload is deterministic JSONL shaped like a Claude Code
// transcript: ids, timestamps, repeated keys, prose and code.
func transcriptPayload(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 19))
	words := []string{"the", "test", "fails", "because", "config", "is", "nil", "func", "return", "err", "if",
		"ctxfmt", "segment", "reader", "writer", "build", "go", "run", "./...", "package", "main", "import",
		"file", "line", "handler", "error", "value", "string", "bytes", "index", "checksum", "we", "need", "to"}
	var b bytes.Buffer
	prev := fmt.Sprintf("%016x", rng.Uint64())
	for i := 0; b.Len() < n; i++ {
		id := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint64()&0xffffffffffff)
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&b, `{"parentUuid":"%s","isSidechain":false,"userType":"external","cwd":"/home/dev/project","sessionId":"4d5611e5-241a-462a-8d15-5122611a9569","version":"2.0.%d","type":"%s","message":{"role":"%s","content":[{"type":"text","text":"`,
			prev, rng.IntN(40), role, role)
		for range 10 + rng.IntN(120) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, `"}]},"uuid":"%s","timestamp":"2026-11-%02dT%02d:%02d:%02d.%03dZ"}`+"\n",
			id, 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1000))
		prev = id
	}
	return b.Bytes()[:n]
}

// frameInfo decodes a Zstandard frame header with klauspost.
func frameInfo(t *testing.T, frame []byte) zstd.Header {
	t.Helper()
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		t.Fatalf("frame header: %v", err)
	}
	return h
}

// independentDecode decodes a stored Zstandard segment with a fresh,
// strict klauspost decoder (not the reader's), checking the content
// checksum.
func independentDecode(t *testing.T, stored []byte) []byte {
	t.Helper()
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(stored, nil)
	if err != nil {
		t.Fatalf("klauspost decode: %v", err)
	}
	return out
}

// zstdSegmentFile writes payload as one Zstandard segment at level l and
// returns the file, checking that it round-trips.
func zstdSegmentFile(t *testing.T, l Level, payload []byte) []byte {
	t.Helper()
	b := build(t, WriterOptions{Codec: CodecZstd, Level: l}, seg{t: TypeRawTranscript, p: payload})
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ReadSegment(0)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("level %s: round trip: %v", l, err)
	}
	return b
}

// storedSegment returns segment 0's stored bytes of an unencrypted file.
func storedSegment(t *testing.T, file []byte) []byte {
	t.Helper()
	r, err := open(t, file, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	si := r.Segments()[0]
	if si.Codec != CodecZstd {
		t.Fatalf("segment stored with %s", si.Codec)
	}
	return file[si.Offset : si.Offset+si.StoredLen]
}

// TestLevelMax holds in every build: LevelMax round-trips, its frames are
// standard (one frame, content size, content checksum, window ≤ 8 MiB,
// decoded by a plain klauspost decoder), and a segment's bytes equal
// LevelBest's.
func TestLevelMax(t *testing.T) {
	payloads := map[string][]byte{"synthetic": transcriptPayload(400_000, 2)}
	if dir := corpusDir(); dir != "" {
		names, _ := filepath.Glob(filepath.Join(dir, "claude", "*.jsonl"))
		sort.Strings(names)
		if len(names) > 0 {
			data, err := os.ReadFile(names[0])
			if err != nil {
				t.Fatal(err)
			}
			payloads["corpus"] = data[:min(len(data), 1<<20)]
		}
	}
	for name, p := range payloads {
		best := storedSegment(t, zstdSegmentFile(t, LevelBest, p))
		maxFile := zstdSegmentFile(t, LevelMax, p)
		mx := storedSegment(t, maxFile)
		h := frameInfo(t, mx)
		if !h.HasCheckSum || !h.HasFCS || h.FrameContentSize != uint64(len(p)) || h.DictionaryID != 0 || h.WindowSize > 8<<20 {
			t.Errorf("%s: frame header %+v", name, h)
		}
		if got := independentDecode(t, mx); !bytes.Equal(got, p) {
			t.Errorf("%s: klauspost decodes LevelMax to other bytes", name)
		}
		if !bytes.Equal(mx, best) {
			t.Errorf("%s: LevelMax %d bytes differ from LevelBest's %d", name, len(mx), len(best))
		}
		if err := Verify(bytes.NewReader(maxFile), int64(len(maxFile)), VerifyOptions{Deep: true}); err != nil {
			t.Errorf("%s: deep verify: %v", name, err)
		}
	}
}

// TestLevelMaxConcurrent: many segments compressed concurrently give the
// same bytes as one at a time.
func TestLevelMaxConcurrent(t *testing.T) {
	var segs []seg
	for i := range 12 {
		segs = append(segs, seg{t: TypeRawTranscript, p: transcriptPayload(40_000+i*1000, uint64(10+i))})
	}
	one := build(t, WriterOptions{Codec: CodecZstd, Level: LevelMax, Concurrency: 1}, segs...)
	many := build(t, WriterOptions{Codec: CodecZstd, Level: LevelMax, Concurrency: 16}, segs...)
	if !bytes.Equal(one, many) {
		t.Fatal("output depends on concurrency")
	}
	// Prepare (used concurrently by the archive layer) gives the same bytes.
	r, err := open(t, many, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(segs))
	for i, s := range segs {
		go func() {
			p, err := Prepare(CodecZstd, LevelMax, s.p)
			si := r.Segments()[i]
			if err == nil && !bytes.Equal(p.comp, many[si.Offset:si.Offset+si.StoredLen]) {
				err = fmt.Errorf("segment %d: Prepare gives other bytes", i)
			}
			errs <- err
		}()
	}
	for range segs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
