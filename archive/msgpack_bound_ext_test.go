package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript/claude"
	"github.com/ben10ctx/ben10/transcript/codex"
	"github.com/ben10ctx/ben10/transcript/gemini"
)

// metaEncodings are the option sets the metadata decoding is checked
// under: every layout, redaction, an incremental save.
var metaEncodings = []archive.EncodeOptions{
	{},
	{ChunkSize: 1024, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest},
	{ChunkSize: 1024, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax},
	{RedactLine: bytes.ToUpper, RedactText: func(s string) string { return s + "." }, RedactFingerprint: "fp"},
}

// checkMetaOf encodes st under the first n metaEncodings option sets (and
// once more on top of the first archive, as an incremental save does) and
// checks each metadata segment and its mutations (archive.CheckMetaDecode).
func checkMetaOf(t *testing.T, st *archive.State, n, mutations int) {
	t.Helper()
	var first *archive.Archive
	for i, o := range metaEncodings[:n] {
		b := encode(t, st, o)
		if err := archive.CheckMetaDecode(b, mutations, int64(i)); err != nil {
			t.Fatalf("options %d: %v", i, err)
		}
		if i == 0 {
			first = open(t, b, archive.OpenOptions{})
		}
	}
	b := encode(t, st, archive.EncodeOptions{Previous: first})
	if err := archive.CheckMetaDecode(b, mutations, 9); err != nil {
		t.Fatalf("incremental: %v", err)
	}
}

// The metadata of every fixture of every importer decodes without
// msgpack's reflection exactly as msgpack decodes it.
func TestMetaDecodeFixtures(t *testing.T) {
	type imp func(context.Context, string, archive.ImportOptions) (*archive.State, error)
	globs := []struct {
		pattern string
		imp     imp
	}{
		{"../transcript/claude/testdata/*.jsonl", claude.Import},
		{"../transcript/codex/testdata/*.jsonl", codex.Import},
		{"../transcript/gemini/testdata/session-*", gemini.Import},
	}
	n := 0
	for _, g := range globs {
		files, err := filepath.Glob(g.pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixtures %s", g.pattern)
		}
		for _, p := range files {
			st, err := g.imp(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			t.Run(filepath.Base(p), func(t *testing.T) { checkMetaOf(t, st, len(metaEncodings), 300) })
			n++
		}
	}
	if n < 6 {
		t.Fatalf("%d fixtures", n)
	}
}

// The same over the corpus sessions, when present (two layouts: the
// sessions are large, the encodings slow).
func TestMetaDecodeCorpus(t *testing.T) {
	for _, p := range corpusFiles(t) {
		t.Run(filepath.Base(p), func(t *testing.T) { checkMetaOf(t, importFile(t, p), 2, 50) })
	}
	for _, c := range []struct {
		sub string
		imp func(context.Context, string, archive.ImportOptions) (*archive.State, error)
	}{{"codex", codex.Import}, {"gemini", gemini.Import}} {
		dir, ok := testcorpus.Find(c.sub)
		if !ok {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json*"))
		for _, p := range files {
			if fi, err := os.Stat(p); err != nil || fi.IsDir() {
				continue
			}
			st, err := c.imp(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				continue // not a session file of this importer
			}
			t.Run(c.sub+"/"+filepath.Base(p), func(t *testing.T) { checkMetaOf(t, st, 2, 50) })
		}
	}
}
