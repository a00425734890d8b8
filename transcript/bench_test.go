package transcript_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript"
)

// BenchmarkImportCorpus imports every Codex, Gemini and Kimi session file
// of the shared corpus per iteration (the CPU the non-Claude importers
// spend; reported per MB read):
//
//	go test -run '^$' -bench ImportCorpus -benchtime 20x ./transcript/
func BenchmarkImportCorpus(b *testing.B) {
	dir := testcorpus.Dir(b, "")
	var files []string
	var size int64
	for _, sub := range []string{"codex", "gemini", "kimi"} {
		_ = filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
				if st, err := os.Stat(p); err == nil {
					files, size = append(files, p), size+st.Size()
				}
			}
			return nil
		})
	}
	if len(files) == 0 {
		b.Skip("the corpus holds no Codex, Gemini or Kimi session")
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if _, err := transcript.Import(context.Background(), f, "", archive.ImportOptions{NoSubagents: true}); err != nil {
				b.Fatalf("%s: %v", f, err)
			}
		}
	}
}
