package archive_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/testcorpus"

	"github.com/ben10ctx/ben10/archive"
)

func archiveCorpusDir(t testing.TB, sub string) string {
	t.Helper()
	return testcorpus.Dir(t, sub)
}

func corpusFiles(t testing.TB) []string {
	dir := archiveCorpusDir(t, "claude")
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(m) == 0 {
		t.Skip("no corpus transcripts")
	}
	return m
}

func TestCorpusRoundTrip(t *testing.T) {
	for _, p := range corpusFiles(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			st := importFile(t, p)
			r := st.Import
			if r.Skipped != 0 || r.Partial != 0 || r.Truncated || len(r.Problems) != 0 {
				t.Errorf("import report %+v", r)
			}
			if st.Meta.ContextTokens == 0 || len(st.Messages) == 0 {
				t.Errorf("meta %+v", st.Meta)
			}
			// Every compact_boundary line is one compaction with its summary,
			// and every subagent file beside the session is one more raw file
			// (files are added to the corpus over time: count, don't assume).
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			boundaries := bytes.Count(raw, []byte(`"subtype":"compact_boundary"`))
			subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(p, ".jsonl"), "subagents", "*.jsonl"))
			if len(st.Compactions) != boundaries || len(st.Raw) != 1+len(subs) {
				t.Errorf("compactions %d (want %d), raw files %d (want %d)", len(st.Compactions), boundaries, len(st.Raw), 1+len(subs))
			}
			for i, c := range st.Compactions {
				if !strings.HasPrefix(c.Summary, "This session is being continued") {
					t.Errorf("compaction %d summary %.80q", i, c.Summary)
				}
			}
			b := encode(t, st, archive.EncodeOptions{})
			checkRoundTrip(t, st, open(t, b, archive.OpenOptions{}))
		})
	}
}
