package mcp_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/transcript"
)

// TestFourAssistants: a session of each assistant Ben10 imports (Claude
// Code, Codex, Gemini CLI, Kimi), saved in a project of its own, is found
// by index.Search (filtered by assistant) and by the MCP search tool
// across all projects, by a command or path it holds.
func TestFourAssistants(t *testing.T) {
	fixtures := []struct {
		assistant archive.Harness
		path      string
	}{
		{archive.HarnessClaude, fixture},
		{archive.HarnessCodex, "../transcript/codex/testdata/basic.jsonl"},
		{archive.HarnessGemini, "../transcript/gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl"},
		{archive.HarnessKimi, "../transcript/kimi/testdata/flat/sessions/10a34c31ebe8af621d6b7d69cb54f54b/0a1b2c3d-1111-2222-3333-444455556666.jsonl"},
	}
	root := t.TempDir()
	e := fixtureEnv{home: filepath.Join(root, "home"), project: filepath.Join(root, "claude")}
	type want struct {
		assistant, session, query string
	}
	var wants []want
	var projects []string
	for _, f := range fixtures {
		proj := filepath.Join(root, string(f.assistant))
		var buf bytes.Buffer
		if _, _, err := transcript.Save(context.Background(), &buf, f.path, f.assistant, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		cur := filepath.Join(proj, ".claude", "context", "current.ctx")
		if err := os.MkdirAll(filepath.Dir(cur), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cur, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := archive.OpenFile(cur, archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := index.Extract(a)
		session := a.Meta().SessionID
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		q := ""
		for _, r := range rows {
			if (r.Kind == index.KindCommand || r.Kind == index.KindPath) && len(r.Text) >= 6 && !strings.ContainsAny(r.Text, "\n\"") {
				q, _, _ = strings.Cut(r.Text, " (")
				break
			}
		}
		if q == "" {
			t.Fatalf("%s: no command or path indexed from %s (%d rows)", f.assistant, f.path, len(rows))
		}
		if session == "" {
			t.Fatalf("%s: no session id in %s", f.assistant, f.path)
		}
		t.Logf("%s: session %s, query %q", f.assistant, session, q)
		wants = append(wants, want{string(f.assistant), session, q})
		projects = append(projects, proj)
	}
	x, err := index.Open(index.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	if st, err := x.Update(ctx, index.UpdateOptions{Projects: projects}); err != nil || st.Added != 4 {
		t.Fatalf("update: %+v %v", st, err)
	}
	cs := connect(t, e)
	for _, w := range wants {
		hits, err := x.Search(ctx, index.Query{Text: w.query, Assistant: w.assistant})
		if err != nil || len(hits) == 0 || hits[0].Session != w.session || hits[0].Assistant != w.assistant {
			t.Errorf("%s: search %q: %+v %v", w.assistant, w.query, hits, err)
		}
		out, isErr := call(t, cs, "search", map[string]any{"query": w.query, "scope": "all", "limit": 50})
		if isErr || !strings.Contains(out, " "+w.assistant+" ") || !strings.Contains(out, "session "+w.session) {
			t.Errorf("%s: MCP search %q:\n%s", w.assistant, w.query, out)
		}
	}
}
