package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestOpenLayout(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Read-only open of a fresh project creates nothing.
	ro := e.open(t, Options{ReadOnly: true})
	if _, err := os.Stat(ro.Root()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only Open created %s", ro.Root())
	}
	if _, err := ro.Lock(t.Context()); err == nil {
		t.Fatal("read-only store took the lock")
	}

	s := e.open(t, Options{})
	root := filepath.Join(e.project, ".claude", "context")
	if s.Root() != root || s.IsFallback() || s.ProjectDir() != e.project {
		t.Fatalf("root %s fallback %v project %s", s.Root(), s.IsFallback(), s.ProjectDir())
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store dir: %v %v", fi, err)
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 0 {
		t.Fatalf("Open created %d entries; subdirectories must be created lazily", len(ents))
	}
	paths := map[string]string{
		s.CurrentPath():        "current.ctx",
		s.MetaPath():           "current.ctx.meta",
		s.CheckpointPath(2):    "checkpoints/cp-002.ctx",
		s.CheckpointPath(1234): "checkpoints/cp-1234.ctx",
		s.HistoryPath(time.Date(2026, 1, 27, 14, 30, 22, 0, time.UTC)): "history/session-20260127-143022.ctx",
		s.SnapshotDir(): "compaction-snapshots",
		s.IndexPath():   "compaction-snapshots/index.json",
		s.PinnedPath():  "compaction-snapshots/.pinned",
		s.ExportsDir():  "exports",
		s.CorruptDir():  "corrupt",
		s.PendingDir():  "pending",
		s.LockPath():    ".lock",
	}
	for got, want := range paths {
		if got != filepath.Join(root, filepath.FromSlash(want)) {
			t.Errorf("path %s, want %s", got, want)
		}
	}
	gi, err := os.ReadFile(filepath.Join(e.project, ".gitignore"))
	if err != nil || string(gi) != gitignoreComment+"\n.claude/context/\n" {
		t.Fatalf(".gitignore = %q, %v", gi, err)
	}
	e.open(t, Options{})
	gi2, _ := os.ReadFile(filepath.Join(e.project, ".gitignore"))
	if string(gi2) != string(gi) {
		t.Fatalf("second Open changed .gitignore: %q", gi2)
	}
	if err := s.EnsureDir(s.CheckpointsDir()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(s.CheckpointsDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("subdirectory: %v %v", fi, err)
	}
}

func TestOpenFallback(t *testing.T) {
	e := newEnv(t)
	// A file named .claude makes the project unusable for storage, even
	// for root, which ignores permission bits.
	if err := os.WriteFile(filepath.Join(e.project, ".claude"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.open(t, Options{})
	sum := sha256.Sum256([]byte(e.project))
	hash := hex.EncodeToString(sum[:])[:16]
	if runtime.GOOS == "windows" {
		sum = sha256.Sum256([]byte(strings.ToLower(e.project)))
		hash = hex.EncodeToString(sum[:])[:16]
	}
	want := filepath.Join(e.home, ".claude-code", "contexts", hash)
	if !s.IsFallback() || s.Root() != want || DirHash(e.project) != hash {
		t.Fatalf("root %s (fallback %v), want %s", s.Root(), s.IsFallback(), want)
	}
	if b, err := os.ReadFile(filepath.Join(want, ProjectName)); err != nil || string(b) != e.project+"\n" {
		t.Fatalf("project record %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.project, ".gitignore")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("fallback store touched the project's .gitignore")
	}
	// Once the fallback exists it stays in use, even if the project
	// becomes writable, so data is never split.
	os.Remove(filepath.Join(e.project, ".claude"))
	if s2 := e.open(t, Options{}); s2.Root() != want {
		t.Fatalf("reopened at %s, want fallback %s", s2.Root(), want)
	}
}

func TestOpenReadOnlyProject(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("permission bits are not enforced for root or on Windows")
	}
	e := newEnv(t)
	if err := os.Chmod(e.project, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(e.project, 0o755)
	s := e.open(t, Options{})
	if !s.IsFallback() || s.Root() != FallbackDir(e.home, e.project) {
		t.Fatalf("read-only project: root %s", s.Root())
	}
}

func TestOpenCanonicalAndLocation(t *testing.T) {
	e := newEnv(t)
	link := filepath.Join(filepath.Dir(e.project), "link")
	if err := os.Symlink(e.project, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	s, err := Open(link, Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if s.ProjectDir() != e.project {
		t.Fatalf("project %s, want canonical %s", s.ProjectDir(), e.project)
	}
	for _, tc := range []struct{ loc, want string }{
		{"ctxstore", filepath.Join(e.project, "ctxstore")},
		{"~/stores/p", filepath.Join(e.home, "stores", "p")},
		{filepath.Join(e.home, "abs"), filepath.Join(e.home, "abs")},
	} {
		cfg := DefaultConfig()
		cfg.StorageLocation = tc.loc
		s := e.open(t, Options{Config: cfg})
		if s.Root() != tc.want {
			t.Errorf("storage_location %q: root %s, want %s", tc.loc, s.Root(), tc.want)
		}
	}
	if _, err := Open(filepath.Join(e.project, "missing"), Options{Home: e.home}); err == nil {
		t.Fatal("Open of a missing directory succeeded")
	}
}

func TestEnsureGitignore(t *testing.T) {
	const add = gitignoreComment + "\n.claude/context/\n"
	tests := []struct {
		name    string
		git     bool
		have    *string
		changed bool
		want    string
	}{
		{"no git, no file", false, nil, false, ""},
		{"git, no file", true, nil, true, add},
		{"append", false, ptr("node_modules/\n"), true, "node_modules/\n" + add},
		{"no final newline", false, ptr("a"), true, "a\n" + add},
		{"crlf", false, ptr("a\r\nb\r\n"), true, "a\r\nb\r\n" + gitignoreComment + "\r\n.claude/context/\r\n"},
		{"crlf no final newline", false, ptr("a\r\nb"), true, "a\r\nb\r\n" + gitignoreComment + "\r\n.claude/context/\r\n"},
		{"present", false, ptr(".claude/context/\n"), false, ".claude/context/\n"},
		{"present crlf", false, ptr("x\r\n.claude/context/\r\n"), false, "x\r\n.claude/context/\r\n"},
		{"present without slash", false, ptr(".claude/context"), false, ".claude/context"},
		{"rooted", false, ptr("/.claude/context/\n"), false, "/.claude/context/\n"},
		{"globstar", false, ptr(".claude/context/**\n"), false, ".claude/context/**\n"},
		{"parent", false, ptr("  .claude/ \n"), false, "  .claude/ \n"},
		{"any-level name", false, ptr("context/\n"), false, "context/\n"},
		{"negated by user", false, ptr("!.claude/context/\n"), false, "!.claude/context/\n"},
		{"commented out", false, ptr("# .claude/context/\n"), true, "# .claude/context/\n" + add},
		{"similar name", false, ptr(".claude/contexts/\n"), true, ".claude/contexts/\n" + add},
		{"empty file", false, ptr(""), true, add},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			gi := filepath.Join(dir, ".gitignore")
			if tt.git {
				os.Mkdir(filepath.Join(dir, ".git"), 0o755)
			}
			if tt.have != nil {
				os.WriteFile(gi, []byte(*tt.have), 0o640)
			}
			changed, err := EnsureGitignore(dir, GitignoreEntry)
			if err != nil || changed != tt.changed {
				t.Fatalf("changed %v err %v, want %v", changed, err, tt.changed)
			}
			got, err := os.ReadFile(gi)
			if tt.want == "" && tt.have == nil {
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf(".gitignore created: %q", got)
				}
				return
			}
			if string(got) != tt.want {
				t.Fatalf(".gitignore = %q, want %q", got, tt.want)
			}
			again, err := EnsureGitignore(dir, GitignoreEntry)
			if err != nil || again {
				t.Fatalf("second call changed the file (%v, %v)", again, err)
			}
			fi, _ := os.Stat(gi)
			wantMode := os.FileMode(0o644)
			if tt.have != nil {
				wantMode = 0o640
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != wantMode {
				t.Fatalf("mode %v, want %v", fi.Mode().Perm(), wantMode)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFileAtomic(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("content %q mode %v", b, fi.Mode())
	}
	a, err := CreateAtomic(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("three"))
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.TempName()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("Abort left the temporary file")
	}
	if err := a.Commit(); !errors.Is(err, ErrAborted) {
		t.Fatalf("Commit after Abort: %v", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, ErrAborted) {
		t.Fatalf("Write after Abort: %v", err)
	}
	b, _ = os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("aborted write changed the file: %q", b)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * SweepAge)
	files := map[string]time.Time{
		TempPrefix + "current.ctx-aa": old,                      // removed
		TempPrefix + "index.json-bb":  now.Add(-time.Minute),    // too young
		"current.ctx":                 old,                      // not ours
		".ben10-other":                old,                      // not our prefix
		TempPrefix + "x":              now.Add(-SweepAge - 1e9), // removed
	}
	for name, mt := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o600)
		os.Chtimes(p, mt, mt)
	}
	removed, err := Sweep(dir, SweepAge, now)
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %v, err %v", removed, err)
	}
	for _, r := range removed {
		if files[filepath.Base(r)] != old && filepath.Base(r) != TempPrefix+"x" {
			t.Errorf("removed %s", r)
		}
	}
	if r, err := Sweep(filepath.Join(dir, "missing"), SweepAge, now); err != nil || r != nil {
		t.Fatalf("sweep of a missing dir: %v %v", r, err)
	}
}
