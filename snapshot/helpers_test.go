package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// fixtureWithSubagents copies the Claude importer's test session with its
// subagent folder into dir and returns the main file.
func fixtureWithSubagents(t *testing.T, dir string) string {
	t.Helper()
	p := fixture(t, dir, 0)
	src := filepath.Join("..", "transcript", "claude", "testdata", fixtureSession, "subagents")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, fixtureSession, "subagents")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}
