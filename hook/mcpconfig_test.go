package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPInstallUninstall(t *testing.T) {
	const bin = "/opt/ben10/bin/ben10"
	tests := []struct {
		name        string
		scope       Scope
		before      string // "" = no file
		wantCommand string
		after       string // "" = the file is removed by uninstall
	}{
		{"user, other keys kept", ScopeUser, `{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}, "theme": "dark"}`, bin, "kept"},
		{"user, no file", ScopeUser, "", bin, "kept"},
		{"project, portable, file removed", ScopeProject, "", PortableCommand, ""},
		{"local, under the project", ScopeLocal, `{"projects": {"/p": {"allowedTools": []}}}`, bin, "kept"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf.json")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			changed, err := InstallMCP(path, tc.scope, "/p", bin)
			if err != nil || !changed {
				t.Fatalf("install: %v %v", changed, err)
			}
			if changed, err := InstallMCP(path, tc.scope, "/p", bin); err != nil || changed {
				t.Errorf("second install changed the file: %v %v", changed, err)
			}
			cmd, err := MCPInstalled(path, tc.scope, "/p")
			if err != nil || cmd != tc.wantCommand {
				t.Errorf("installed command %q, %v; want %q", cmd, err, tc.wantCommand)
			}
			b, _ := os.ReadFile(path)
			if !strings.Contains(string(b), `"args":`) || !strings.Contains(string(b), `"mcp"`) {
				t.Errorf("entry not written:\n%s", b)
			}
			if changed, err := UninstallMCP(path, tc.scope, "/p"); err != nil || !changed {
				t.Fatalf("uninstall: %v %v", changed, err)
			}
			b, err = os.ReadFile(path)
			if tc.after == "" {
				if !os.IsNotExist(err) {
					t.Errorf("empty .mcp.json kept: %q %v", b, err)
				}
				return
			}
			if tc.before != "" && string(b) != tc.before {
				t.Errorf("after uninstall (must be the file as it was, byte for byte):\n%s\nwant:\n%s", b, tc.before)
			}
			if strings.Contains(string(b), "ben10") {
				t.Errorf("after uninstall:\n%s", b)
			}
			if changed, err := UninstallMCP(path, tc.scope, "/p"); err != nil || changed {
				t.Errorf("second uninstall changed the file: %v %v", changed, err)
			}
		})
	}
}

func TestMCPInstallRefusesForeignEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	orig := `{"mcpServers": {"ben10": {"command": "/usr/bin/something-else", "args": ["serve"]}}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallMCP(path, ScopeUser, "", "/bin/ben10"); err == nil || !strings.Contains(err.Error(), "not Ben10's") {
		t.Errorf("install over a foreign entry: %v", err)
	}
	if changed, err := UninstallMCP(path, ScopeUser, ""); err != nil || changed {
		t.Errorf("uninstall removed a foreign entry: %v %v", changed, err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Errorf("file changed: %s", b)
	}
	if _, err := InstallMCP(path, ScopeUser, "", "relative/dir/ben10"); err == nil {
		t.Error("a relative binary was accepted for the user scope")
	}
}
