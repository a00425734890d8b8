package archive_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript/claude"
)

func benchSession(b *testing.B) string {
	return filepath.Join(archiveCorpusDir(b, "claude"), "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
}

func BenchmarkImport(b *testing.B) {
	p := benchSession(b)
	for b.Loop() {
		if _, err := claude.Import(p, archive.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSave(b *testing.B) {
	p := benchSession(b)
	for _, red := range []bool{false, true} {
		name := "plain"
		if red {
			name = "redacted"
		}
		b.Run(name, func(b *testing.B) {
			opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd}
			if red {
				r := redact.Default()
				opts.RedactLine = func(line []byte) []byte { out, _ := r.JSONLine(line); return out }
				opts.RedactText = func(s string) string { out, _ := r.String(s); return out }
			}
			for b.Loop() {
				st, err := claude.Import(p, archive.ImportOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if err := archive.Encode(io.Discard, st, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClaudeSave is what `ben10 context save` does: claude.Save,
// import and raw compression overlapped.
func BenchmarkClaudeSave(b *testing.B) {
	p := benchSession(b)
	for b.Loop() {
		if _, _, err := claude.Save(io.Discard, p, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
			b.Fatal(err)
		}
	}
}
