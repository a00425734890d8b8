package ctxfmt

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ben10ctx/ben10/internal/testcorpus"
)

// corpusDir is the shared session corpus, or "" when absent.
func corpusDir() string {
	d, _ := testcorpus.Find("")
	return d
}

const benchPayloadSize = 10 << 20

// realisticPayload concatenates the corpus's Claude Code transcripts
// (repeating them if needed) to 10 MiB.
func realisticPayload(b *testing.B) []byte {
	dir := corpusDir()
	if dir == "" {
		b.Skip("no session corpus (set BEN10_CORPUS)")
	}
	names, _ := filepath.Glob(filepath.Join(dir, "claude", "*.jsonl"))
	sort.Strings(names)
	var buf bytes.Buffer
	for buf.Len() < benchPayloadSize && len(names) > 0 {
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			buf.Write(data)
		}
	}
	if buf.Len() == 0 {
		b.Skip("no Claude transcripts in the corpus")
	}
	return buf.Bytes()[:min(buf.Len(), benchPayloadSize)]
}

func benchWrite(b *testing.B, c Codec, l Level) {
	p := realisticPayload(b)
	b.SetBytes(int64(len(p)))
	var out bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		w, _ := NewWriter(&out, WriterOptions{Codec: c, Level: l, Concurrency: 1})
		w.Add(TypeConversation, p)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(p))/float64(out.Len()), "ratio")
}

func benchRead(b *testing.B, c Codec, l Level) {
	p := realisticPayload(b)
	var out bytes.Buffer
	w, _ := NewWriter(&out, WriterOptions{Codec: c, Level: l})
	w.Add(TypeConversation, p)
	w.Close()
	file := out.Bytes()
	b.SetBytes(int64(len(p)))
	b.ResetTimer()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSegment(0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite: one segment of real transcript text at each level.
func BenchmarkWrite(b *testing.B) {
	b.Run("zstd-fastest", func(b *testing.B) { benchWrite(b, CodecZstd, LevelFastest) })
	b.Run("zstd-default", func(b *testing.B) { benchWrite(b, CodecZstd, LevelDefault) })
	b.Run("zstd-better", func(b *testing.B) { benchWrite(b, CodecZstd, LevelBetter) })
	b.Run("zstd-best", func(b *testing.B) { benchWrite(b, CodecZstd, LevelBest) })
	b.Run("lz4-default", func(b *testing.B) { benchWrite(b, CodecLZ4, LevelDefault) })
}

func BenchmarkRead(b *testing.B) {
	b.Run("zstd-default", func(b *testing.B) { benchRead(b, CodecZstd, LevelDefault) })
	b.Run("lz4-default", func(b *testing.B) { benchRead(b, CodecLZ4, LevelDefault) })
}

// BenchmarkCLI runs the reference command-line tools on the same bytes,
// in the same run, single-threaded, output discarded. Process start-up is
// included (about 1 ms, under 5% of these runs).
func BenchmarkCLI(b *testing.B) {
	p := realisticPayload(b)
	dir := b.TempDir()
	raw := filepath.Join(dir, "payload")
	if err := os.WriteFile(raw, p, 0o600); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, name string, args ...string) {
		if _, err := exec.LookPath(name); err != nil {
			b.Skipf("%s not installed", name)
		}
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			cmd := exec.Command(name, args...)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	}
	prepare := func(b *testing.B, name string, args ...string) {
		if _, err := exec.LookPath(name); err != nil {
			b.Skipf("%s not installed", name)
		}
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v %s", name, err, out)
		}
	}
	b.Run("zstd-3", func(b *testing.B) { run(b, "zstd", "-3", "-T1", "-q", "-c", raw) })
	b.Run("zstd-19", func(b *testing.B) { run(b, "zstd", "-19", "-T1", "-q", "-c", raw) })
	b.Run("zstd-d", func(b *testing.B) {
		prepare(b, "zstd", "-3", "-q", "-f", "-o", raw+".zst", raw)
		run(b, "zstd", "-d", "-q", "-c", raw+".zst")
	})
	b.Run("lz4", func(b *testing.B) { run(b, "lz4", "-1", "-q", "-c", raw) })
	b.Run("lz4-d", func(b *testing.B) {
		prepare(b, "lz4", "-1", "-q", "-f", raw, raw+".lz4")
		run(b, "lz4", "-d", "-q", "-c", raw+".lz4")
	})
}

// BenchmarkOpenReadSmall opens an archive file and reads its small
// metadata segment; the archive's size must not matter.
func BenchmarkOpenReadSmall(b *testing.B) {
	for _, size := range []int{1 << 20, 100 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			name := filepath.Join(b.TempDir(), "a.ctx")
			f, err := os.Create(name)
			if err != nil {
				b.Fatal(err)
			}
			w, _ := NewWriter(f, WriterOptions{Codec: CodecZstd})
			w.Add(TypeMetadata, []byte(`{"session":"bench","project":"/home/dev/p"}`))
			w.AddWith(TypeFileContents, randomPayload(size, 1), SegmentOptions{Codec: CodecNone})
			w.Add(TypeConversation, textPayload(4096, 2))
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			f.Close()
			file, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("memory", func(b *testing.B) {
				for b.Loop() {
					r, err := NewReader(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := r.ReadSegment(0); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("file", func(b *testing.B) {
				for b.Loop() {
					rc, err := OpenFile(name, ReaderOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := rc.ReadSegment(0); err != nil {
						b.Fatal(err)
					}
					rc.Close()
				}
			})
		})
	}
}
