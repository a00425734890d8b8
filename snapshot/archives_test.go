package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// TestArchives: every kind of saved context of a store directory is
// listed once, under the name users type, in store order; symbolic links,
// writers' temporary files and names outside the layout are not; a
// snapshot index.json lists without a usable file is listed with why.
func TestArchives(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "elsewhere.ctx")
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(rel string) {
		t.Helper()
		if err := os.Symlink(outside, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("not in the store"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{
		"current.ctx",
		"checkpoints/cp-002.ctx", "checkpoints/cp-001.ctx", "checkpoints/cp-planted.ctx",
		"history/session-20260101-100000.ctx", "history/notes.txt",
		"named/before-refactor.ctx", "named/" + store.TempPrefix + "1-x.ctx",
		"compaction-snapshots/pre-compact-a.ctx", "compaction-snapshots/pre-compact-unlisted.ctx",
	} {
		write(rel)
	}
	link("checkpoints/cp-003.ctx")
	link("named/linked.ctx")
	link("compaction-snapshots/pre-compact-link.ctx")
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	ix := &Index{Version: IndexVersion}
	for i, f := range []string{"pre-compact-a.ctx", "pre-compact-gone.ctx", "../current.ctx", "pre-compact-link.ctx"} {
		ix.Snapshots = append(ix.Snapshots, Snapshot{ID: fmt.Sprintf("s%d", i), File: f, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if err := os.WriteFile(filepath.Join(root, "compaction-snapshots", "index.json"), ix.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}

	got, err := Archives(root)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, a := range got {
		line := a.Kind + " " + a.Name + " " + strings.TrimPrefix(a.Path, root+string(filepath.Separator))
		if a.Err != nil {
			line += " error"
		}
		if a.Path != "" && a.Size != int64(len(strings.TrimPrefix(a.Path, root+string(filepath.Separator)))) {
			line += fmt.Sprintf(" size %d", a.Size)
		}
		lines = append(lines, line)
	}
	want := []string{
		"current current.ctx current.ctx",
		"checkpoint 1 checkpoints/cp-001.ctx",
		"checkpoint 2 checkpoints/cp-002.ctx",
		"history session-20260101-100000 history/session-20260101-100000.ctx",
		"named before-refactor named/before-refactor.ctx",
		"snapshot s0 compaction-snapshots/pre-compact-a.ctx",
		"snapshot s1  error",
		"snapshot s2  error",
		"snapshot s3  error",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Archives:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	// A current.ctx that is a symbolic link is not followed.
	if err := os.Remove(filepath.Join(root, "current.ctx")); err != nil {
		t.Fatal(err)
	}
	link("current.ctx")
	if got, _ := Archives(root); len(got) != len(want)-1 || got[0].Kind == store.KindCurrent {
		t.Errorf("current.ctx as a link: listed %+v", got[0])
	}

	// An empty or missing store directory has nothing, and no error; a
	// damaged index.json is an error, returned with the rest.
	if got, err := Archives(filepath.Join(root, "none")); err != nil || len(got) != 0 {
		t.Errorf("missing store directory: %v %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(root, "compaction-snapshots", "index.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Archives(root); err == nil || len(got) != 4 {
		t.Errorf("damaged index.json: %d archives, error %v; want the 4 others and an error", len(got), err)
	}
}
