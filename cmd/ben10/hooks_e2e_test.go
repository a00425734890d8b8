package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hooks install` on a settings file that other tools use: a minimal edit
// (only added lines, shown first by --dry-run), the mode kept, a backup
// kept, the symlink kept and its target edited; `hooks uninstall` gives
// back the file byte for byte.
func TestHooksInstallEditsNeverRewrites(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile("testdata/settings/other-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(dotfiles), 0o755)
	if err := os.WriteFile(dotfiles, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	if err := os.Symlink(dotfiles, settings); err != nil {
		t.Skip("no symlinks:", err)
	}
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}

	dry := runBen10(t, nil, env, "hooks", "install", "--dry-run")
	if dry.code != 0 || !strings.Contains(dry.stdout, "@@") || !strings.Contains(dry.stdout, "+") {
		t.Fatalf("dry run: %+v", dry)
	}
	for _, l := range strings.Split(dry.stdout, "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
			t.Fatalf("dry run removes a line: %q\n%s", l, dry.stdout)
		}
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != string(orig) {
		t.Fatal("dry run changed the file")
	}

	r := runBen10(t, nil, env, "hooks", "install")
	if r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	after, _ := os.ReadFile(dotfiles)
	// The diff the dry run printed is exactly what was written.
	if got := unifiedDiff(dotfiles, orig, after); got != strings.Split(dry.stdout, "(dry run")[0] {
		t.Fatalf("written change differs from the dry run:\n%s\nvs\n%s", got, dry.stdout)
	}
	var m map[string]any
	if err := json.Unmarshal(after, &m); err != nil {
		t.Fatalf("not JSON after install: %v", err)
	}
	added, removed := 0, 0
	for _, l := range strings.Split(unifiedDiff("f", orig, after), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	if removed != 0 || added == 0 {
		t.Fatalf("install diff: +%d -%d", added, removed)
	}
	t.Logf("install: +%d lines, -%d (file of %d lines)", added, removed, strings.Count(string(orig), "\n"))
	if fi, _ := os.Lstat(settings); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("settings.json symlink replaced by a file")
	}
	if fi, _ := os.Stat(dotfiles); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode changed to %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(dotfiles + ".ben10-backup"); string(b) != string(orig) {
		t.Fatal("no backup of the original")
	}
	if r := runBen10(t, nil, env, "hooks", "status", "--json"); !strings.Contains(r.stdout, `"binary"`) {
		t.Fatalf("status after install: %s", r.stdout)
	}

	r = runBen10(t, nil, env, "hooks", "uninstall")
	if r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != string(orig) {
		t.Fatalf("install then uninstall is not byte-identical:\n%s", unifiedDiff("settings", orig, b))
	}
}

// --scope project writes a portable command: "ben10" from PATH, never the
// installing user's home path; --bin ben10 is accepted.
func TestHooksInstallProjectScopePortable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	proj := t.TempDir()
	env := []string{"HOME=" + home}
	r := runBen10(t, nil, env, "hooks", "install", "--scope", "project", "--dir", proj)
	if r.code != 0 {
		t.Fatalf("install --scope project: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if !strings.Contains(string(b), `"command": "ben10 hook pre-compact"`) || strings.Contains(string(b), home) || strings.Contains(string(b), filepath.Dir(ben10Bin)) {
		t.Fatalf("project settings not portable:\n%s", b)
	}
	// A binary in the home directory is refused for a committed file.
	homeBin := filepath.Join(home, "bin", "ben10")
	os.MkdirAll(filepath.Dir(homeBin), 0o755)
	data, _ := os.ReadFile(ben10Bin)
	os.WriteFile(homeBin, data, 0o755)
	r = runBen10(t, nil, env, "hooks", "install", "--scope", "project", "--dir", proj, "--bin", homeBin)
	if r.code == 0 || !strings.Contains(r.stderr, "home directory") {
		t.Fatalf("a home-directory binary for --scope project: %+v", r)
	}
	// --bin ben10 at user scope: the bare name, found on PATH.
	r = runBen10(t, nil, append(env, "PATH="+filepath.Dir(ben10Bin)+":"+os.Getenv("PATH")), "hooks", "install", "--bin", "ben10")
	if r.code != 0 {
		t.Fatalf("--bin ben10: %+v", r)
	}
	b, _ = os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if !strings.Contains(string(b), `"command": "ben10 hook session-end"`) {
		t.Fatalf("--bin ben10 wrote:\n%s", b)
	}
}
