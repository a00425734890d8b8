package archive_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// BenchmarkIncrementalSaveRedacted is BenchmarkIncrementalSave's "session"
// case with redaction on, the default of `ben10 context save` and of the
// hooks: the session (main file and subagent files) saved after 20 new
// lines on top of the archive of the session without them
// ("incremental"), and from scratch ("full").
func BenchmarkIncrementalSaveRedacted(b *testing.B) {
	p := benchSession(b)
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	cut := len(data)
	for range 21 {
		cut = bytes.LastIndexByte(data[:cut-1], '\n') + 1
	}
	dir := b.TempDir()
	tp := filepath.Join(dir, filepath.Base(p))
	copySubagents(b, p, tp)
	if err := os.WriteFile(tp, data[:cut], 0o600); err != nil {
		b.Fatal(err)
	}
	o := redactOpts(zstdOpts())
	o.RedactFingerprint = "bench"
	var base bytes.Buffer
	if _, _, err := claude.Save(&base, tp, archive.ImportOptions{}, o); err != nil {
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
			o := o
			o.Previous = c.prev
			for b.Loop() {
				_, st, err := claude.Save(io.Discard, tp, archive.ImportOptions{}, o)
				if err != nil {
					b.Fatal(err)
				}
				if c.prev != nil && st.CopiedSegments == 0 {
					b.Fatal("nothing copied")
				}
			}
		})
	}
}
