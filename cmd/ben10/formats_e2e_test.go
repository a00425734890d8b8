package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The newest session formats through the real binary: each hand-written
// fixture of the importers is saved, inspected and exported (Markdown,
// CUSF, JSON), and what the format adds (a title, a queued prompt, an
// image marker, a code-mode command, a Kimi session without context.jsonl)
// reaches every export.
func TestFormatsSaveInspectExport(t *testing.T) {
	t.Parallel()
	td := filepath.Join("..", "..", "transcript")
	cases := []struct {
		name, transcript string
		title, directory string
		want             []string // in every export
	}{
		{"claude 2.1.2xx", filepath.Join(td, "claude", "testdata", "22222222-3333-4444-8555-666666666666.jsonl"),
			"Add verbose flag and README", "/home/dev/app",
			[]string{"also update the README", "[image]", "the flag looks wrong here:"}},
		{"claude standalone subagent", filepath.Join(td, "claude", "testdata", "agent-a9f.jsonl"),
			"", "/home/dev/app", []string{"Find where flags are parsed", "rg -n flag.Parse"}},
		{"codex code mode", filepath.Join(td, "codex", "testdata", "codemode.jsonl"),
			"", "/home/dev/svc", []string{"Make the health check test pass", "git status --short", "the test expects 503"}},
		{"kimi flat layout", filepath.Join(td, "kimi", "testdata", "flat", "sessions", "10a34c31ebe8af621d6b7d69cb54f54b", "0a1b2c3d-1111-2222-3333-444455556666.jsonl"),
			"", "/home/dev/flat", []string{"Fix the off-by-one in pager.py", "grep -n range pager.py", "pager is called from cli.py"}},
		{"kimi code wire log", filepath.Join(td, "kimi", "testdata", "kimicode", "session_7f00aa00-1111-2222-3333-444455556666", "agents", "main", "wire.jsonl"),
			"", "/home/dev/code", []string{"list the docs", "cat docs/NOPE.md", "docs holds API.md and FORMAT.md."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.ctx")
			mustRun(t, nil, "context", "save", "--transcript", c.transcript, "--out", out, "--redact=false")
			var sum struct {
				Meta struct {
					Title     string `json:"title"`
					Directory string `json:"directory_path"`
				} `json:"meta"`
			}
			if err := json.Unmarshal([]byte(mustRun(t, nil, "context", "inspect", out, "--json").stdout), &sum); err != nil {
				t.Fatalf("inspect --json: %v", err)
			}
			if sum.Meta.Title != c.title || sum.Meta.Directory != c.directory {
				t.Errorf("inspect: title %q directory %q, want %q %q", sum.Meta.Title, sum.Meta.Directory, c.title, c.directory)
			}
			for _, format := range []string{"markdown", "cusf", "json"} {
				exp := mustRun(t, nil, "context", "export", out, "--format", format).stdout
				for _, w := range c.want {
					if !strings.Contains(exp, w) && !strings.Contains(exp, jsonEscaped(w)) {
						t.Errorf("%s export lacks %q", format, w)
					}
				}
				if c.title != "" && !strings.Contains(exp, c.title) {
					t.Errorf("%s export lacks the title %q", format, c.title)
				}
				if !strings.Contains(exp, c.directory) {
					t.Errorf("%s export lacks the session's directory %q", format, c.directory)
				}
			}
		})
	}
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
