package archive_test

import (
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
			if strings.Count(filepath.Base(p), "-") == 4 {
				// The four full sessions each hold one compaction with its summary.
				if len(st.Compactions) != 1 || !strings.HasPrefix(st.Compactions[0].Summary, "This session is being continued") || len(st.Raw) != 3 {
					t.Errorf("compactions %d, raw files %d", len(st.Compactions), len(st.Raw))
				}
			}
			b := encode(t, st, archive.EncodeOptions{})
			checkRoundTrip(t, st, open(t, b, archive.OpenOptions{}))
		})
	}
}

// Every tool input of the corpus decodes for the recall as encoding/json
// decodes it.
func TestDecodeToolInputCorpus(t *testing.T) {
	n := 0
	for _, p := range corpusFiles(t) {
		st := importFile(t, p)
		for _, tl := range st.Tools {
			if !archive.ToolInputDecodesAsJSON(tl.Input) {
				t.Fatalf("%s: tool %s input decodes differently: %.200q", filepath.Base(p), tl.ID, tl.Input)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no tool input in the corpus")
	}
}
