package kimi

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

const (
	flatID   = "0a1b2c3d-1111-2222-3333-444455556666"
	flatHash = "10a34c31ebe8af621d6b7d69cb54f54b" // md5("/home/dev/flat")
	codeID   = "7f00aa00-1111-2222-3333-444455556666"
)

func summarize(st *archive.State) []string {
	var out []string
	for _, m := range st.Messages {
		side := ""
		if m.Sidechain {
			side = "[" + m.AgentID + "] "
		}
		out = append(out, fmt.Sprintf("%s%s/%s: %s", side, m.Role, m.Kind, m.Text))
	}
	return out
}

// The older flat layout: sessions/<md5>/<id>.jsonl with subagent contexts
// <id>_read_N.jsonl, read from either file.
func TestImportFlatLayout(t *testing.T) {
	dir := filepath.Join("testdata", "flat", "sessions", flatHash)
	for _, p := range []string{flatID + ".jsonl", flatID + "_read_1.jsonl"} {
		t.Run(p, func(t *testing.T) {
			st, err := Import(context.Background(), filepath.Join(dir, p), archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Import.UnknownTypes) != 0 {
				t.Errorf("unknown types %v", st.Import.UnknownTypes)
			}
			var names []string
			for _, r := range st.Raw {
				names = append(names, r.Name)
			}
			checks := []struct {
				what      string
				got, want any
			}{
				{"raw files", strings.Join(names, ","), flatID + ".jsonl," + flatID + "_read_1.jsonl"},
				{"session", st.Meta.SessionID, flatID},
				{"directory", st.Meta.DirectoryPath, "/home/dev/flat"},
				{"subagents", strings.Join(st.Meta.SubagentIDs, ","), "read_1"},
				{"context", st.Meta.ContextTokens, int64(1500)},
				{"tools", len(st.Tools), 3},
				{"command", st.Tools[0].Command, "grep -n range pager.py"},
				{"output", st.Tools[0].Output, "12: for i in range(1, n):"},
				{"first request", st.Messages[0].Text, "Fix the off-by-one in pager.py"},
				{"subagent report", summarize(st)[len(st.Messages)-1], "[read_1] assistant/text: pager is called from cli.py"},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

// A Kimi Code session has only wire logs (protocol 1.4): messages, tool
// calls with outputs and outcomes, usage, the model and the compaction
// come from its records; the explore agent's log is a subagent.
func TestImportKimiCodeWire(t *testing.T) {
	sess := filepath.Join("testdata", "kimicode", "session_"+codeID)
	for _, p := range []string{sess, filepath.Join(sess, "agents", "main", "wire.jsonl")} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			st, err := Import(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Import.UnknownTypes) != 0 {
				t.Errorf("unknown types %v", st.Import.UnknownTypes)
			}
			want := []string{
				"user/prompt: list the docs",
				"assistant/thinking: Run ls in docs.",
				"assistant/tool_use: ",
				"user/tool_result: ",
				"assistant/tool_use: ",
				"user/tool_result: ",
				"assistant/text: docs holds API.md and FORMAT.md.",
				"user/meta: <system-reminder>todo list</system-reminder>",
				"[explore-1] user/prompt: count markdown files",
				"[explore-1] assistant/text: 2 files.",
			}
			if got := summarize(st); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			checks := []struct {
				what      string
				got, want any
			}{
				{"session", st.Meta.SessionID, codeID},
				{"model", st.Meta.Model, "kimi-k2.7-code"},
				{"directory", st.Meta.DirectoryPath, "/home/dev/code"},
				{"context", st.Meta.ContextTokens, int64(1010)},
				{"window", st.Meta.ContextWindow, int64(262144)},
				{"commands", st.Tools[0].Command + "|" + st.Tools[1].Command, "ls docs|cat docs/NOPE.md"},
				{"outcomes", fmt.Sprint(st.Tools[0].Success, st.Tools[1].Success), "true false"},
				{"output", st.Tools[0].Output, "API.md\nFORMAT.md\n"},
				{"compactions", len(st.Compactions), 1},
				{"trigger", st.Compactions[0].Trigger, "manual"},
				{"summary", st.Compactions[0].Summary, "Listed docs: API.md, FORMAT.md; docs/NOPE.md does not exist."},
				{"pre tokens", st.Compactions[0].PreTokens, int64(1010)},
				{"boundary", st.Compactions[0].MessageIndex, 8},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}
