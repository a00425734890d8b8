package mcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hostile"
)

// tamperTag changes the authentication tag of the archive at path in
// place, keeping its size and modification time: the index takes the file
// for unchanged, but the tag no longer verifies.
func tamperTag(t *testing.T, path string) {
	t.Helper()
	if err := hostile.TamperSegment(path, archive.TypeAuthTag); err != nil {
		t.Fatal(err)
	}
}

// TestReplacedAfterIndexing: the tools that read a store directly
// (list_snapshots, recall_file) judge the archive they open, not the
// index: once the user's snapshot and current context are replaced in
// place after they were indexed (same size and time), they are withheld
// and counted with the reason, where before they were served.
func TestReplacedAfterIndexing(t *testing.T) {
	e := setup(t)
	cs := connect(t, e)
	cases := []struct {
		tool     string
		args     map[string]any
		served   string // said before the replacement
		withheld string // said after it
	}{
		{"list_snapshots", map[string]any{}, "Pre-compaction snapshots of " + e.project + " (1,", "1 snapshots withheld"},
		{"recall_file", map[string]any{"path": "pkg/calc/add.go"}, "pkg/calc/add.go in session", "2 archives withheld"},
	}
	for _, c := range cases {
		if out, isErr := call(t, cs, c.tool, c.args); isErr || !strings.Contains(out, c.served) {
			t.Fatalf("%s before the replacement: %v\n%s", c.tool, isErr, out)
		}
	}
	dir := filepath.Join(e.project, ".claude", "context")
	snaps, err := filepath.Glob(filepath.Join(dir, "compaction-snapshots", "*.ctx"))
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots: %v %v", snaps, err)
	}
	tamperTag(t, snaps[0])
	tamperTag(t, filepath.Join(dir, "current.ctx"))
	for _, c := range cases {
		out, isErr := call(t, cs, c.tool, c.args)
		if isErr || !strings.Contains(out, c.withheld) || !strings.Contains(out, "does not verify") || strings.Contains(out, c.served) {
			t.Errorf("%s after the replacement: %v\n%s", c.tool, isErr, out)
		}
	}
}
