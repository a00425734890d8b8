package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/snapshot"
)

// `context clear` and both prune commands ask on a terminal before they
// change anything: "n" leaves the store as it was, "y" goes ahead and the
// output names exactly what was cleared or pruned.
func TestClearAndPruneConfirmOnTTY(t *testing.T) {
	p := newProject(t, 18)
	cur := filepath.Join(p.dir, ".claude", "context", "current.ctx")
	p.run(t, "context", "save")
	if _, err := os.Stat(cur); err != nil {
		t.Fatalf("context save left no current.ctx: %v", err)
	}

	screen, code := runOnTTY(t, p.env, "n", "context", "clear", "--dir", p.dir)
	if code == 0 || !strings.Contains(screen, "[y/N]") || !strings.Contains(screen, "not cleared") {
		t.Fatalf("clear answered n: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(cur); err != nil {
		t.Fatalf("clear answered n removed current.ctx: %v", err)
	}
	screen, code = runOnTTY(t, p.env, "y", "context", "clear", "--dir", p.dir)
	if code != 0 || !strings.Contains(screen, "cleared: current context moved to") {
		t.Fatalf("clear answered y: exit %d\n%s", code, screen)
	}
	if _, err := os.Stat(cur); !os.IsNotExist(err) {
		t.Fatalf("clear answered y kept current.ctx: %v", err)
	}
	moved, _ := filepath.Glob(filepath.Join(p.dir, ".claude", "context", "history", "*.ctx"))
	if len(moved) != 1 || !strings.Contains(screen, filepath.Base(moved[0])) {
		t.Fatalf("clear should name the history file it moved current.ctx to (history: %v)\n%s", moved, screen)
	}

	// Three snapshots, then a retention of one: prune has two to delete.
	var ids []string
	for i := 0; i < 3; i++ {
		var res snapshot.CreateResult
		p.runJSON(t, &res, "context", "compaction", "snapshot", "--force")
		ids = append(ids, res.Snapshot.ID)
	}
	p.run(t, "context", "config", "set", "compaction_snapshots.retention_count", "1")
	count := func() int {
		var ix struct{ Snapshots []snapshot.Snapshot }
		p.runJSON(t, &ix, "context", "compaction", "list")
		return len(ix.Snapshots)
	}
	for _, args := range [][]string{
		{"context", "compaction", "prune"},
		{"context", "prune"},
	} {
		name := strings.Join(args, " ")
		screen, code := runOnTTY(t, p.env, "n", append(args, "--dir", p.dir)...)
		if code == 0 || !strings.Contains(screen, "[y/N]") || !strings.Contains(screen, "nothing changed") {
			t.Fatalf("%s answered n: exit %d\n%s", name, code, screen)
		}
		if n := count(); n != 3 {
			t.Fatalf("%s answered n: %d snapshots left, want 3", name, n)
		}
	}
	screen, code = runOnTTY(t, p.env, "y", "context", "compaction", "prune", "--dir", p.dir)
	if code != 0 || !strings.Contains(screen, "2 snapshots pruned") {
		t.Fatalf("compaction prune answered y: exit %d\n%s", code, screen)
	}
	for _, id := range ids[:2] {
		if !strings.Contains(screen, "pruned "+id) {
			t.Errorf("compaction prune does not name the snapshot it deleted, %s:\n%s", id, screen)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("after compaction prune: %d snapshots, want 1", n)
	}
}
