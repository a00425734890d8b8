package redact

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusDir locates the shared session corpus: $BEN10_CORPUS, then a
// shared/corpus sibling of an ancestor of the working directory, then
// /work/shared/corpus. It skips the test when none exists.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("BEN10_CORPUS"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			c := filepath.Join(d, "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if st, err := os.Stat("/work/shared/corpus"); err == nil && st.IsDir() {
		return "/work/shared/corpus"
	}
	tb.Skip("session corpus not found (set BEN10_CORPUS)")
	return ""
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
