package claude

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

const v2Session = "11111111-2222-4333-8444-555555555555"

func importFixture(t *testing.T, name string, opt archive.ImportOptions) *archive.State {
	t.Helper()
	st, err := Import(context.Background(), filepath.Join("testdata", name), opt)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	return st
}

func TestImportV2(t *testing.T) {
	st := importFixture(t, v2Session+".jsonl", archive.ImportOptions{})
	m := st.Meta
	checks := []struct {
		what      string
		got, want any
	}{
		{"session id", m.SessionID, v2Session},
		{"subagents", strings.Join(m.SubagentIDs, ","), "abc"},
		{"raw files", len(st.Raw), 2},
		{"subagent raw name", st.Raw[1].Name, v2Session + "/subagents/agent-abc.jsonl"},
		{"directory", m.DirectoryPath, "/home/dev/proj"},
		{"version", m.ClientVersion, "2.1.39"},
		{"branch", m.GitBranch, "main"},
		{"model", m.Model, "claude-opus-4-6"},
		{"title", m.Title, "Fix calc"},
		// msg1 is written as three lines sharing id+requestId: counted once.
		{"total tokens", m.TotalTokens, int64(6060 + 4*7300 + 42012 + 8)},
		{"context tokens", m.ContextTokens, int64(3 + 30000 + 12000)},
		{"context window", m.ContextWindow, int64(200000)},
		{"tools", len(st.Tools), 6},
		{"compactions", len(st.Compactions), 1},
		{"unknown types", st.Import.UnknownTypes["brand-new-type"], 1},
		{"skipped", st.Import.Skipped, 0},
		{"truncated", st.Import.Truncated, false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	c := st.Compactions[0]
	if c.Trigger != "auto" || c.PreTokens != 170251 || c.LogicalParent != "u7" || !strings.Contains(c.Summary, "fixed Add") {
		t.Errorf("compaction = %+v", c)
	}
	tools := map[string]archive.ToolExec{}
	for _, x := range st.Tools {
		tools[x.ID] = x
	}
	if b := tools["toolu_1"]; b.Command != "go test ./pkg/calc" || b.Success || !strings.Contains(b.Output, "FAIL: TestAdd") {
		t.Errorf("bash tool = %+v", b)
	}
	if r := tools["toolu_2"]; !r.Success || len(r.RelatedFiles) != 1 || r.RelatedFiles[0] != "pkg/calc/add.go" {
		t.Errorf("read tool = %+v", r)
	}
	if r := tools["toolu_6"]; r.DurationMS != 1234 || r.Output != "Looks good." {
		t.Errorf("task tool = %+v", r)
	}
	if in := tools["toolu_1"].Input; in != `{"command":"go test ./pkg/calc","description":"run tests"}` {
		t.Errorf("bash input = %s", in)
	}
	files := map[string]archive.FileRecord{}
	for _, f := range st.Files {
		files[f.Path] = f
	}
	add := files["pkg/calc/add.go"]
	// The Edit result's original file with the replacement applied.
	if add.Reads != 1 || add.Edits != 1 || add.AccessCount != 2 || add.Hash != hashString("package calc\nfunc Add(a, b int) int { return a + b }") {
		t.Errorf("add.go record = %+v", add)
	}
	if d := files["docs/calc.md"]; d.Writes != 1 || d.Hash != hashString("# calc\n") {
		t.Errorf("docs record = %+v", d)
	}
	ts := st.Tasks
	if len(ts.Active) != 1 || ts.Active[0].Content != "Run tests" || len(ts.Pending) != 1 || len(ts.Completed) != 2 {
		t.Errorf("tasks = %+v", ts)
	}
	if len(st.Preferences) != 1 || st.Preferences[0].Kind != "correction" || st.Preferences[0].MessageID != "u7" {
		t.Errorf("preferences = %+v", st.Preferences)
	}
	kinds := map[string]int{}
	for _, msg := range st.Messages {
		kinds[msg.Kind]++
		if msg.AgentID == "abc" && !msg.Sidechain {
			t.Errorf("subagent message %s not sidechain", msg.ID)
		}
	}
	want := map[string]int{"prompt": 3, "thinking": 1, "text": 3, "tool_use": 5, "tool_result": 5, "summary": 1, "local_command": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("messages of kind %s = %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	if got := st.Messages[0].Text; got != "Fix the failing test in pkg/calc and use tabs — \"quoted\" \\ path" {
		t.Errorf("first prompt = %q", got)
	}
}

// Every span must resolve to the record's text in its raw line.
func TestSpansResolve(t *testing.T) {
	for _, name := range []string{v2Session + ".jsonl", "v1.jsonl", "hostile.jsonl"} {
		st := importFixture(t, name, archive.ImportOptions{})
		checkSpans(t, st)
	}
}

func checkSpans(t *testing.T, st *archive.State) {
	t.Helper()
	line := func(ref archive.RawRef) []byte {
		ls := bytes.Split(st.Raw[ref.File].Data, []byte("\n"))
		return ls[ref.Line]
	}
	check := func(what string, ref archive.RawRef, spans []archive.Span, text string) {
		if len(spans) == 0 {
			return
		}
		got, ok := archive.SpanText(line(ref), spans)
		if !ok || got != text {
			t.Errorf("%s: spans give %q, text is %q", what, got, text)
		}
	}
	for _, m := range st.Messages {
		check("message "+m.ID, m.Ref, m.TextSpans, m.Text)
	}
	for _, x := range st.Tools {
		check("tool input "+x.ID, x.Ref, x.InputSpans, x.Input)
		check("tool output "+x.ID, x.ResultRef, x.OutputSpans, x.Output)
	}
	for _, c := range st.Compactions {
		check("compaction "+c.UUID, c.SummaryRef, c.SummarySpans, c.Summary)
	}
}

func TestImportV1(t *testing.T) {
	st := importFixture(t, "v1.jsonl", archive.ImportOptions{})
	// A summary line is the title of a conversation branch, not a
	// compaction (issue 14 item 12).
	if len(st.Compactions) != 0 || st.Meta.Title != "Earlier work on parser" {
		t.Fatalf("summary line: compactions %+v, title %q", st.Compactions, st.Meta.Title)
	}
	var side int
	for _, m := range st.Messages {
		if m.Sidechain {
			side++
		}
	}
	if side != 1 {
		t.Errorf("inline sidechain messages = %d, want 1", side)
	}
	// The sidechain's usage must not become the latest context usage.
	if st.Meta.ContextTokens != 1 {
		t.Errorf("context tokens = %d, want 1", st.Meta.ContextTokens)
	}
	if len(st.Tools) != 1 || st.Tools[0].Output != "a\nb" {
		t.Errorf("tools = %+v", st.Tools)
	}
}

func TestImportHostile(t *testing.T) {
	st := importFixture(t, "hostile.jsonl", archive.ImportOptions{})
	r := st.Import
	checks := []struct {
		what      string
		got, want any
	}{
		{"lines", r.Lines, 6},
		{"blank", r.Blank, 2},
		{"skipped", r.Skipped, 1},
		{"partial", r.Partial, 1},
		{"truncated", r.Truncated, true},
		{"invalid utf8", r.InvalidUTF8, 1},
		{"messages", len(st.Messages), 2},
		{"problems", len(r.Problems), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if st.Messages[0].Text != "crlf line" || st.Messages[1].Text != "bad \ufffd\ufffd utf8" {
		t.Errorf("texts: %q, %q", st.Messages[0].Text, st.Messages[1].Text)
	}
}

func TestImportHugeLine(t *testing.T) {
	big := strings.Repeat("x", 11<<20)
	data := []byte(`{"type":"user","uuid":"b1","sessionId":"s","message":{"role":"user","content":"` + big + `"}}` + "\n" +
		`{"type":"assistant","uuid":"b2","parentUuid":"b1","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n")
	st, err := ImportReader(bytes.NewReader(data), "s.jsonl", archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Messages) != 2 || len(st.Messages[0].Text) != len(big) || st.Import.Skipped != 0 {
		t.Fatalf("messages %d, first text %d bytes, skipped %d", len(st.Messages), len(st.Messages[0].Text), st.Import.Skipped)
	}
}

func TestImportErrors(t *testing.T) {
	if _, err := ImportReader(strings.NewReader("not json\nat all\n"), "x.jsonl", archive.ImportOptions{}); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("non-JSON input: err = %v, want ErrNotTranscript", err)
	}
	if _, err := ImportReader(strings.NewReader(""), "x.jsonl", archive.ImportOptions{}); !errors.Is(err, ErrNotTranscript) {
		t.Errorf("empty input: err = %v, want ErrNotTranscript", err)
	}
	if _, err := Import(context.Background(), filepath.Join(t.TempDir(), "missing.jsonl"), archive.ImportOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestNoSubagents(t *testing.T) {
	st := importFixture(t, v2Session+".jsonl", archive.ImportOptions{NoSubagents: true})
	if len(st.Raw) != 1 || len(st.Meta.SubagentIDs) != 0 {
		t.Errorf("raw files %d, subagents %v", len(st.Raw), st.Meta.SubagentIDs)
	}
}

func TestIncludeFileContents(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{"pkg/calc/add.go": "package calc\n", "docs/calc.md": "# calc\n"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := importFixture(t, v2Session+".jsonl", archive.ImportOptions{
		ProjectDir: "/home/dev/proj", IncludeFileContents: true, ExcludePatterns: []string{"*.md"},
	})
	// The fixture's files are under /home/dev/proj, which does not exist
	// here: nothing captured, hashes from the transcript kept.
	if len(st.FileContents) != 0 {
		t.Fatalf("captured %d files from a missing root", len(st.FileContents))
	}
	data, err := os.ReadFile(filepath.Join("testdata", v2Session+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/dev/proj"), []byte(root))
	st, err = ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: data}}, archive.ImportOptions{IncludeFileContents: true, ExcludePatterns: []string{"*.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.FileContents) != 1 || st.FileContents[0].Path != "pkg/calc/add.go" || string(st.FileContents[0].Data) != "package calc\n" {
		t.Fatalf("file contents = %+v", st.FileContents)
	}
	for _, f := range st.Files {
		if f.Path == "pkg/calc/add.go" && f.Hash != hashString("package calc\n") {
			t.Errorf("hash not taken from disk: %+v", f)
		}
	}
	if _, err := ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: data}}, archive.ImportOptions{IncludeFileContents: true, ExcludePatterns: []string{"["}}); err == nil {
		t.Errorf("bad exclude pattern accepted")
	}
}

// A transcript whose name does not end in .jsonl has no subagents folder:
// it imports alone instead of failing on "<file>/subagents".
func TestImportPathWithoutJSONLSuffix(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "session.txt")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatalf("Import(%s): %v", p, err)
	}
	if len(st.Raw) != 1 || st.Raw[0].Name != "session.txt" || len(st.Messages) == 0 {
		t.Fatalf("imported %d raw files (%v), %d messages", len(st.Raw), st.Raw, len(st.Messages))
	}
}
