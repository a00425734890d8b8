package archive_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// The benchmarks below back the archive section of docs/PERFORMANCE.md;
// the CLI comparisons against zstd are in scripts/bench-archive.sh.

func benchSession(b *testing.B) string {
	return filepath.Join(archiveCorpusDir(b, "claude"), "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
}

func zstdOpts() archive.EncodeOptions { return archive.EncodeOptions{Codec: ctxfmt.CodecZstd} }

func redactOpts(o archive.EncodeOptions) archive.EncodeOptions {
	r := redact.Default()
	o.RedactLine = func(line []byte) []byte { out, _ := r.JSONLine(line); return out }
	o.RedactText = func(s string) string { out, _ := r.String(s); return out }
	return o
}

// BenchmarkImport is the model import of one 3 MB corpus session (main
// file and subagents).
func BenchmarkImport(b *testing.B) {
	p := benchSession(b)
	b.SetBytes(sessionBytes(b, p))
	for b.Loop() {
		if _, err := claude.Import(context.Background(), p, archive.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func sessionBytes(b *testing.B, p string) int64 {
	files, err := claude.ReadFiles(p, archive.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		n += int64(len(f.Data))
	}
	return n
}

// BenchmarkSave is what `ben10 context save` does (claude.Save: import and
// raw compression overlapped), without and with redaction; "sequential"
// is Import followed by Encode.
func BenchmarkSave(b *testing.B) {
	p := benchSession(b)
	n := sessionBytes(b, p)
	for _, c := range []struct {
		name string
		opts archive.EncodeOptions
	}{{"plain", zstdOpts()}, {"redacted", redactOpts(zstdOpts())}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				if _, _, err := claude.Save(context.Background(), io.Discard, p, archive.ImportOptions{}, c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("sequential", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			st, err := claude.Import(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if err := archive.Encode(context.Background(), io.Discard, st, zstdOpts()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkIncrementalSave saves the session after 20 new lines, with the
// archive of the session without them as EncodeOptions.Previous
// ("incremental") and from scratch ("full"): "main" is the main file alone
// (ImportOptions.NoSubagents), "session" the main file with its subagent
// files, as `ben10 context save` reads them, and "session-redacted" the
// same with redaction on (the default of the CLI and the hooks).
func BenchmarkIncrementalSave(b *testing.B) {
	p := benchSession(b)
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	cut := len(data)
	for range 21 {
		cut = bytes.LastIndexByte(data[:cut-1], '\n') + 1
	}
	redacted := redactOpts(zstdOpts())
	redacted.RedactFingerprint = "bench"
	for _, files := range []struct {
		name string
		opt  archive.ImportOptions
		enc  archive.EncodeOptions
	}{
		{"main", archive.ImportOptions{NoSubagents: true}, zstdOpts()},
		{"session", archive.ImportOptions{}, zstdOpts()},
		{"session-redacted", archive.ImportOptions{}, redacted},
	} {
		b.Run(files.name, func(b *testing.B) {
			dir := b.TempDir()
			tp := filepath.Join(dir, filepath.Base(p))
			if !files.opt.NoSubagents {
				copySubagents(b, p, tp)
			}
			if err := os.WriteFile(tp, data[:cut], 0o600); err != nil {
				b.Fatal(err)
			}
			var base bytes.Buffer
			if _, _, err := claude.Save(context.Background(), &base, tp, files.opt, files.enc); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(tp, data, 0o600); err != nil {
				b.Fatal(err)
			}
			prev, err := archive.Open(bytes.NewReader(base.Bytes()), int64(base.Len()), archive.OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range []struct {
				name string
				prev *archive.Archive
			}{{"incremental", prev}, {"full", nil}} {
				b.Run(c.name, func(b *testing.B) {
					o := files.enc
					o.Previous = c.prev
					for b.Loop() {
						_, st, err := claude.Save(context.Background(), io.Discard, tp, files.opt, o)
						if err != nil {
							b.Fatal(err)
						}
						if c.prev != nil && st.CopiedSegments == 0 {
							b.Fatal("nothing copied")
						}
					}
				})
			}
		})
	}
}

// copySubagents copies the subagent files of the session at src next to
// the transcript path dst.
func copySubagents(b *testing.B, src, dst string) {
	from := filepath.Join(strings.TrimSuffix(src, ".jsonl"), "subagents")
	to := filepath.Join(strings.TrimSuffix(dst, ".jsonl"), "subagents")
	ents, err := os.ReadDir(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		d, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), d, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenDigest opens an archive, reads its metadata and builds the
// recovery digest from the stored recall, for a 1 MB and a 100 MB
// transcript (corpus sessions repeated with fresh UUIDs).
// appendScreenshots appends to the transcript at path n bytes (about) of
// tool results holding one base64 PNG screenshot each, 1 MiB of random
// bytes encoded: content no compressor shrinks below 3/4, so the archive
// grows with it while the session's model and recall barely do.
func appendScreenshots(path string, n int64) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 3<<18)
	for i := 0; int64(i)*(1<<20) < n; i++ {
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shots","sessionId":"00000000-0000-4000-8000-000000000000","version":"2.1.39","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_shot%04d","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}]},"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-02T10:00:00.000Z"}`+"\n",
			i, base64.StdEncoding.EncodeToString(raw), i)
		if _, err := f.WriteString(line); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func BenchmarkOpenDigest(b *testing.B) {
	corpus := archiveCorpusDir(b, "claude")
	for _, c := range []struct {
		name string
		size int64
		// images is how many bytes of base64 screenshots (incompressible
		// tool results, as real transcripts carry) are appended to the
		// transcript: the 100MB-archive case is a 10 MB session whose
		// archive is over 100 MB, to compare against the 10 MB case's
		// ≈ 1 MB archive (the "100 MB archive vs 1 MB archive").
		images int64
	}{{"1MB", 1 << 20, 0}, {"10MB", 10 << 20, 0}, {"100MB", 100 << 20, 0}, {"100MB-archive", 10 << 20, 136 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			tp, err := benchdata.Transcript(corpus, dir, c.size)
			if err != nil {
				b.Fatal(err)
			}
			if c.images > 0 {
				if err := appendScreenshots(tp, c.images); err != nil {
					b.Fatal(err)
				}
			}
			ap := filepath.Join(dir, "a.ctx")
			f, err := os.Create(ap)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := claude.Save(context.Background(), f, tp, archive.ImportOptions{}, zstdOpts()); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			if err := os.Remove(tp); err != nil {
				b.Fatal(err)
			}
			var recallBytes int64
			if a, err := archive.OpenFile(ap, archive.OpenOptions{}); err == nil {
				for _, s := range a.Container().Segments() {
					if s.Type == ctxfmt.TypeSummaries {
						recallBytes = s.RawLen
					}
				}
				a.Close()
			}
			b.ResetTimer()
			for b.Loop() {
				a, err := archive.OpenFile(ap, archive.OpenOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if a.Meta().MessageCount == 0 {
					b.Fatal("no messages")
				}
				r, ok, err := a.Recall()
				if err != nil || !ok {
					b.Fatal(ok, err)
				}
				if archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget}) == "" {
					b.Fatal("empty digest")
				}
				a.Close()
			}
			b.ReportMetric(float64(recallBytes), "recall-bytes")
			if st, err := os.Stat(ap); err == nil {
				b.ReportMetric(float64(st.Size())/(1<<20), "archive-MiB")
			}
		})
	}
}
