package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// newMCPCmd builds `ben10 mcp`: the server speaks MCP on g's input and
// output streams.
func newMCPCmd(g *globalOptions) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve Ben10's recall tools to an assistant over MCP (stdio)",
		Long: `Run the Ben10 MCP server on stdin and stdout. An assistant (Claude Code:
` + "`ben10 hooks install`" + ` registers it) can then search everything Ben10 captured,
read around a hit, recall what was done to a file before a compaction, list
sessions and snapshots, and store a checkpoint of its own. The project is the
client's first root, else --dir, else the working directory.`,
		Example: `  ben10 mcp                 # what Claude Code runs (ben10 hooks install registers it)
  ben10 mcp --dir ~/src/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcp.Serve(cmd.Context(), mcp.Options{Dir: dir, Version: version}, g.io.In, g.io.Out)
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "project directory when the client names none (default: the working directory)")
	return c
}

// installMCPServer registers `ben10 mcp` beside the hooks (see
// hook.InstallMCP) and says so on out.
func (o *hooksOptions) installMCPServer(out io.Writer, bin string) (map[string]any, error) {
	return o.editMCP(out, "registering the MCP server", "Registered the Ben10 MCP server (mcpServers."+hook.MCPServerName+") in %s\n",
		func(path string, sc hook.Scope, dir string) (bool, error) { return hook.InstallMCP(path, sc, dir, bin) })
}

// uninstallMCPServer removes what installMCPServer wrote.
func (o *hooksOptions) uninstallMCPServer(out io.Writer) (map[string]any, error) {
	return o.editMCP(out, "removing the MCP server", "Removed the Ben10 MCP server from %s\n", hook.UninstallMCP)
}

// editMCP applies edit to the MCP configuration file of --scope and --dir
// (the scope and project of the hooks' settings file) and, when it changed
// the file, says done (a format naming the file) on out.
func (o *hooksOptions) editMCP(out io.Writer, doing, done string, edit func(path string, sc hook.Scope, dir string) (bool, error)) (map[string]any, error) {
	_, sc, dir, err := o.hooksTarget()
	if err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	path := hook.MCPConfigPath(sc, home, dir)
	changed, err := edit(path, sc, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	if changed {
		o.g.infof(out, done, path)
	}
	return map[string]any{"path": path, "changed": changed}, nil
}

// mcpChecks are doctor's checks of the MCP server: registered for some
// scope, and the registered command starts and lists every tool.
func mcpChecks(home, project string) []check {
	var out []check
	for _, sc := range hook.Scopes {
		path := hook.MCPConfigPath(sc, home, project)
		command, err := hook.MCPInstalled(path, sc, project)
		if err != nil {
			out = append(out, check{"mcp", "fail", fmt.Sprintf("%s: %v", path, err)})
			continue
		}
		if command == "" {
			continue
		}
		bin, err := exec.LookPath(command)
		if err != nil {
			out = append(out, check{"mcp", "fail", fmt.Sprintf("%s (%s): %s not found: %v", sc, path, command, err)})
			continue
		}
		tools, err := probeMCP(bin, project)
		if err != nil {
			out = append(out, check{"mcp", "fail", fmt.Sprintf("%s (%s): `%s mcp` did not start: %v", sc, path, bin, err)})
			continue
		}
		var missing []string
		for _, n := range mcp.ToolNames {
			if !slices.Contains(tools, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			out = append(out, check{"mcp", "fail", fmt.Sprintf("%s (%s): tools missing: %s (an older ben10?)", sc, path, strings.Join(missing, ", "))})
			continue
		}
		out = append(out, check{"mcp", "ok", fmt.Sprintf("%s (%s) → %s mcp: %d tools", sc, path, bin, len(tools))})
	}
	if len(out) == 0 {
		out = append(out, check{"mcp", "warn", "the MCP server is not registered; run `ben10 hooks install`"})
	}
	return out
}

// probeMCP starts `bin mcp` in project and lists its tools.
func probeMCP(bin, project string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "mcp")
	c.Dir = project
	client := sdk.NewClient(&sdk.Implementation{Name: "ben10-doctor", Version: version}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: c}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}
