// Package testcorpus locates the shared corpus of real session files that
// tests use when it is present (it is never copied into the repository).
//
// The corpus is $BEN10_CORPUS when that variable is set, and nothing
// else: a set variable that names no directory means no corpus. Without
// the variable it is shared/corpus beside the module root or beside one
// of its ancestors (../shared/corpus, ../../shared/corpus, …), where a CI
// clone next to shared/ finds it. No absolute path is built in, so a test
// run is hermetic with BEN10_CORPUS=/nonexistent.
//
// Under `go test -short` (make test) there is no corpus either: the
// corpus tests go over every real session and are the slowest of the
// module, so they run in make test-long, which CI runs too.
package testcorpus

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names the environment variable that overrides the corpus location.
const EnvVar = "BEN10_CORPUS"

// Find returns the corpus directory, or its sub folder when sub is not
// empty ("claude", "codex", "gemini", "kimi").
func Find(sub string) (string, bool) {
	dir, err := Locate(sub)
	return dir, err == nil
}

// Locate is Find with the reason when there is no corpus: the places
// it looked at.
func Locate(sub string) (string, error) {
	if short() {
		return "", errors.New("-short: the corpus tests run in make test-long")
	}
	return locate(sub)
}

func locate(sub string) (string, error) {
	if c, ok := os.LookupEnv(EnvVar); ok && c != "" {
		p := filepath.Join(c, sub)
		if isDir(p) {
			return p, nil
		}
		return "", fmt.Errorf("$%s=%s: %s is not a directory", EnvVar, c, p)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("corpus: working directory: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", err
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if p := filepath.Join(d, "shared", "corpus", sub); isDir(p) {
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("no %s beside the module root %s or its ancestors, and $%s is not set", filepath.Join("shared", "corpus", sub), root, EnvVar)
}

// moduleRoot walks up from dir to the nearest directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return d, nil
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("corpus: module root: %w", err)
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("corpus: no go.mod in %s or its ancestors", dir)
		}
	}
}

// short reports whether this is a test binary run with -short. It reads
// the flag instead of calling testing.Short, which panics outside a test
// binary (gentranscript uses Find).
func short() bool {
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Dir is Find for tests and benchmarks: it skips tb, saying where it
// looked, when the corpus (or its sub folder) is absent.
func Dir(tb testing.TB, sub string) string {
	tb.Helper()
	d, err := Locate(sub)
	if err != nil {
		tb.Skipf("SKIPPED: real-session corpus absent, corpus test not run: %v", err)
	}
	return d
}

// Files returns the sub folder's files matching pattern (for example
// "*.jsonl"), skipping tb when there are none.
func Files(tb testing.TB, sub, pattern string) []string {
	tb.Helper()
	m, _ := filepath.Glob(filepath.Join(Dir(tb, sub), pattern))
	if len(m) == 0 {
		tb.Skipf("SKIPPED: no %s files in the %s corpus", pattern, sub)
	}
	return m
}
