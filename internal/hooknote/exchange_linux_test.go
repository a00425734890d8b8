package hooknote

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ben10ctx/ben10/store"
)

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// After the first two updates, the state file and its spare exchange
// their two inodes: no inode is allocated, and the spare holds the
// previous version.
func TestWriteStateReusesSpare(t *testing.T) {
	root := t.TempDir()
	spare := filepath.Join(root, store.TempPrefix+StateName)
	versions := []string{"one\n", "two\n", "three\n", "four\n"}
	inodes := map[uint64]bool{}
	for i, v := range versions {
		if err := writeState(root, []byte(v)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(StatePath(root))
		if err != nil || string(got) != v {
			t.Fatalf("update %d: state = %q, %v; want %q", i, got, err, v)
		}
		if fi, err := os.Stat(StatePath(root)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("update %d: state mode %v, %v", i, fi.Mode(), err)
		}
		inodes[inode(t, StatePath(root))] = true
		if i == 0 {
			continue
		}
		prev, err := os.ReadFile(spare)
		if err != nil || string(prev) != versions[i-1] {
			t.Fatalf("update %d: spare = %q, %v; want %q", i, prev, err, versions[i-1])
		}
		inodes[inode(t, spare)] = true
	}
	if len(inodes) != 2 {
		t.Fatalf("the state and its spare used %d inodes, want 2", len(inodes))
	}
	// A swept spare costs only its reuse.
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	if err := writeState(root, []byte("five\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(StatePath(root)); string(got) != "five\n" {
		t.Fatalf("after the sweep: state = %q", got)
	}
	if got, _ := os.ReadFile(spare); string(got) != "four\n" {
		t.Fatalf("after the sweep: spare = %q, want the previous version", got)
	}
}
