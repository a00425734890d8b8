package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/store"
)

// MCPServerName is the key Ben10's MCP server is registered under in
// Claude Code's mcpServers (its tools are then mcp__ben10__search, …).
const MCPServerName = "ben10"

// RecallToolsLine ends the digest injected after a compaction: it tells
// the assistant that Ben10's MCP tools can look up what the digest left out.
const RecallToolsLine = "\nEverything before this compaction is kept: look it up with the ben10 MCP tools (mcp__ben10__search, mcp__ben10__show, mcp__ben10__recall_file).\n"

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

// mcpServers finds (create: makes) the mcpServers object of scope in root.
func mcpServers(root *object, scope Scope, projectDir, path string, create bool) (*object, error) {
	parent := root
	if scope == ScopeLocal {
		get := childObject
		if !create {
			get = existingChild
		}
		projects, err := get(root, "projects", path)
		if err != nil || projects == nil {
			return nil, err
		}
		if parent, err = get(projects, projectDir, path); err != nil || parent == nil {
			return nil, err
		}
	}
	if create {
		return childObject(parent, "mcpServers", path)
	}
	return existingChild(parent, "mcpServers", path)
}

func existingChild(parent *object, key, path string) (*object, error) {
	v, ok := parent.get(key)
	if !ok {
		return nil, nil
	}
	o, isObj := v.(*object)
	if !isObj {
		return nil, fmt.Errorf("%s: %q is not an object", path, key)
	}
	return o, nil
}

// mcpEntry is the registration: `<command> mcp` over stdio.
func mcpEntry(command string) *object {
	e := newObject()
	e.set("type", "stdio")
	e.set("command", command)
	e.set("args", []any{"mcp"})
	return e
}

// isOurMCP tells an entry Ben10 wrote: a stdio command named ben10 (any
// directory) with the single argument "mcp".
func isOurMCP(v any) bool {
	e, ok := v.(*object)
	if !ok {
		return false
	}
	cmd, _ := e.vals["command"].(string)
	args, _ := e.vals["args"].([]any)
	return filepath.Base(cmd) == PortableCommand && len(args) == 1 && args[0] == "mcp"
}

// InstallMCP registers Ben10's MCP server for scope in the file at path
// (see MCPConfigPath): the absolute binPath for the user and local scopes,
// PortableCommand for the project scope. Everything else in the file is
// kept as it was; an existing ben10 entry not written by Ben10 is an
// error, never overwritten. It reports whether the file changed.
func InstallMCP(path string, scope Scope, projectDir, binPath string) (bool, error) {
	command := binPath
	if scope == ScopeProject {
		command = PortableCommand
	} else if !filepath.IsAbs(binPath) {
		return false, fmt.Errorf("MCP server binary path %q is not absolute", binPath)
	}
	root, _, err := readSettings(path)
	if err != nil {
		return false, err
	}
	before := string(encode(root))
	servers, err := mcpServers(root, scope, projectDir, path, true)
	if err != nil {
		return false, err
	}
	if v, ok := servers.get(MCPServerName); ok && !isOurMCP(v) {
		return false, fmt.Errorf("%s: mcpServers.%s exists and is not Ben10's; remove or rename it first", path, MCPServerName)
	}
	servers.set(MCPServerName, mcpEntry(command))
	after := encode(root)
	if string(after) == before {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	return true, store.WriteFileAtomic(path, after)
}

// UninstallMCP removes the registration InstallMCP wrote (and only it);
// an mcpServers object it leaves empty goes too, and a .mcp.json left
// empty is removed. It reports whether the file changed.
func UninstallMCP(path string, scope Scope, projectDir string) (bool, error) {
	root, exists, err := readSettings(path)
	if err != nil || !exists {
		return false, err
	}
	servers, err := mcpServers(root, scope, projectDir, path, false)
	if err != nil || servers == nil {
		return false, err
	}
	v, ok := servers.get(MCPServerName)
	if !ok || !isOurMCP(v) {
		return false, nil
	}
	servers.del(MCPServerName)
	if len(servers.keys) == 0 {
		parent := root
		if scope == ScopeLocal {
			projects, _ := existingChild(root, "projects", path)
			parent, _ = existingChild(projects, projectDir, path)
		}
		parent.del("mcpServers")
	}
	if scope == ScopeProject && len(root.keys) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return true, nil
	}
	return true, store.WriteFileAtomic(path, encode(root))
}

// MCPInstalled reports the command of Ben10's MCP registration for scope
// in the file at path ("" when there is none).
func MCPInstalled(path string, scope Scope, projectDir string) (string, error) {
	root, exists, err := readSettings(path)
	if err != nil || !exists {
		return "", err
	}
	servers, err := mcpServers(root, scope, projectDir, path, false)
	if err != nil || servers == nil {
		return "", err
	}
	v, ok := servers.get(MCPServerName)
	if !ok || !isOurMCP(v) {
		return "", nil
	}
	cmd, _ := v.(*object).vals["command"].(string)
	return cmd, nil
}
