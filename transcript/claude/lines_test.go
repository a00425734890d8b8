package claude

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// The Claude Code 2.1.1xx–2.1.2xx lines, from a hand-written session
// (testdata/22222222-….jsonl): every line type is known, the title is
// the latest ai-title, a prompt typed while Claude was busy is a user
// request (a queued task notification is not), a pasted image is an
// [image] marker and a signature-only thinking block makes no message.
func TestImportClaude21x(t *testing.T) {
	st := importFixture(t, "22222222-3333-4444-8555-666666666666.jsonl", archive.ImportOptions{})
	if len(st.Import.UnknownTypes) != 0 {
		t.Errorf("unknown line types: %v", st.Import.UnknownTypes)
	}
	var got []string
	for _, m := range st.Messages {
		got = append(got, fmt.Sprintf("%s/%s: %s", m.Role, m.Kind, m.Text))
	}
	want := []string{
		"user/prompt: Add a --verbose flag to the CLI",
		"assistant/tool_use: ",
		"user/tool_result: ",
		"user/prompt: also update the README",
		"user/prompt: [image]",
		"user/prompt: the flag looks wrong here:\n[image]",
		"assistant/text: Fixed the flag and the README.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"title", st.Meta.Title, "Add verbose flag and README"},
		{"model", st.Meta.Model, "claude-fable-5"},
		{"context", st.Meta.ContextTokens, int64(2020)},
		{"message count", st.Meta.MessageCount, len(want)},
		{"command", st.Tools[0].Command, "go test ./cli/..."},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// A custom title the user set wins over the titles Claude generates.
func TestImportCustomTitleWinsOverAITitle(t *testing.T) {
	lines := []string{
		`{"type":"custom-title","customTitle":"mine","sessionId":"s"}`,
		`{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}`,
		`{"type":"ai-title","aiTitle":"generated","sessionId":"s"}`,
	}
	st, err := ImportReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), "s.jsonl", archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Meta.Title != "mine" {
		t.Errorf("title = %q, want the custom title", st.Meta.Title)
	}
}

// A subagent's own transcript opened by itself (every line isSidechain)
// has its model, context, request and commands.
func TestImportStandaloneSubagent(t *testing.T) {
	st := importFixture(t, "agent-a9f.jsonl", archive.ImportOptions{})
	checks := []struct {
		what      string
		got, want any
	}{
		{"model", st.Meta.Model, "claude-haiku-5"},
		{"context", st.Meta.ContextTokens, int64(4103)},
		{"directory", st.Meta.DirectoryPath, "/home/dev/app"},
		{"tools", len(st.Tools), 1},
		{"command", st.Tools[0].Command, "rg -n flag.Parse"},
		{"first request", st.Messages[0].Text, "Find where flags are parsed"},
		{"first request on the main chain", st.Messages[0].Sidechain, false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// The session's directory is its own cwd, not the project directory the
// import was given (where the save ran); a session without a cwd takes
// the project directory.
func TestImportDirectoryIsSessionCwd(t *testing.T) {
	elsewhere := t.TempDir()
	st := importFixture(t, "22222222-3333-4444-8555-666666666666.jsonl", archive.ImportOptions{ProjectDir: elsewhere})
	if st.Meta.DirectoryPath != "/home/dev/app" {
		t.Errorf("directory = %q, want the session's cwd", st.Meta.DirectoryPath)
	}
	noCwd := `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}` + "\n"
	st, err := ImportReader(strings.NewReader(noCwd), "s.jsonl", archive.ImportOptions{ProjectDir: elsewhere})
	if err != nil {
		t.Fatal(err)
	}
	if st.Meta.DirectoryPath != elsewhere {
		t.Errorf("directory without a cwd = %q, want %q", st.Meta.DirectoryPath, elsewhere)
	}
}
