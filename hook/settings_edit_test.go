package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A settings file as people keep it: other tools' hooks, their own
// formatting (4-space indent, a key order that is not alphabetical).
const otherToolsSettings = `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(go test:*)", "Read"],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    { "type": "command", "command": "/opt/guard/bin/guard check", "timeout": 3 }
                ]
            }
        ],
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo hello"
                    }
                ]
            }
        ]
    },
    "statusLine": {"type": "command", "command": "~/bin/status"}
}
`

func TestInstallFileMinimalEdits(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(otherToolsSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "ben10")
	res, err := InstallFile(path, EditOptions{Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Fatal("install changed nothing")
	}
	after, _ := os.ReadFile(path)
	// Every original line is still there, in order: the edit only added.
	orig := strings.Split(otherToolsSettings, "\n")
	got := strings.Split(string(after), "\n")
	j := 0
	for _, l := range got {
		if j < len(orig) && l == orig[j] {
			j++
		}
	}
	if j != len(orig) {
		t.Fatalf("install removed or changed original line %d %q:\n%s", j, orig[j], after)
	}
	st, err := Status(path, ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Missing) != 0 || st.Binary != bin {
		t.Fatalf("status after install: %+v", st)
	}
	if !strings.Contains(string(after), "/opt/guard/bin/guard check") || !strings.Contains(string(after), `"echo hello"`) {
		t.Fatal("other tools' hooks lost")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644 kept", fi.Mode().Perm())
	}
	if b, err := os.ReadFile(path + BackupSuffix); err != nil || string(b) != otherToolsSettings {
		t.Fatalf("backup: %v %q", err, b)
	}
	// Idempotent.
	res, err = InstallFile(path, EditOptions{Bin: bin})
	if err != nil || res.Changed {
		t.Fatalf("second install: changed=%v err=%v", res.Changed, err)
	}
	// Uninstall gives back the original bytes.
	res, err = UninstallFile(path, EditOptions{})
	if err != nil || !res.Changed {
		t.Fatalf("uninstall: changed=%v err=%v", res.Changed, err)
	}
	back, _ := os.ReadFile(path)
	if string(back) != otherToolsSettings {
		t.Fatalf("install then uninstall is not byte-identical:\n%s", back)
	}
}

// Install then uninstall is byte-identical for every layout a settings
// file may have, including no hooks at all. (One exception: a file whose
// "hooks" object was already empty loses it, since Uninstall removes the
// "hooks" object that removing Ben10's entries leaves empty.)
func TestInstallUninstallIdentity(t *testing.T) {
	for name, doc := range map[string]string{
		"no-hooks":        "{\n  \"model\": \"opus\"\n}\n",
		"compact":         `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`,
		"empty-object":    "{}",
		"tabs-same-event": "{\n\t\"hooks\": {\n\t\t\"PreCompact\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\"type\": \"command\", \"command\": \"other\"}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			os.WriteFile(path, []byte(doc), 0o600)
			if _, err := InstallFile(path, EditOptions{Bin: "/usr/local/bin/ben10"}); err != nil {
				t.Fatal(err)
			}
			st, _ := Status(path, ScopeUser)
			if len(st.Missing) != 0 {
				t.Fatalf("missing %v", st.Missing)
			}
			if _, err := UninstallFile(path, EditOptions{}); err != nil {
				t.Fatal(err)
			}
			if back, _ := os.ReadFile(path); string(back) != doc {
				t.Fatalf("got\n%q\nwant\n%q", back, doc)
			}
		})
	}
}

func TestInstallFileSymlinkDryRunPortable(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, []byte("{\n  \"model\": \"opus\"\n}\n"), 0o640)
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	// Dry run: the edit is computed, nothing is written.
	res, err := InstallFile(link, EditOptions{Bin: "ben10", DryRun: true})
	if err != nil || !res.Changed || !bytes.Contains(res.After, []byte(`"ben10 hook pre-compact"`)) {
		t.Fatalf("dry run: %v %v\n%s", err, res.Changed, res.After)
	}
	if b, _ := os.ReadFile(real); string(b) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Fatal("dry run wrote")
	}
	if _, err := os.Stat(real + BackupSuffix); err == nil {
		t.Fatal("dry run kept a backup")
	}
	// The real edit goes through the link to its target, keeping the link
	// and the target's mode; a bare "ben10" is written as is (portable).
	if res, err = InstallFile(link, EditOptions{Bin: "ben10"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Fatalf("target mode %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(real); !bytes.Contains(b, []byte(`"command": "ben10 hook session-end"`)) {
		t.Fatalf("target not edited:\n%s", b)
	}
	// A project's settings linked out of the project are refused.
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	plink := filepath.Join(proj, ".claude", "settings.json")
	os.Symlink(real, plink)
	if _, err := InstallFile(plink, EditOptions{Bin: "ben10", Within: proj}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("a link out of the project: %v", err)
	}
}

func TestInstallFileRefusesBadDocuments(t *testing.T) {
	for name, doc := range map[string]string{
		"not-json":       "{",
		"array":          "[]",
		"hooks-string":   `{"hooks": "x"}`,
		"event-not-list": `{"hooks": {"PreCompact": {}}}`,
	} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(doc), 0o600)
		if _, err := InstallFile(path, EditOptions{Bin: "/b/ben10"}); err == nil {
			t.Errorf("%s: installed into %q", name, doc)
		}
		if b, _ := os.ReadFile(path); string(b) != doc {
			t.Errorf("%s: file changed on error", name)
		}
	}
}

// A project's .mcp.json is untrusted: a link out of the project is not
// edited, and a special file behind it is refused without being read.
func TestProjectMCPConfigUntrusted(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(proj, 0o755)
	outside := filepath.Join(dir, "outside.json")
	os.WriteFile(outside, []byte("{}\n"), 0o644)
	mcp := filepath.Join(proj, ".mcp.json")
	if err := os.Symlink(outside, mcp); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := InstallMCP(mcp, ScopeProject, proj, "ben10"); err == nil {
		t.Fatal("installed through a link out of the project")
	}
	if b, _ := os.ReadFile(outside); string(b) != "{}\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	os.Remove(mcp)
	if err := os.Symlink("/dev/zero", mcp); err != nil {
		t.Skip(err)
	}
	if _, err := MCPInstalled(mcp, ScopeProject, proj); err == nil {
		t.Fatal("read /dev/zero as .mcp.json")
	}
}
