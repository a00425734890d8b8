package redact

import (
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/internal/testcorpus"
)

// corpusDir locates the shared session corpus, skipping the test when it
// is absent.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	return testcorpus.Dir(tb, "")
}

// corpusTranscripts returns the Claude transcripts of the corpus.
func corpusTranscripts(tb testing.TB) []string {
	dir := corpusDir(tb)
	files, err := filepath.Glob(filepath.Join(dir, "claude", "*.jsonl"))
	if err != nil || len(files) == 0 {
		tb.Skip("no Claude transcripts in the corpus")
	}
	return files
}
