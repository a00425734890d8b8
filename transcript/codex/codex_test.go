package codex_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript/codex"
	"github.com/ben10ctx/ben10/transcript/internal/imptest"
)

func kinds(s *archive.State) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Role+"/"+m.Kind)
	}
	return out
}

func TestBasic(t *testing.T) {
	p := filepath.Join("testdata", "basic.jsonl")
	s, err := codex.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	imptest.CheckRaw(t, s, "basic.jsonl", p)
	imptest.CheckRefs(t, s)
	m := s.Meta
	if m.Harness != archive.HarnessCodex || m.SessionID != "019c0000-0000-7000-8000-000000000001" || m.DirectoryPath != "/home/dev/proj" ||
		m.ClientVersion != "0.104.0" || m.GitBranch != "main" || m.Model != "gpt-5.3-codex" {
		t.Errorf("meta = %+v", m)
	}
	if m.TotalTokens != 20500 || m.ContextTokens != 11300 || m.ContextWindow != 258400 {
		t.Errorf("tokens total=%d ctx=%d window=%d", m.TotalTokens, m.ContextTokens, m.ContextWindow)
	}
	want := []string{
		"system/meta", "user/meta", "user/prompt", "assistant/thinking", "assistant/text",
		"user/tool_result", "assistant/tool_use", "user/tool_result", "assistant/tool_use", "user/tool_result",
		"assistant/tool_use", "user/tool_result", "assistant/tool_use", "assistant/text",
		"user/summary", "user/prompt", "user/summary", "system/meta",
	}
	if got := kinds(s); !reflect.DeepEqual(got, want) {
		t.Errorf("messages:\n got %v\nwant %v", got, want)
	}
	if s.Messages[2].Text != "Fix the failing test in calc.go\n[image]" {
		t.Errorf("prompt text %q", s.Messages[2].Text)
	}
	if got := s.Messages[4].ToolCallIDs; !reflect.DeepEqual(got, []string{"call_shell1"}) {
		t.Errorf("assistant tool calls %v", got)
	}
	if s.Messages[4].Tokens != 200 {
		t.Errorf("assistant tokens %d", s.Messages[4].Tokens)
	}
	if len(s.Tools) != 5 {
		t.Fatalf("%d tools", len(s.Tools))
	}
	sh := s.Tools[0]
	if sh.Name != "shell" || sh.Command != "go test ./..." || sh.Success || sh.DurationMS != 1500 || sh.Output != "--- FAIL: TestAdd\nFAIL\n" {
		t.Errorf("shell tool %+v", sh)
	}
	ex := s.Tools[1]
	if ex.Command != "sed -n 1,40p calc.go" || !ex.Success {
		t.Errorf("exec tool %+v", ex)
	}
	pt := s.Tools[2]
	if pt.Name != "apply_patch" || !pt.Success || !reflect.DeepEqual(pt.RelatedFiles, []string{"calc.go", "docs/NOTES.md"}) || !strings.HasPrefix(pt.Input, `"*** Begin Patch`) {
		t.Errorf("patch tool %+v", pt)
	}
	if s.Tools[3].Output != "Plan updated" {
		t.Errorf("array output %q", s.Tools[3].Output)
	}
	ws := s.Tools[4]
	if ws.Name != "web_search" || !ws.Success || !strings.Contains(ws.Input, "go test flags") {
		t.Errorf("web search %+v", ws)
	}
	if len(s.Files) != 2 || s.Files[0].Path != "calc.go" || s.Files[0].Edits != 1 || s.Files[1].Path != "docs/NOTES.md" || s.Files[1].Writes != 1 {
		t.Errorf("files %+v", s.Files)
	}
	if len(s.Tasks.Completed) != 1 || len(s.Tasks.Active) != 1 || len(s.Tasks.Pending) != 1 || s.Tasks.Active[0].Content != "Fix calc.go" {
		t.Errorf("tasks %+v", s.Tasks)
	}
	if len(s.Compactions) != 2 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	c0, c1 := s.Compactions[0], s.Compactions[1]
	if c0.Summary != "Summary: fixed Add in calc.go; tests pass." || c0.MessageIndex != 14 || c0.PreTokens != 11300 {
		t.Errorf("local compaction %+v", c0)
	}
	if !strings.Contains(c1.Summary, "remote compaction: 2 items") {
		t.Errorf("remote compaction %+v", c1)
	}
	if s.Import.Skipped != 0 || s.Import.Partial != 0 || len(s.Import.UnknownTypes) != 0 || s.Import.Lines != 29 {
		t.Errorf("report %+v", s.Import)
	}
}

func TestHostile(t *testing.T) {
	p := filepath.Join("testdata", "hostile.jsonl")
	s, err := codex.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	imptest.CheckRaw(t, s, "hostile.jsonl", p)
	imptest.CheckRefs(t, s)
	r := s.Import
	if !r.Truncated || r.Skipped != 2 || r.InvalidUTF8 != 1 || r.Lines != 10 || r.Partial != 2 {
		t.Errorf("report %+v", r)
	}
	wantUnknown := map[string]int{"mystery_record": 1, "response_item/brand_new_item": 1, "event_msg/brand_new_event": 1}
	if !reflect.DeepEqual(r.UnknownTypes, wantUnknown) {
		t.Errorf("unknown %v", r.UnknownTypes)
	}
	if len(r.Problems) == 0 || !strings.Contains(strings.Join(r.Problems, "\n"), "hostile.jsonl:12: incomplete last line") {
		t.Errorf("problems %q", r.Problems)
	}
	if s.Messages[0].Text != "hello crlf" || !strings.Contains(s.Messages[1].Text, "bad \uFFFD") {
		t.Errorf("messages %+v", s.Messages[:2])
	}
}

func TestEmptyAndGarbage(t *testing.T) {
	for _, in := range []string{"", "\n\n", "\x00\x01\x02", "{", `{"type":"session_meta","payload":[]}`, `[]`, `null`} {
		s, err := codex.ImportBytes("x.jsonl", []byte(in), archive.ImportOptions{})
		if err != nil || s == nil {
			t.Fatalf("%q: %v", in, err)
		}
		if string(s.Raw[0].Data) != in {
			t.Errorf("%q: raw not kept", in)
		}
	}
}

func TestProjectDirOption(t *testing.T) {
	s, err := codex.Import(context.Background(), filepath.Join("testdata", "basic.jsonl"), archive.ImportOptions{ProjectDir: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Files[0].Path != "proj/calc.go" {
		t.Errorf("files relative to ProjectDir: %+v", s.Files)
	}
}

func TestCorpus(t *testing.T) {
	dir := testcorpus.Dir(t, "codex")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			p := filepath.Join(dir, e.Name())
			s, err := codex.Import(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			imptest.CheckRaw(t, s, e.Name(), p)
			imptest.CheckRefs(t, s)
			if s.Meta.SessionID == "" || s.Meta.DirectoryPath == "" || s.Meta.ClientVersion == "" || s.Meta.Model == "" {
				t.Errorf("meta %+v", s.Meta)
			}
			if s.Import.Skipped != 0 || s.Import.Truncated || s.Import.Partial != 0 {
				t.Errorf("report %+v", s.Import)
			}
			if s.Meta.MessageCount == 0 || s.Meta.TotalTokens == 0 || s.Meta.ContextTokens == 0 {
				t.Errorf("counts %+v", s.Meta)
			}
			// Every event_msg message of these files has its response
			// item: none may become a message (the sanitized files label
			// event and item texts differently, so those are not compared).
			lines := strings.Split(string(s.Raw[0].Data), "\n")
			for _, m := range s.Messages {
				if strings.Contains(lines[m.Ref.Line], `"type":"event_msg"`) && !strings.Contains(lines[m.Ref.Line], `"turn_aborted"`) && !strings.HasPrefix(m.Text, "[REDACTED_") {
					t.Errorf("message %s from an event duplicates a response item: %.100s", m.ID, lines[m.Ref.Line])
				}
			}
		})
	}
}

func TestIncludeFileContents(t *testing.T) {
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "calc.go"), []byte("package calc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := archive.ImportOptions{ProjectDir: proj, IncludeFileContents: true, ExcludePatterns: []string{"*.md"}}
	// The fixture's cwd is /home/dev/proj; make its relative paths land in proj.
	data, err := os.ReadFile(filepath.Join("testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(data), "/home/dev/proj", proj)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := codex.Import(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.FileContents) != 1 || s.FileContents[0].Path != "calc.go" || string(s.FileContents[0].Data) != "package calc\n" || s.Files[0].Hash == "" {
		t.Errorf("contents %+v files %+v", s.FileContents, s.Files)
	}
	if s.Import.Files != 1 {
		t.Errorf("report files %d", s.Import.Files)
	}
	opt.ExcludePatterns = []string{"["}
	if _, err := codex.Import(context.Background(), p, opt); err == nil {
		t.Error("bad exclude pattern accepted")
	}
}

// TestManyEvents imports a long rollout whose events have no response
// items: each becomes a message, and the dedupe search stays local.
func TestManyEvents(t *testing.T) {
	var b strings.Builder
	n := 20000
	if testing.Short() {
		n = 4000 // make test-long imports all 20000
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"item %d %s"}]}}`+"\n", i, strings.Repeat("z", 200))
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"agent_message","message":"event %d"}}`+"\n", i)
	}
	s, err := codex.ImportBytes("r.jsonl", []byte(b.String()), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) != 2*n || s.Import.Lines != 2*n {
		t.Errorf("%d messages, %d lines", len(s.Messages), s.Import.Lines)
	}
}

// Codex 0.14x code mode and sub-agents (testdata/codemode.jsonl, written
// by hand): every exec_command call of an "exec" JavaScript cell is a
// command with the cell's output and outcome; a sub-agent's report is
// kept once; harness-injected blocks are not the first request.
func TestCodeMode(t *testing.T) {
	s, err := codex.Import(context.Background(), filepath.Join("testdata", "codemode.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Import.UnknownTypes) != 0 {
		t.Errorf("unknown types %v", s.Import.UnknownTypes)
	}
	var cmds []string
	for _, x := range s.Tools {
		cmds = append(cmds, fmt.Sprintf("%s %q ok=%v", x.ID, x.Command, x.Success))
	}
	wantCmds := []string{
		`call_c1 "go test ./health/..." ok=false`,
		`call_c1#2 "git status --short" ok=false`,
		`call_c2 "go vet ./..." ok=true`,
	}
	if !reflect.DeepEqual(cmds, wantCmds) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(cmds, "\n"), strings.Join(wantCmds, "\n"))
	}
	if got := s.Tools[1].Output; !strings.Contains(got, "FAIL: TestHealth") {
		t.Errorf("second command's output = %q, want the cell's", got)
	}
	var prompts, reports []string
	for _, m := range s.Messages {
		switch m.Kind {
		case "prompt":
			prompts = append(prompts, m.Text)
		case "agent":
			reports = append(reports, m.Text)
		}
	}
	if len(prompts) != 1 || prompts[0] != "Make the health check test pass" {
		t.Errorf("prompts = %q, want only the user's request", prompts)
	}
	if len(reports) != 1 || !strings.Contains(reports[0], "the test expects 503") || !strings.HasPrefix(reports[0], "[/root/reviewer → /root]") {
		t.Errorf("sub-agent reports = %q", reports)
	}
	if s.Meta.Model != "gpt-5.5" {
		t.Errorf("model = %q", s.Meta.Model)
	}
}

func TestCellCommands(t *testing.T) {
	cases := []struct {
		js   string
		want []string
	}{
		{`await tools.exec_command({cmd: "ls -la"})`, []string{"ls -la"}},
		{`tools.exec_command({ 'cmd': 'echo \'hi\'', workdir: '/x' })`, []string{"echo 'hi'"}},
		{"tools.exec_command({cmd: `make test`})", []string{"make test"}},
		{"tools.exec_command({cmd: `rm ${dir}`})", nil},
		{`tools.exec_command({cmd: ["bash", "-lc", "cargo build"]}); tools.exec_command({workdir: "/y", cmd: "cargo test"})`, []string{"cargo build", "cargo test"}},
		{`const c = "ls"; tools.exec_command({cmd: c})`, nil},
		{`tools.exec_command({cmd: "unterminated`, nil},
		{`tools.exec_command(`, nil},
		{`tools.exec_command({opts: {a: [1, "}"]}, cmd: "pwd"})`, []string{"pwd"}},
	}
	for _, c := range cases {
		if got := codex.CellCommandsForTest(c.js); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.js, got, c.want)
		}
	}
}

// A session_meta or turn_context whose fields have the wrong types is
// counted as partial, with a problem naming its line.
func TestWrongTypedMeta(t *testing.T) {
	in := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":5}}
{"timestamp":"2026-01-01T00:00:01Z","type":"turn_context","payload":{"model":["x"]}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":"hi"}}
`
	s, err := codex.ImportBytes("r.jsonl", []byte(in), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := strings.Join(s.Import.Problems, "\n")
	if s.Import.Partial != 2 || !strings.Contains(p, "r.jsonl:1: session_meta payload: unexpected shape") || !strings.Contains(p, "r.jsonl:2: turn_context payload: unexpected shape") {
		t.Errorf("partial %d, problems %q", s.Import.Partial, s.Import.Problems)
	}
	if len(s.Messages) != 1 || s.Messages[0].Text != "hi" {
		t.Errorf("messages %+v", s.Messages)
	}
}
