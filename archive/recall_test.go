package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

var t0 = time.Date(2026, 2, 11, 20, 0, 0, 0, time.UTC)

// at is t0 plus n minutes.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func input(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// synthState is a small session in /home/u/proj: a todo list, four user
// requests, file reads/edits/writes, searches, shell commands (one failing
// then fixed, one still failing), a rejected edit, a preference and a plan.
func synthState() *State {
	const dir = "/home/u/proj"
	s := &State{
		Meta: Metadata{
			SchemaVersion: SchemaVersion, Harness: HarnessClaude, SessionID: "4d5611e5-241a-462a-8d15-5122611a9569",
			DirectoryPath: dir, GitBranch: "feature-x", Model: "claude-opus-4-6", ClientVersion: "2.1.39",
			FirstActivity: at(0), LastActivity: at(90), MessageCount: 40, ToolCount: 14, FileCount: 5, ContextTokens: 150000,
		},
		Messages: []Message{
			{ID: "m1", Role: "user", Kind: "prompt", Text: "Add a retry option to the uploader", Timestamp: at(1)},
			{ID: "m2", Role: "assistant", Kind: "text", Text: "I'll start by reading the uploader.", Timestamp: at(2)},
			{ID: "m3", Role: "user", Kind: "prompt", Text: "<local-command-stdout>ok</local-command-stdout>", Timestamp: at(3)},
			{ID: "m4", Role: "user", Kind: "prompt", Text: "Use exponential backoff,\nnot a fixed delay", Timestamp: at(20)},
			{ID: "m5", Role: "user", Kind: "prompt", Text: "sidechain prompt", Timestamp: at(21), Sidechain: true},
			{ID: "m6", Role: "user", Kind: "prompt", Text: "<command-name>/review</command-name><command-args>uploader</command-args>", Timestamp: at(40)},
			{ID: "m7", Role: "user", Kind: "prompt", Text: "Now make the tests pass and commit", Timestamp: at(80)},
		},
		Files: []FileRecord{
			{Path: "uploader/upload.go", AccessCount: 5, Reads: 2, Edits: 3, LastAccess: at(60)},
			{Path: "uploader/retry.go", AccessCount: 1, Writes: 1, LastAccess: at(30)},
			{Path: "uploader/upload_test.go", AccessCount: 2, Reads: 1, Edits: 1, LastAccess: at(70)},
			{Path: "README.md", AccessCount: 1, Reads: 1, LastAccess: at(5)},
			{Path: "/etc/hosts", AccessCount: 1, Reads: 1, LastAccess: at(6)},
		},
		Tools: []ToolExec{
			{ID: "t1", Name: "Read", Input: input("file_path", dir+"/README.md"), Success: true, Timestamp: at(5)},
			{ID: "t2", Name: "Read", Input: input("file_path", "/etc/hosts"), Success: true, Timestamp: at(6)},
			{ID: "t3", Name: "Glob", Input: input("pattern", "uploader/**/*.go"), Success: true, Timestamp: at(7)},
			{ID: "t4", Name: "Grep", Input: input("pattern", "Retry", "path", dir+"/uploader"), Success: true, Timestamp: at(8)},
			{ID: "t5", Name: "Read", Input: input("file_path", dir+"/uploader/upload.go"), Success: true, Timestamp: at(10)},
			{ID: "t6", Name: "Write", Input: input("file_path", dir+"/uploader/retry.go", "content", "package uploader"), Success: true, Timestamp: at(30)},
			{ID: "t7", Name: "Edit", Input: input("file_path", dir+"/uploader/upload.go", "old_string", "a", "new_string", "b"), Output: "<tool_use_error>String to replace not found in file.</tool_use_error>", Success: false, Timestamp: at(31)},
			{ID: "t8", Name: "Edit", Input: input("file_path", dir+"/uploader/upload.go"), Success: true, Timestamp: at(32)},
			{ID: "t9", Name: "Bash", Input: input("command", "go test ./uploader/... 2>&1"), Output: "Exit code 1\n--- FAIL: TestRetry (0.00s)\n    upload_test.go:12: got 1 want 3\nFAIL", Success: false, Timestamp: at(50)},
			{ID: "t10", Name: "Edit", Input: input("file_path", dir+"/uploader/upload.go"), Success: true, Timestamp: at(60)},
			{ID: "t11", Name: "Bash", Input: input("command", "go test ./uploader/...   -run TestRetry"), Output: "ok", Success: true, Timestamp: at(65)},
			{ID: "t12", Name: "Edit", Input: input("file_path", dir+"/uploader/upload_test.go"), Success: true, Timestamp: at(70)},
			{ID: "t13", Name: "Bash", Input: input("command", "git add -A && git commit -m \"$(cat <<'EOF'\nfeat: retry\n\nwith backoff\nEOF\n)\""), Success: true, Timestamp: at(75)},
			{ID: "t14", Name: "Bash", Input: input("command", "git push"), Output: "Exit code 128\nfatal: The current branch feature-x has no upstream branch.", Success: false, Timestamp: at(85)},
			{ID: "t15", Name: "Bash", Input: input("command", "rm -rf /tmp/side"), Success: true, Timestamp: at(86), Sidechain: true},
			{ID: "t17", Name: "Bash", Input: input("command", "make deploy"), Timestamp: at(89)},
			{ID: "t16", Name: "ExitPlanMode", Input: input("plan", "# Retry with backoff\n\n## Steps\n1. add option\n## Tests\n"), Success: true, Timestamp: at(15)},
		},
		Tasks: TaskState{
			Active:    []Task{{Content: "Make the uploader tests pass", ActiveForm: "Making the uploader tests pass", Status: "in_progress"}},
			Pending:   []Task{{Content: "Push the branch", Status: "pending"}},
			Completed: []Task{{Content: "Add retry option", Status: "completed"}, {Content: "Use exponential backoff", Status: "completed"}},
			UpdatedAt: at(78),
		},
		Compactions: []Compaction{{UUID: "c1", Trigger: "auto", PreTokens: 167000, Timestamp: at(45), Summary: "earlier work"}},
		Preferences: []Preference{{Kind: "correction", Text: "Use exponential backoff, not a fixed delay", Timestamp: at(20), MessageID: "m4"}},
	}
	return s
}

func TestBuildRecall(t *testing.T) {
	r := BuildRecall(synthState())
	if r.Version != RecallVersion {
		t.Fatalf("version %d", r.Version)
	}
	if r.Initial == nil || r.Initial.Text != "Add a retry option to the uploader" {
		t.Fatalf("initial request = %+v", r.Initial)
	}
	var reqs []string
	for _, q := range r.Requests {
		reqs = append(reqs, q.Text)
	}
	wantReqs := []string{"Now make the tests pass and commit", "/review uploader", "Use exponential backoff, not a fixed delay"}
	if strings.Join(reqs, "|") != strings.Join(wantReqs, "|") {
		t.Errorf("requests = %q, want %q", reqs, wantReqs)
	}

	files := map[string]RecallFile{}
	var order []string
	for _, f := range r.Files {
		files[f.Path] = f
		order = append(order, f.Path)
	}
	wantOrder := []string{"uploader/upload_test.go", "uploader/upload.go", "uploader/retry.go", "uploader", "uploader/**/*.go", "/etc/hosts", "README.md"}
	if strings.Join(order, " ") != strings.Join(wantOrder, " ") {
		t.Errorf("file order = %q, want %q", order, wantOrder)
	}
	if f := files["uploader/upload.go"]; f.Edits != 3 || f.Reads != 2 || !f.Last.Equal(at(60)) {
		t.Errorf("upload.go = %+v", f)
	}
	if f := files["uploader"]; f.Searches != 1 || f.Modified() {
		t.Errorf("uploader dir = %+v", f)
	}

	cmds := map[string]RecallCommand{}
	var corder []string
	for _, c := range r.Commands {
		cmds[c.Command] = c
		corder = append(corder, c.Command)
	}
	wantC := []string{"make deploy", "git push", `git add -A && git commit -m "$(cat <<'EOF'`, "go test ./uploader/... -run TestRetry", "go test ./uploader/... 2>&1"}
	if strings.Join(corder, "|") != strings.Join(wantC, "|") {
		t.Errorf("commands = %q, want %q", corder, wantC)
	}
	if c := cmds["make deploy"]; !c.NoResult || c.Failures != 0 {
		t.Errorf("make deploy = %+v", c)
	}
	if c := cmds["git push"]; c.OK || !c.ExitKnown || c.Exit != 128 || !strings.HasPrefix(c.Error, "fatal: The current branch") {
		t.Errorf("git push = %+v", c)
	}
	if c := cmds[`git add -A && git commit -m "$(cat <<'EOF'`]; c.Lines != 6 || !c.OK {
		t.Errorf("commit = %+v", c)
	}
	if _, ok := cmds["rm -rf /tmp/side"]; ok {
		t.Error("sidechain command kept")
	}

	if len(r.Errors) != 3 {
		t.Fatalf("errors = %+v", r.Errors)
	}
	byTool := map[string]RecallError{}
	for _, e := range r.Errors {
		byTool[e.Subject] = e
	}
	if e := byTool["git push"]; e.Resolved {
		t.Errorf("git push resolved: %+v", e)
	}
	if e := byTool["go test ./uploader/... 2>&1"]; !e.Resolved || !strings.Contains(e.Message, "FAIL: TestRetry") {
		t.Errorf("go test error = %+v", e)
	}
	if e := byTool["uploader/upload.go"]; !e.Resolved || e.Message != "String to replace not found in file." {
		t.Errorf("edit error = %+v", e)
	}

	if len(r.Decisions) != 2 || r.Decisions[0].Kind != "correction" || r.Decisions[1].Kind != "plan approved" ||
		r.Decisions[1].Text != "Retry with backoff; Steps; Tests" {
		t.Errorf("decisions = %+v", r.Decisions)
	}
	if len(r.Tasks.Active) != 1 || len(r.Tasks.Pending) != 1 || len(r.Tasks.Completed) != 2 {
		t.Errorf("tasks = %+v", r.Tasks)
	}
	if len(r.Compactions) != 1 || r.Compactions[0].PreTokens != 167000 {
		t.Errorf("compactions = %+v", r.Compactions)
	}
}

func TestBuildRecallNil(t *testing.T) {
	r := BuildRecall(nil)
	if r.Version != RecallVersion || len(r.Files) != 0 || r.Initial != nil {
		t.Fatalf("BuildRecall(nil) = %+v", r)
	}
	if d := Digest(r, DigestOptions{}); !strings.Contains(d, "## Task and todos") || DigestLen(d) > DefaultDigestBudget {
		t.Fatalf("digest of empty recall:\n%s", d)
	}
}

func TestRecallMsgpackRoundTrip(t *testing.T) {
	r := BuildRecall(synthState())
	b, err := msgpack.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecall(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := msgpack.Marshal(&back)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(b2) {
		t.Fatal("msgpack round trip changed the recall")
	}
	opts := DigestOptions{Budget: 3000, Now: at(120)}
	if Digest(r, opts) != Digest(back, opts) {
		t.Fatal("digest differs after a msgpack round trip")
	}
}

// hugeState is a session far beyond every cap: many requests, files,
// commands, errors, todos and preferences with long texts.
func hugeState(n int) *State {
	s := &State{Meta: Metadata{DirectoryPath: "/p", SessionID: strings.Repeat("s", 5000), Title: strings.Repeat("T", 5000)}}
	long := strings.Repeat("x", 3000)
	for i := 0; i < n; i++ {
		s.Messages = append(s.Messages, Message{Role: "user", Kind: "prompt", Text: fmt.Sprintf("request %d %s", i, long), Timestamp: at(i)})
		s.Tools = append(s.Tools,
			ToolExec{Name: "Bash", Input: input("command", fmt.Sprintf("cmd-%d %s", i, long)), Output: "Exit code 2\nerror: " + long + fmt.Sprint(i), Success: i%2 == 0, Timestamp: at(i)},
			ToolExec{Name: "Edit", Input: input("file_path", fmt.Sprintf("/p/dir%d/%s.go", i, strings.Repeat("f", 400))), Success: true, Timestamp: at(i)},
		)
		s.Files = append(s.Files, FileRecord{Path: fmt.Sprintf("dir%d/%s.go", i, strings.Repeat("f", 400)), Edits: 1, LastAccess: at(i)})
		s.Tasks.Completed = append(s.Tasks.Completed, Task{Content: long, Status: "completed"})
		s.Tasks.Pending = append(s.Tasks.Pending, Task{Content: long, Status: "pending"})
		s.Preferences = append(s.Preferences, Preference{Kind: "preference", Text: long, Timestamp: at(i)})
		s.Compactions = append(s.Compactions, Compaction{Trigger: "auto", PreTokens: 1, Timestamp: at(i)})
	}
	return s
}

func TestRecallBounded(t *testing.T) {
	r := BuildRecall(hugeState(2000))
	b, err := msgpack.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > recallMaxBytes+recallMaxBytes/2 {
		t.Fatalf("recall of a huge session encodes to %d bytes, want about %d at most", len(b), recallMaxBytes)
	}
	if r.size() > recallMaxBytes {
		t.Fatalf("recall size estimate %d over %d", r.size(), recallMaxBytes)
	}
	if len(r.Requests) > recallMaxRequests || len(r.Files) > recallMaxFiles || len(r.Commands) > recallMaxCommands ||
		len(r.Errors) > recallMaxErrors || len(r.Decisions) > recallMaxDecisions || len(r.Compactions) > recallMaxCompactions ||
		len(r.Tasks.Active)+len(r.Tasks.Pending)+len(r.Tasks.Completed) > recallMaxTasks {
		t.Fatalf("a list is over its cap: %d req, %d files, %d cmds, %d errs, %d decisions", len(r.Requests), len(r.Files), len(r.Commands), len(r.Errors), len(r.Decisions))
	}
	if r.Omitted.Commands == 0 || r.Omitted.Files == 0 || r.Omitted.Requests == 0 {
		t.Fatalf("omitted counts not kept: %+v", r.Omitted)
	}
	// The newest command survives the caps.
	if len(r.Commands) == 0 || !strings.HasPrefix(r.Commands[0].Command, "cmd-1999 ") {
		t.Fatalf("newest command lost: %d commands", len(r.Commands))
	}
	for _, c := range r.Commands {
		if len(c.Command) > recallCommandBytes || len(c.Error) > recallErrorBytes {
			t.Fatalf("command over cap: %d/%d bytes", len(c.Command), len(c.Error))
		}
	}
	t.Logf("recall of a 4000-tool session: %d bytes msgpack", len(b))
}

func TestCommandFamily(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"mix test test/a_test.exs 2>&1", "mix test"},
		{"MIX_ENV=test mix run -e 'x'", "mix run"},
		{"cd /x/y && npm install highlight.js", "npm install"},
		{"git push --set-upstream origin b", "git push"},
		{"/usr/bin/go vet ./...", "go vet"},
		{"ls", "ls"},
		{"  ", ""},
		{"sudo -n apt-get update", "apt-get update"},
		{"bd close spotter-1 --reason \"x\"", "bd close"},
	} {
		if got := commandFamily(tc.in); got != tc.want {
			t.Errorf("commandFamily(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Exit code 1\nCompiling 4 files (.ex)\n     error: undefined function get/2", "error: undefined function get/2"},
		{"Exit code 2\nRunning ExUnit\n\n  1) test mount renders (X)\n     test/x.exs:12", "1) test mount renders (X)"},
		{"<tool_use_error>File does not exist.</tool_use_error>", "File does not exist."},
		{"Exit code 128\nfatal: no upstream", "fatal: no upstream"},
		{"Exit code 3", ""},
		{"something odd\nhappened", "something odd"},
		{`Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.`, "Pre-commit validation failed: [FORMAT] Code is not formatted."},
		{"Exit code 1\n(eval):1: permission denied:\n/dev/urandom", "(eval):1: permission denied: /dev/urandom"},
		{"", ""},
		{"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", "rejected by the user (not run)"},
	} {
		if got := errorLine(tc.in); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		code int
		ok   bool
	}{
		{"Exit code 1\nx", 1, true},
		{"Error: Exit code 128\n", 128, true},
		{"exit_code: 2", 2, true},
		{"Exit code: 0", 0, true},
		{"all fine", 0, false},
		{"", 0, false},
	} {
		c, ok := exitCode(tc.in)
		if c != tc.code || ok != tc.ok {
			t.Errorf("exitCode(%q) = %d,%v want %d,%v", tc.in, c, ok, tc.code, tc.ok)
		}
	}
}

func TestCapBytes(t *testing.T) {
	s := strings.Repeat("é", 10) // 20 bytes
	got := capBytes(s, 9)
	if len(got) > 9 || !strings.HasSuffix(got, "…") || !utf8Valid(got) {
		t.Fatalf("capBytes = %q (%d bytes)", got, len(got))
	}
	if capBytes("abc", 3) != "abc" {
		t.Fatal("capBytes cut a short string")
	}
	if got := capBytes("abcdef", 2); got != "ab" {
		t.Fatalf("capBytes tiny = %q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "?") == s }

func TestDecodeRecallHostile(t *testing.T) {
	// A nil where a time.Time is expected makes msgpack v5.4.1 panic; the
	// map form it would decode into is refused before decoding.
	nilTime := []byte("\x81\xa8requests\x91\x82\xa4text\xa1x\xa2ts\xc0")
	newer, _ := msgpack.Marshal(&Recall{Version: RecallVersion + 1})
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"map form with a nil time", nilTime, ErrSchema},
		{"truncated map", []byte{0x8a, 0xa1}, ErrSchema},
		{"not a map", []byte{0xc3}, ErrCorrupt},
		{"newer version", newer, ErrSchema},
	} {
		if _, err := DecodeRecall(tc.in); !errors.Is(err, tc.want) {
			t.Errorf("%s: DecodeRecall error %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestRequestText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"  Fix it\n\nplease ", "Fix it please", true},
		{"<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args>keep the todo list</command-args>", "/compact keep the todo list", true},
		{"<command-name>/clear</command-name><command-args></command-args>", "/clear", true},
		{"<bash-input>git status</bash-input>", "! git status", true},
		{"<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>", "", false},
		{"<local-command-stdout>done</local-command-stdout>", "", false},
		{"<system-reminder>x</system-reminder>", "", false},
		{"[Request interrupted by user]", "", false},
		{"This session is being continued from a previous conversation that ran out of context.", "", false},
		{"   ", "", false},
		{"<task-notification> <task-id>b0</task-id> <status>completed</status></task-notification>", "", false},
	} {
		got, ok := requestText(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("requestText(%q) = %q,%v want %q,%v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// Other harnesses: the shell command is in ToolExec.Command, paths in
// RelatedFiles or in their own input names.
func TestBuildRecallOtherHarnesses(t *testing.T) {
	s := &State{
		Meta: Metadata{Harness: HarnessGemini, DirectoryPath: "/w"},
		Tools: []ToolExec{
			{Name: "run_shell_command", Command: "npm test", Output: "Exit code: 1\nError: 2 failing", Timestamp: at(1)},
			{Name: "read_file", Input: `{"absolute_path":"/w/src/a.ts"}`, Success: true, Timestamp: at(2)},
			{Name: "apply_patch", Input: `{"patch":"x"}`, RelatedFiles: []string{"/w/src/b.ts"}, Success: true, Timestamp: at(3)},
			{Name: "shell", Command: "npm test", Success: true, Output: "ok", Timestamp: at(4)},
		},
	}
	r := BuildRecall(s)
	if len(r.Commands) != 1 || r.Commands[0].Command != "npm test" || r.Commands[0].Runs != 2 || !r.Commands[0].OK || r.Commands[0].Failures != 1 {
		t.Fatalf("commands = %+v", r.Commands)
	}
	if len(r.Errors) != 1 || !r.Errors[0].Resolved || r.Errors[0].Message != "Error: 2 failing" {
		t.Fatalf("errors = %+v", r.Errors)
	}
	var paths []string
	for _, f := range r.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "src/b.ts src/a.ts" {
		t.Fatalf("files = %q", paths)
	}
	if r.Files[1].Reads != 1 {
		t.Fatalf("read_file not counted as a read: %+v", r.Files[1])
	}
}
