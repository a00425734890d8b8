package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestReconcileBaselineClearsEverything: after `context diff --reconcile`
// records a result's Hashes as the baseline, none of that result's
// changes is listed again: modified, deleted and new files alike (the
// deleted and new ones used to stay). A later change shows again.
func TestReconcileBaselineClearsEverything(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	files := []archive.FileRecord{{Path: "a.go", Hash: hash("a1")}, {Path: "b.go", Hash: hash("b1")}, {Path: "keep.go", Hash: hash("k")}}
	write("a.go", "a2")   // modified
	write("keep.go", "k") // unchanged; b.go deleted
	write("c.go", "c1")   // new
	first, err := Reconcile(dir, files, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Modified) != 1 || len(first.Deleted) != 1 || len(first.New) != 1 {
		t.Fatalf("first: %d modified, %d deleted, %d new; want 1 each", len(first.Modified), len(first.Deleted), len(first.New))
	}
	again, err := Reconcile(dir, files, nil, first.Hashes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed() {
		t.Fatalf("after reconcile: modified %v, deleted %v, new %v", again.Modified, again.Deleted, again.New)
	}
	write("c.go", "c2")
	write("b.go", "b2")
	later, err := Reconcile(dir, files, nil, first.Hashes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(later.Modified) != 2 || len(later.Deleted) != 0 || len(later.New) != 0 {
		t.Fatalf("later changes: modified %v, deleted %v, new %v; want b.go and c.go modified", later.Modified, later.Deleted, later.New)
	}
}
