package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The packaging a new user meets: a LICENSE, a CHANGELOG, `ben10 doctor`
// on the README's first screen, and man pages generated from the command
// tree (what `make man` runs: a binary built with -tags man).
func TestPackaging(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	for _, name := range []string{"LICENSE", "CHANGELOG.md"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || len(b) < 200 {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(readme), "\n", 41)
	if first := strings.Join(lines[:min(40, len(lines))], "\n"); !strings.Contains(first, "ben10 doctor") {
		t.Errorf("the README's first 40 lines do not show `ben10 doctor`")
	}

	if testing.Short() {
		t.Log("man pages: built with -tags man in make test-long")
		return
	}
	bin := filepath.Join(t.TempDir(), "ben10-man")
	if out, err := exec.Command("go", "build", "-tags", "man", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags man: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "man")
	if out, err := exec.Command(bin, "internal", "man", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("internal man: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) < 40 {
		t.Fatalf("%d man pages, want one per command (at least 40)", len(pages))
	}
	for _, name := range []string{"ben10.1", "ben10-context-save.1", "ben10-search.1", "ben10-hooks-install.1"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s := string(b); !strings.Contains(s, ".TH \"BEN10\" \"1\"") || !strings.Contains(s, "EXAMPLE") {
			t.Errorf("%s: no section-1 header or no EXAMPLE section:\n%.300s", name, s)
		}
	}
	// The ordinary binary does not link the generator.
	if r := runBen10(t, nil, nil, "internal", "man", "--dir", dir); r.code == 0 {
		t.Errorf("ben10 internal man ran in a binary built without -tags man")
	}
}
