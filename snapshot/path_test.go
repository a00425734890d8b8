package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/store"
)

// index.json is project data: whatever file name it records, Path stays
// inside the snapshot directory.
func TestPathStaysInSnapshotDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "proj"), store.Options{Home: filepath.Join(dir, "home"), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(st, nil)
	for _, tc := range []struct{ file, want string }{
		{"abc.ctx", "abc.ctx"},
		{"../../../home/u/other/.claude/context/current.ctx", "current.ctx"},
		{"/etc/passwd", "passwd"},
		{`sub/dir/x.ctx`, "x.ctx"},
	} {
		if got := m.Path(Snapshot{File: tc.file}); got != filepath.Join(st.SnapshotDir(), tc.want) {
			t.Errorf("Path(%q) = %s, want %s in %s", tc.file, got, tc.want, st.SnapshotDir())
		}
	}
}
