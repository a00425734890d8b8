// Package testcorpus locates the shared corpus of real session files that
// tests use when it is present (it is never copied into the repository).
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Find returns the corpus directory, or its sub folder when sub is not
// empty ("claude", "codex", "gemini"). It looks at $BEN10_CORPUS, then at
// shared/corpus inside every ancestor of the working directory (CI clones
// the repository beside shared/), then at /work/shared/corpus.
func Find(sub string) (string, bool) {
	var cands []string
	if c := os.Getenv("BEN10_CORPUS"); c != "" {
		cands = append(cands, c)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			cands = append(cands, filepath.Join(d, "shared", "corpus"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	cands = append(cands, "/work/shared/corpus")
	for _, c := range cands {
		p := filepath.Join(c, sub)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Dir is Find for tests and benchmarks: it skips tb when the corpus (or
// its sub folder) is absent.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	d, ok := Find(sub)
	if !ok {
		tb.Skipf("corpus %s not found (set BEN10_CORPUS)", filepath.Join("shared/corpus", sub))
	}
	return d
}

// Files returns the sub folder's files matching pattern (for example
// "*.jsonl"), skipping tb when there are none.
func Files(tb testing.TB, sub, pattern string) []string {
	tb.Helper()
	m, _ := filepath.Glob(filepath.Join(Dir(tb, sub), pattern))
	if len(m) == 0 {
		tb.Skipf("no %s files in the %s corpus", pattern, sub)
	}
	return m
}
