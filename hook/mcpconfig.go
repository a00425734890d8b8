package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/internal/jsonedit"
)

// MCPServerName is the key Ben10's MCP server is registered under in
// Claude Code's mcpServers (its tools are then mcp__ben10__search, …).
const MCPServerName = "ben10"

// RecallToolsLine ends the digest injected after a compaction: it tells
// the assistant that Ben10's MCP tools can look up what the digest left out.
const RecallToolsLine = hookstart.RecallToolsLine

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

func uninstallMCPEdit(doc []byte, scope Scope, projectDir string) ([]byte, error) {
	root, err := parseRoot(doc)
	if err != nil {
		return nil, err
	}
	parent, err := mcpParent(root, scope, projectDir)
	if err != nil || parent == nil {
		return doc, err
	}
	list := parent.Get("mcpServers")
	if list == nil || list.Kind != jsonedit.Object {
		return doc, nil
	}
	cur := list.Get(MCPServerName)
	if !isOurMCP(doc, cur) {
		return doc, nil
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
		out, err := installMCPEdit(doc, scope, projectDir, command)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return out, nil
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
		out, err := uninstallMCPEdit(doc, scope, projectDir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return out, nil
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
	// A project's .mcp.json is untrusted: a regular file of a settings
	// file's size, checked before it is read (a FIFO or /dev/zero behind
	// it must not block or exhaust doctor).
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSettingsSize {
		return "", fmt.Errorf("%s: not a regular settings file of at most %d bytes", path, maxSettingsSize)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if len(doc) > maxSettingsSize {
		return "", fmt.Errorf("%s: %d bytes, more than a settings file", path, len(doc))
	}
	root, err := parseRoot(doc)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	parent, err := mcpParent(root, scope, projectDir)
	if err != nil || parent == nil {
		return "", err
	}
	list := parent.Get("mcpServers")
	if list == nil || list.Kind != jsonedit.Object {
		return "", nil
	}
	cur := list.Get(MCPServerName)
	if !isOurMCP(doc, cur) {
		return "", nil
	}
	return jsonedit.Str(doc, cur.Get("command")), nil
}
