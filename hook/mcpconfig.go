package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/internal/jsonedit"
)

// MCPServerName is the key Ben10's MCP server is registered under in
// Claude Code's mcpServers (its tools are then mcp__ben10__search, …).
const MCPServerName = "ben10"

// PortableCommand is the command a project-scope registration runs: the
// ben10 on each user's PATH, since .mcp.json is committed and shared.
const PortableCommand = "ben10"

// MCPConfigPath is the file Claude Code reads MCP servers of scope from:
// ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when set) for the user
// and local scopes (local ones under projects.<dir>), <project>/.mcp.json
// for the project scope.
func MCPConfigPath(scope Scope, home, projectDir string) string {
	if scope == ScopeProject {
		return filepath.Join(projectDir, ".mcp.json")
	}
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(home, ".claude.json")
}

// mcpEntryJSON is the registration: `<command> mcp` over stdio.
type mcpEntryJSON struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// mcpParent is the object that holds scope's mcpServers (nil when absent).
func mcpParent(root *jsonedit.Node, scope Scope, projectDir string) (*jsonedit.Node, error) {
	if scope != ScopeLocal {
		return root, nil
	}
	projects := root.Get("projects")
	if projects == nil {
		return nil, nil
	}
	if projects.Kind != jsonedit.Object {
		return nil, errors.New(`"projects" is not an object`)
	}
	p := projects.Get(projectDir)
	if p != nil && p.Kind != jsonedit.Object {
		return nil, fmt.Errorf("projects.%q is not an object", projectDir)
	}
	return p, nil
}

// isOurMCP tells an entry Ben10 wrote: a command named ben10 (any
// directory) with the single argument "mcp".
func isOurMCP(doc []byte, n *jsonedit.Node) bool {
	if n == nil || n.Kind != jsonedit.Object {
		return false
	}
	cmd, args := n.Get("command"), n.Get("args")
	if cmd == nil || cmd.Kind != jsonedit.String || args == nil || args.Kind != jsonedit.Array || len(args.Elems) != 1 {
		return false
	}
	a := args.Elems[0]
	return filepath.Base(jsonedit.Str(doc, cmd)) == PortableCommand && a.Kind == jsonedit.String && jsonedit.Str(doc, a) == "mcp"
}

func parseRoot(doc []byte) (*jsonedit.Node, error) {
	root, err := jsonedit.Parse(doc)
	if err != nil {
		return nil, err
	}
	if root.Kind != jsonedit.Object {
		return nil, errors.New("the top level is not a JSON object")
	}
	return root, nil
}

func installMCPEdit(doc []byte, scope Scope, projectDir, command string) ([]byte, error) {
	want := mcpEntryJSON{Type: "stdio", Command: command, Args: []string{"mcp"}}
	root, err := parseRoot(doc)
	if err != nil {
		return nil, err
	}
	parent, err := mcpParent(root, scope, projectDir)
	if err != nil {
		return nil, err
	}
	servers := map[string]any{MCPServerName: want}
	if parent == nil { // local scope, no entry for the project yet
		projects := root.Get("projects")
		if projects == nil {
			return jsonedit.Set(doc, root, "projects", map[string]any{projectDir: map[string]any{"mcpServers": servers}})
		}
		return jsonedit.Set(doc, projects, projectDir, map[string]any{"mcpServers": servers})
	}
	list := parent.Get("mcpServers")
	if list == nil {
		return jsonedit.Set(doc, parent, "mcpServers", servers)
	}
	if list.Kind != jsonedit.Object {
		return nil, errors.New(`"mcpServers" is not an object`)
	}
	cur := list.Get(MCPServerName)
	switch {
	case cur == nil:
		return jsonedit.Set(doc, list, MCPServerName, want)
	case !isOurMCP(doc, cur):
		return nil, fmt.Errorf("mcpServers.%s exists and is not Ben10's; remove or rename it first", MCPServerName)
	}
	if c := cur.Get("command"); jsonedit.Str(doc, c) == command {
		if t := cur.Get("type"); t == nil || jsonedit.Str(doc, t) == "stdio" {
			return doc, nil
		}
	}
	return jsonedit.Replace(doc, cur, want)
}

// ourMCP finds the registration Ben10 wrote for scope in doc: its entry
// cur, the mcpServers object list holding it and list's parent (cur nil
// when there is none).
func ourMCP(doc []byte, scope Scope, projectDir string) (parent, list, cur *jsonedit.Node, err error) {
	root, err := parseRoot(doc)
	if err != nil {
		return nil, nil, nil, err
	}
	parent, err = mcpParent(root, scope, projectDir)
	if err != nil || parent == nil {
		return nil, nil, nil, err
	}
	list = parent.Get("mcpServers")
	if list == nil || list.Kind != jsonedit.Object || !isOurMCP(doc, list.Get(MCPServerName)) {
		return nil, nil, nil, nil
	}
	return parent, list, list.Get(MCPServerName), nil
}

func uninstallMCPEdit(doc []byte, scope Scope, projectDir string) ([]byte, error) {
	parent, list, cur, err := ourMCP(doc, scope, projectDir)
	if err != nil || cur == nil {
		return doc, err
	}
	if len(list.Members) > 1 {
		return jsonedit.Delete(doc, list, cur)
	}
	return jsonedit.Delete(doc, parent, list)
}

// InstallMCP registers Ben10's MCP server for scope in the file at path
// (see MCPConfigPath): binPath (absolute, or a bare name looked up on
// PATH) for the user and local scopes, PortableCommand for the project
// scope. The file is edited in place (package jsonedit): every other byte
// stays as it was; an existing ben10 entry not written by Ben10 is an
// error, never overwritten. It reports whether the file changed.
func InstallMCP(path string, scope Scope, projectDir, binPath string) (bool, error) {
	command := binPath
	if scope == ScopeProject {
		command = PortableCommand
	} else if !filepath.IsAbs(binPath) && filepath.Base(binPath) != binPath {
		return false, fmt.Errorf("MCP server binary path %q is neither absolute nor a bare command name found on PATH", binPath)
	}
	res, err := editFile(path, mcpEditOptions(scope, projectDir), func(doc []byte) ([]byte, error) {
		return installMCPEdit(doc, scope, projectDir, command)
	})
	return res.Changed, err
}

// UninstallMCP removes the registration InstallMCP wrote (and only it);
// an mcpServers object it leaves empty goes too, and a .mcp.json left
// empty is removed. It reports whether the file changed.
func UninstallMCP(path string, scope Scope, projectDir string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	res, err := editFile(path, mcpEditOptions(scope, projectDir), func(doc []byte) ([]byte, error) {
		return uninstallMCPEdit(doc, scope, projectDir)
	})
	if err != nil || !res.Changed {
		return res.Changed, err
	}
	if scope == ScopeProject {
		if root, err := parseRoot(res.After); err == nil && len(root.Members) == 0 {
			if err := os.Remove(res.Target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return true, err
			}
			if res.Backup != "" {
				_ = os.Remove(res.Backup)
			}
		}
	}
	return true, nil
}

// mcpEditOptions: a project's .mcp.json (committed with the project, so
// untrusted) is never edited through a link leading out of the project.
func mcpEditOptions(scope Scope, projectDir string) EditOptions {
	if scope == ScopeProject {
		return EditOptions{Within: projectDir}
	}
	return EditOptions{}
}

// MCPInstalled reports the command of Ben10's MCP registration for scope
// in the file at path ("" when there is none).
func MCPInstalled(path string, scope Scope, projectDir string) (string, error) {
	// A project's .mcp.json is untrusted: see readSettingsFile.
	doc, _, err := readSettingsFile(path)
	if err != nil || doc == nil {
		return "", err
	}
	_, _, cur, err := ourMCP(doc, scope, projectDir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return jsonedit.Str(doc, cur.Get("command")), nil
}
