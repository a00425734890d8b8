package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/claudetest"
	"github.com/ben10ctx/ben10/internal/e2e"
)

// toolResultText is the text of the tool_result block answering the
// tool_use id in r ("" and false when r has none): a string content, or
// the text blocks of an array content (as MCP tools answer).
func toolResultText(r claudetest.Request, id string) (string, bool) {
	for _, m := range r.Messages.Messages {
		for _, b := range m.Blocks() {
			if b.Type != "tool_result" || b.ToolUseID != id {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				return s, true
			}
			var parts []claudetest.Block
			_ = json.Unmarshal(b.Content, &parts)
			var texts []string
			for _, p := range parts {
				texts = append(texts, p.Text)
			}
			return strings.Join(texts, "\n"), true
		}
	}
	return "", false
}

// TestRealClaudeMCPSearch: the MCP server that `ben10 hooks install`
// registers is started by the real Claude Code, offered to the model as
// mcp__ben10__search, and answers a tool_use for it with a hit from a
// previous session: session 1 runs a command (saved by the SessionEnd
// hook, which notes the archive for the index); in session 2 the mock API
// asks for mcp__ben10__search, and the next request carries the
// tool_result naming session 1 and its command.
func TestRealClaudeMCPSearch(t *testing.T) {
	e2e.Require(t, "claude", "tmux")
	const marker = "ben10-mcp-osprey-2718"
	respond := func(r claudetest.Request) claudetest.Reply {
		if r.IsCompaction() {
			return claudetest.Text("<summary>Short.</summary>")
		}
		if r.IsMain() {
			p := lastUserText(r)
			switch {
			case strings.Contains(p, "osprey check"):
				return claudetest.ToolUse("Bash", map[string]any{"command": "echo " + marker, "description": "run the osprey check"})
			case strings.Contains(p, "what did we run"):
				return claudetest.ToolUse("mcp__ben10__search", map[string]any{"query": "osprey-2718"})
			}
		}
		return claudetest.Text("Done.")
	}
	env := claudetest.New(t, claudetest.Config{Ben10: ben10Bin, Respond: respond, Allow: []string{"Bash", "mcp__ben10__search"}, Trace: true})

	id1 := env.MustPrint("run the osprey check")
	if got := sessionEvents(t, env, id1); !inOrder(got, []string{"PostToolUse(Bash)", "SessionEnd(other)"}) {
		t.Fatalf("session 1 hook calls %v: the command did not run or the session was not saved", got)
	}
	// SessionEnd queued the final save: the background worker writes it.
	waitWorker(t, filepath.Join(realStoreDir(env), "current.ctx"))

	env.MustPrint("what did we run before?")
	var offered bool
	var useID, result string
	var answered bool
	for _, r := range env.API.MainRequests() {
		for _, tool := range r.Messages.Tools {
			offered = offered || tool.Name == "mcp__ben10__search"
		}
		for _, m := range r.Messages.Messages {
			for _, b := range m.Blocks() {
				if b.Type == "tool_use" && b.Name == "mcp__ben10__search" {
					useID = b.ID
				}
			}
		}
		if useID != "" && !answered {
			result, answered = toolResultText(r, useID)
		}
	}
	if !offered {
		t.Fatal("no request offered the tool mcp__ben10__search: the MCP server registered by hooks install did not start")
	}
	if !answered {
		t.Fatalf("no request carried a tool_result for the mcp__ben10__search call %q", useID)
	}
	if !strings.Contains(result, "echo ben10-mcp-«osprey-2718»") || !strings.Contains(result, "command  session "+id1) {
		t.Fatalf("the search's tool_result lacks session 1 (%s) and its command %q:\n%s", id1, marker, result)
	}
}
