package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// context save and export for every harness, with and without --harness.
func TestContextSaveExportAllHarnesses(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	sessions := newFakeSessions(t, home, project, 1)
	for _, s := range sessions {
		s.turn(t, 30)
		s.turn(t, 40)
	}
	env := cleanEnv(home)
	for i, s := range sessions {
		path := s.path
		if s.llm == "kimi" {
			path = filepath.Join(filepath.Dir(s.path), "context.jsonl")
		}
		out := filepath.Join(t.TempDir(), s.llm+".ctx")
		args := []string{"context", "save", "--transcript", path, "--out", out, "--json"}
		if i%2 == 0 {
			args = append(args, "--harness", s.llm)
		}
		r := runBen10(t, nil, env, args...)
		if r.code != 0 {
			t.Fatalf("%s save: %s", s.llm, r.stderr)
		}
		var saved struct {
			SessionID string `json:"session_id"`
			Messages  int    `json:"messages"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &saved); err != nil || saved.SessionID != s.id || saved.Messages < 4 {
			t.Errorf("%s save: %+v %v\n%s", s.llm, saved, err, r.stdout)
		}
		// CUSF to stdout: _meta first, session_end last, the harness named.
		r = runBen10(t, nil, env, "context", "export", out, "--format", "cusf")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != 0 || len(lines) < 6 || !strings.Contains(lines[0], `"_meta"`) || !strings.Contains(lines[len(lines)-1], `"session_end"`) ||
			!strings.Contains(r.stdout, `"llm_source":"`+s.llm+`"`) || !strings.Contains(r.stdout, "please refactor the parser") {
			t.Errorf("%s cusf: code %d\n%s%s", s.llm, r.code, r.stdout, r.stderr)
		}
		// Markdown and JSON to files; a session file exports directly too.
		md := filepath.Join(t.TempDir(), "s.md")
		if r = runBen10(t, nil, env, "context", "export", out, "--format", "markdown", "--out", md); r.code != 0 {
			t.Errorf("%s markdown: %s", s.llm, r.stderr)
		} else if b, _ := os.ReadFile(md); !strings.Contains(string(b), "the parser now streams") {
			t.Errorf("%s markdown lacks the reply:\n%s", s.llm, b)
		}
		r = runBen10(t, nil, env, "context", "export", path, "--format", "json")
		var model struct {
			Meta struct {
				Harness string `json:"harness"`
			} `json:"meta"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &model) != nil || model.Meta.Harness != s.llm {
			t.Errorf("%s json from the session file: code %d %s", s.llm, r.code, r.stderr)
		}
	}
	notes := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notes, []byte("just some notes\n"), 0o600)
	bad := []struct {
		args []string
		msg  string
	}{
		{[]string{"context", "save", "--transcript", sessions[0].path, "--out", filepath.Join(t.TempDir(), "x.ctx"), "--harness", "qwen"}, "unknown harness"},
		{[]string{"context", "export", sessions[0].path, "--format", "yaml"}, `format "yaml" not supported`},
		{[]string{"context", "export", sessions[0].path}, "needs --dir"},
		{[]string{"context", "export", notes, "--format", "cusf"}, "neither a .ctx archive nor a session file"},
	}
	for _, b := range bad {
		r := runBen10(t, nil, env, b.args...)
		if r.code == 0 || !strings.Contains(r.stderr, b.msg) {
			t.Errorf("%v: code %d, stderr %q, want %q", b.args, r.code, r.stderr, b.msg)
		}
	}
}
