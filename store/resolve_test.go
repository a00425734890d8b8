package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveProjectLongestPath is issue 14 item 15: a directory uses the
// store of the nearest enclosing project that has one (longest path);
// links, other users' directories and the home directory (for anything
// but home itself) are never taken.
func TestResolveProjectLongestPath(t *testing.T) {
	tests := []struct {
		name   string
		stores []string // directories (relative to the base) given a store
		links  []string // directories whose .claude/context is a symbolic link
		fallbk []string // directories given a fallback store under home
		dir    string   // where the session starts
		want   string
	}{
		{name: "no store anywhere", dir: "work/app/sub", want: "work/app/sub"},
		{name: "own store", stores: []string{"work/app/sub", "work/app"}, dir: "work/app/sub", want: "work/app/sub"},
		{name: "enclosing project", stores: []string{"work/app"}, dir: "work/app/sub/deeper", want: "work/app"},
		{name: "nearest of two", stores: []string{"work", "work/app"}, dir: "work/app/sub", want: "work/app"},
		{name: "enclosing fallback store", fallbk: []string{"work/app"}, dir: "work/app/sub", want: "work/app"},
		{name: "linked store is not a store", links: []string{"work/app"}, dir: "work/app/sub", want: "work/app/sub"},
		{name: "home's store is not a project's", stores: []string{"home"}, dir: "home/proj", want: "home/proj"},
		{name: "home's store serves home", stores: []string{"home"}, dir: "home", want: "home"},
		{name: "project under home", stores: []string{"home/proj"}, dir: "home/proj/sub", want: "home/proj"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			home := filepath.Join(base, "home")
			mk := func(p string) {
				if err := os.MkdirAll(p, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			mk(home)
			mk(filepath.Join(base, tc.dir))
			for _, d := range tc.stores {
				mk(filepath.Join(base, d, ".claude", "context"))
			}
			for _, d := range tc.links {
				target := filepath.Join(base, "elsewhere")
				mk(target)
				mk(filepath.Join(base, d, ".claude"))
				if err := os.Symlink(target, filepath.Join(base, d, ".claude", "context")); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range tc.fallbk {
				mk(filepath.Join(base, d))
				mk(FallbackDir(home, filepath.Join(base, d)))
			}
			got, err := ResolveProject(filepath.Join(base, tc.dir), home)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(base, tc.want); got != want {
				t.Fatalf("ResolveProject = %s, want %s", got, want)
			}
			s, err := Open(filepath.Join(base, tc.dir), Options{Home: home, ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if s.ProjectDir() != got {
				t.Fatalf("Open's project %s, ResolveProject's %s", s.ProjectDir(), got)
			}
		})
	}
}

// TestReadOnlyOpenFollowsFallback: when the project's store cannot be
// written, a full open (a hook's save) uses the fallback store; a
// read-only open (status) then reads the same store instead of the stale
// primary.
func TestReadOnlyOpenFollowsFallback(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes everywhere")
	}
	e := newEnv(t)
	primary := filepath.Join(e.project, ".claude", "context")
	if err := os.MkdirAll(primary, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(primary, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(primary, 0o700)
	full := e.open(t, Options{})
	if !full.IsFallback() {
		t.Fatalf("full open of an unwritable store: %s", full.Root())
	}
	ro := e.open(t, Options{ReadOnly: true})
	if ro.Root() != full.Root() {
		t.Fatalf("read-only open reads %s, a full open writes %s", ro.Root(), full.Root())
	}
}
