package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/claudetest"
	"github.com/ben10ctx/ben10/internal/e2e"
	"github.com/ben10ctx/ben10/internal/hooknote"
)

// The tests in this file run the real Claude Code CLI (claude, from npm
// @anthropic-ai/claude-code) against internal/claudetest's mock of the
// Anthropic API, with Ben10's hooks installed in a temporary HOME by the
// real `ben10 hooks install`. They run under `make test-e2e`.

// lastUserText is the text of the request's last user or assistant
// message when it is a typed prompt (not a tool result), else "". (Claude
// Code puts role "system" messages after it.)
func lastUserText(r claudetest.Request) string {
	ms := r.Messages.Messages
	for len(ms) > 0 && ms[len(ms)-1].Role == "system" {
		ms = ms[:len(ms)-1]
	}
	if len(ms) == 0 || ms[len(ms)-1].Role != "user" {
		return ""
	}
	var texts []string
	for _, b := range ms[len(ms)-1].Blocks() {
		if b.Type == "tool_result" {
			return ""
		}
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// scripted answers a prompt containing a key of commands with a Bash
// tool_use running that command, a compaction request with summary, and
// everything else with "Done.".
func scripted(commands map[string]string, summary string) claudetest.Responder {
	return func(r claudetest.Request) claudetest.Reply {
		if r.IsCompaction() {
			return claudetest.Text("<analysis>Short.</analysis>\n<summary>" + summary + "</summary>")
		}
		if r.IsMain() {
			p := lastUserText(r)
			for key, cmd := range commands {
				if strings.Contains(p, key) {
					return claudetest.ToolUse("Bash", map[string]any{"command": cmd, "description": "run the " + key})
				}
			}
		}
		return claudetest.Text("Done.")
	}
}

// realEnv starts the mock API and a HOME with Ben10's hooks and the trace
// hooks installed.
func realEnv(t *testing.T, respond claudetest.Responder) *claudetest.Env {
	t.Helper()
	e2e.Require(t, "claude", "tmux")
	return claudetest.New(t, claudetest.Config{Ben10: ben10Bin, Respond: respond, Allow: []string{"Bash"}, Trace: true})
}

// ben10 runs the real binary in the env's project with its environment.
func ben10(t *testing.T, env *claudetest.Env, args ...string) string {
	t.Helper()
	r := env.Run(2*time.Minute, nil, ben10Bin, args...)
	if r.Err != nil {
		t.Fatalf("ben10 %s: %v", strings.Join(args, " "), r.Err)
	}
	return r.Stdout
}

// sessionEvents is the trace of session id's hook calls.
func sessionEvents(t *testing.T, env *claudetest.Env, id string) []string {
	t.Helper()
	calls, err := env.Trace()
	if err != nil {
		t.Fatal(err)
	}
	var mine []claudetest.HookCall
	for _, c := range calls {
		if c.Field("session_id") == id {
			mine = append(mine, c)
		}
	}
	return claudetest.Events(mine)
}

// inOrder reports whether want appears in got as a subsequence.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func realStoreDir(env *claudetest.Env) string {
	return filepath.Join(env.Project, ".claude", "context")
}

// TestRealClaudePrintHooks: `claude -p` fires Ben10's hooks (SessionStart,
// UserPromptSubmit, PostToolUse for the Bash call the mock asks for,
// SessionEnd), Ben10 records the session, checkpoints on the tool and
// saves at the end, and the next session's first request carries Ben10's
// startup context naming the previous session's command.
func TestRealClaudePrintHooks(t *testing.T) {
	const cmd = "echo ben10-e2e-pelican-3141"
	env := realEnv(t, scripted(map[string]string{"pelican": cmd}, "unused"))

	id1 := env.MustPrint("run the pelican check")
	want := []string{"SessionStart(startup)", "UserPromptSubmit", "PostToolUse(Bash)", "SessionEnd(other)"}
	if got := sessionEvents(t, env, id1); !inOrder(got, want) {
		t.Fatalf("session 1 hook calls %v, want %v in that order", got, want)
	}
	var toolResult bool
	for _, r := range env.API.MainRequests() {
		for _, s := range r.Texts() {
			toolResult = toolResult || strings.Contains(s, "ben10-e2e-pelican-3141")
		}
	}
	if !toolResult {
		t.Fatal("no request carried the Bash tool's output: the mock's tool_use did not run")
	}

	// The hooks queued the checkpoint and the final save: the worker writes them.
	waitWorker(t, filepath.Join(realStoreDir(env), "checkpoints", "cp-001.ctx"))
	waitWorker(t, filepath.Join(realStoreDir(env), "current.ctx"))
	// The worker records its checkpoint in the state just after writing it.
	var ss *hook.SessionState
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		st, err := hooknote.ReadState(realStoreDir(env))
		if err != nil {
			t.Fatal(err)
		}
		ss = st.Sessions[id1]
		if ss == nil {
			t.Fatalf("hook state has no session %s (sessions: %v)", id1, st.Sessions)
		}
		if ss.Checkpoints >= 1 || time.Now().After(deadline) {
			break
		}
	}
	if ss.Started.IsZero() || ss.Prompts != 1 || ss.Checkpoints < 1 || ss.Ended.IsZero() {
		t.Fatalf("hook state of session 1: started %v, prompts %d, checkpoints %d, ended %v; want started, 1 prompt, ≥1 checkpoint (PostToolUse Bash), ended",
			ss.Started, ss.Prompts, ss.Checkpoints, ss.Ended)
	}
	ben10(t, env, "archive", "verify", filepath.Join(realStoreDir(env), "current.ctx"))
	ben10(t, env, "archive", "verify", filepath.Join(realStoreDir(env), "checkpoints", "cp-001.ctx"))
	if sum := ben10(t, env, "context", "restore", "--mode", "summary"); !strings.Contains(sum, cmd) {
		t.Fatalf("current.ctx's digest does not name the command %q:\n%s", cmd, sum)
	}

	before := len(env.API.Requests())
	id2 := env.MustPrint("what did we do last time?")
	if id2 == id1 {
		t.Fatalf("second session reused id %s", id1)
	}
	if got := sessionEvents(t, env, id2); !inOrder(got, []string{"SessionStart(startup)", "UserPromptSubmit"}) {
		t.Fatalf("session 2 hook calls %v", got)
	}
	var first *claudetest.Request
	for _, r := range env.API.Requests()[before:] {
		if r.IsMain() && strings.Contains(lastUserText(r), "what did we do last time?") {
			first = &r
			break
		}
	}
	if first == nil {
		t.Fatal("the second session sent no conversation request")
	}
	ctx := first.HookContext()
	if !strings.Contains(ctx, "Ben10") || !strings.Contains(ctx, cmd) {
		t.Fatalf("the second session's first request carries no Ben10 startup context naming %q; hook context:\n%s", cmd, ctx)
	}
	t.Logf("startup context: %d characters in a role \"system\" message", len(ctx))
}

// compactSession drives an interactive session under tmux: a prompt that
// makes the mock run cmd with Bash, /compact (the mock's summary leaves
// the command out), and a prompt after it. It returns the env, the
// session and the first conversation request after the compaction.
func compactSession(t *testing.T, cmd string) (*claudetest.Env, *claudetest.Session, claudetest.Request) {
	t.Helper()
	const summary = "The user asked for a check and it ran."
	respond := scripted(map[string]string{"walrus": cmd}, summary)
	env := realEnv(t, respond)
	// The compaction's answer waits for the worker's PreCompact job (the
	// snapshot written and offered), so SessionStart(compact) finds the
	// snapshot rather than falling back to the transcript, whatever the
	// machine's load: the order a real compaction, seconds of model time,
	// gives.
	env.API.SetResponder(func(r claudetest.Request) claudetest.Reply {
		if r.IsCompaction() {
			waitJobsDone(realStoreDir(env))
		}
		return respond(r)
	})
	s := env.Interactive()
	s.Submit("run the walrus check")
	if _, err := env.WaitRequest(claudetest.ScreenTimeout, func(r claudetest.Request) bool {
		return r.IsMain() && strings.Contains(strings.Join(r.Texts(), "\n"), strings.TrimPrefix(cmd, "echo "))
	}); err != nil {
		t.Fatalf("the Bash tool's output never reached the mock: %v", err)
	}
	s.MustWait(regexp.MustCompile(`Done\.`))
	s.MustWait(regexp.MustCompile(`\? for shortcuts`))
	s.Submit("/compact")
	s.MustWait(regexp.MustCompile(`Compacted`))
	if _, err := env.WaitTrace(claudetest.ScreenTimeout, func(c claudetest.HookCall) bool {
		return c.Event == "SessionStart" && c.Field("source") == "compact"
	}); err != nil {
		t.Fatal(err)
	}
	s.MustWait(regexp.MustCompile(`\? for shortcuts`))
	n := len(env.API.Requests())
	s.Submit("what next?")
	after, err := env.WaitRequest(claudetest.ScreenTimeout, func(r claudetest.Request) bool {
		return r.Seq > n && r.IsMain() && strings.Contains(lastUserText(r), "what next?")
	})
	if err != nil {
		t.Fatalf("no request after the compaction: %v", err)
	}
	// The compaction summary Claude Code sends on: the mock's, or (some
	// runs of 2.1.197 compact without asking the API) one it built
	// itself. Either way it must not name the command, or the digest
	// check below proves nothing.
	var continued string
	for _, txt := range after.Texts() {
		if strings.Contains(txt, "continued from a previous conversation") {
			continued = txt
		}
	}
	if continued == "" {
		t.Fatalf("the request after the compaction carries no compaction summary")
	}
	if strings.Contains(continued, strings.TrimPrefix(cmd, "echo ")) {
		t.Fatalf("the compaction summary names the command itself:\n%s", continued)
	}
	t.Logf("compaction summary from the mock: %v", strings.Contains(continued, summary))
	return env, s, after
}

// TestRealClaudeCompact: /compact in an interactive session fires
// PreCompact, which writes a verified snapshot, then SessionStart(compact),
// and the next request carries Ben10's digest with the command the mock's
// summary dropped.
func TestRealClaudeCompact(t *testing.T) {
	const cmd = "echo ben10-e2e-walrus-2718"
	env, _, after := compactSession(t, cmd)

	calls, err := env.Trace()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SessionStart(startup)", "UserPromptSubmit", "PostToolUse(Bash)", "PreCompact(manual)", "SessionStart(compact)", "UserPromptSubmit"}
	if got := claudetest.Events(calls); !inOrder(got, want) {
		t.Fatalf("hook calls %v, want %v in that order", got, want)
	}
	snaps := waitWorker(t, filepath.Join(realStoreDir(env), "compaction-snapshots", "pre-compact-*.ctx"))
	if len(snaps) != 1 {
		t.Fatalf("compaction snapshots %v, want 1", snaps)
	}
	ben10(t, env, "archive", "verify", snaps[0])

	ctx := after.HookContext()
	if !strings.Contains(ctx, cmd) {
		t.Fatalf("the request after the compaction has no Ben10 digest naming %q; hook context:\n%s", cmd, ctx)
	}
	snapID := strings.TrimSuffix(filepath.Base(snaps[0]), ".ctx")
	if !strings.Contains(ctx, snapID) {
		t.Errorf("the digest does not name its snapshot %s", snapID)
	}
	t.Logf("digest after /compact: %d characters, names %q which the summary dropped", len(ctx), cmd)
}

// TestRealClaudeTranscriptAppendOnly verifies the assumption Ben10's
// write path rests on: across a compaction Claude Code only appends to
// the transcript. Every byte present when PreCompact fires (the trace
// hook copies the file then) is still the prefix of the file after the
// compaction, the next turn and /exit; the boundary comes after it.
func TestRealClaudeTranscriptAppendOnly(t *testing.T) {
	const cmd = "echo ben10-e2e-walrus-1618"
	env, s, _ := compactSession(t, cmd)
	s.MustWait(regexp.MustCompile(`Done\.(?s:.*)Done\.`))
	s.MustWait(regexp.MustCompile(`\? for shortcuts`))
	s.Submit("/exit")
	if _, err := s.WaitDead(claudetest.ScreenTimeout); err != nil {
		t.Fatal(err)
	}
	copies, err := env.PreCompactCopies()
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != 1 {
		t.Fatalf("PreCompact copied %d transcripts (%v), want 1", len(copies), copies)
	}
	for name, paths := range copies {
		final, err := os.ReadFile(filepath.Join(filepath.Dir(env.TranscriptPath("x")), name))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			pre, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(pre) == 0 || !bytes.HasPrefix(final, pre) {
				t.Fatalf("%s: the %d bytes present at PreCompact are not the prefix of the %d bytes after the compaction (first difference at byte %d)",
					name, len(pre), len(final), commonPrefix(pre, final))
			}
			rest := final[len(pre):]
			if bytes.Contains(pre, []byte(`"compact_boundary"`)) || !bytes.Contains(rest, []byte(`"compact_boundary"`)) {
				t.Fatalf("%s: the compact_boundary is not in the appended part", name)
			}
			t.Logf("%s: %d bytes at PreCompact stay the prefix of %d bytes after compaction and /exit (%d appended)", name, len(pre), len(final), len(rest))
		}
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestRealClaudeExitSaves: /exit fires SessionEnd, which saves the session
// into current.ctx before Claude Code exits. The time from the Enter that
// sends /exit to the process's exit is logged, not asserted.
func TestRealClaudeExitSaves(t *testing.T) {
	const cmd = "echo ben10-e2e-heron-1414"
	env := realEnv(t, scripted(map[string]string{"heron": cmd}, "unused"))
	s := env.Interactive()
	s.Submit("run the heron check")
	s.MustWait(regexp.MustCompile(`Done\.`))
	s.MustWait(regexp.MustCompile(`\? for shortcuts`))
	if err := s.Type("/exit"); err != nil {
		t.Fatal(err)
	}
	s.MustWait(regexp.MustCompile(`❯[^\n]{0,3}/exit`))
	start := time.Now()
	if err := s.SendKeys("Enter"); err != nil {
		t.Fatal(err)
	}
	status, err := s.WaitDead(claudetest.ScreenTimeout)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if status != 0 {
		t.Fatalf("claude exited with status %d", status)
	}
	calls, err := env.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if got := claudetest.Events(calls); !inOrder(got, []string{"SessionStart(startup)", "UserPromptSubmit", "SessionEnd(prompt_input_exit)"}) {
		t.Fatalf("hook calls %v", got)
	}
	var end time.Time
	for _, c := range calls {
		if c.Event == "SessionEnd" {
			end = c.At
		}
	}
	cur := filepath.Join(realStoreDir(env), "current.ctx")
	waitWorker(t, cur)
	fi, err := os.Stat(cur)
	if err != nil {
		t.Fatalf("SessionEnd did not save: %v", err)
	}
	ben10(t, env, "archive", "verify", cur)
	if sum := ben10(t, env, "context", "restore", "--mode", "summary"); !strings.Contains(sum, cmd) {
		t.Fatalf("current.ctx's digest does not name %q:\n%s", cmd, sum)
	}
	st, err := hooknote.ReadState(realStoreDir(env))
	if err != nil {
		t.Fatal(err)
	}
	for id, ss := range st.Sessions {
		if ss.EndReason != "prompt_input_exit" {
			t.Errorf("session %s end reason %q, want prompt_input_exit", id, ss.EndReason)
		}
	}
	t.Logf("/exit: SessionEnd fired %v after the Enter; current.ctx (%d bytes) in place %v after SessionEnd fired; claude exited %v after the Enter",
		end.Sub(start).Round(time.Millisecond), fi.Size(), fi.ModTime().Sub(end).Round(time.Millisecond), elapsed.Round(time.Millisecond))
}

// resumeIDRE finds the session id in restore's "claude --resume ID" hint.
var resumeIDRE = regexp.MustCompile(`claude --resume ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// TestRealClaudeResumeRestored: a session restored by `ben10 context
// restore … --resume`, from a compaction snapshot and from a checkpoint,
// is accepted by `claude --resume ID -p …`, which sends the restored
// conversation (the prompt and the Bash output of the original session)
// to the mock and keeps the id.
func TestRealClaudeResumeRestored(t *testing.T) {
	const cmd = "echo ben10-e2e-otter-5772"
	const prompt = "run the otter check"
	env := realEnv(t, scripted(map[string]string{"otter": cmd}, "The user ran a check."))
	id := env.MustPrint(prompt)
	env.MustPrint("/compact", "--resume", id)
	snaps := waitWorker(t, filepath.Join(realStoreDir(env), "compaction-snapshots", "pre-compact-*.ctx"))
	if len(snaps) != 1 {
		t.Fatalf("after claude -p /compact: compaction snapshots %v, want 1", snaps)
	}
	waitWorker(t, filepath.Join(realStoreDir(env), "checkpoints", "cp-001.ctx"))
	if _, err := os.Stat(filepath.Join(realStoreDir(env), "checkpoints", "cp-001.ctx")); err != nil {
		t.Fatalf("no checkpoint from the session's PostToolUse: %v", err)
	}
	output := strings.TrimPrefix(cmd, "echo ")
	for _, tc := range []struct {
		name string
		args []string
		// want: texts the resumed session's first request carries.
		want []string
	}{
		// The snapshot holds the whole turn: prompt, Bash call, output.
		{"snapshot", []string{"context", "restore", snaps[0], "--resume"}, []string{prompt, output}},
		// cp-001 was taken by PostToolUse, when Claude Code had written
		// the Bash call but not yet its result; on resume Claude Code
		// drops a tool call without a result, so only the prompt is sent.
		{"checkpoint", []string{"context", "restore", "--checkpoint", "1", "--resume"}, []string{prompt}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := ben10(t, env, tc.args...)
			m := resumeIDRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("ben10 %s printed no resumable session id:\n%s", strings.Join(tc.args, " "), out)
			}
			restored := m[1]
			if restored == id {
				t.Fatalf("restore reused the original id %s", id)
			}
			n := len(env.API.Requests())
			got := env.MustPrint("continue after the restore", "--resume", restored)
			if got != restored {
				t.Errorf("claude --resume %s reported session %s", restored, got)
			}
			var first *claudetest.Request
			for _, r := range env.API.Requests()[n:] {
				if r.IsMain() && strings.Contains(lastUserText(r), "continue after the restore") {
					first = &r
					break
				}
			}
			if first == nil {
				t.Fatal("claude --resume sent no conversation request")
			}
			all := strings.Join(first.Texts(), "\n")
			for _, want := range append(tc.want, "continue after the restore") {
				if !strings.Contains(all, want) {
					t.Errorf("the resumed session's first request (%d messages) lacks %q", len(first.Messages.Messages), want)
				}
			}
			t.Logf("claude --resume %s: the mock received %d messages of the restored session", restored, len(first.Messages.Messages))
		})
	}
}

// waitWorker waits until files match pattern: the hooks only take note
// and Ben10's background worker writes the snapshot or the final save
// after the hook returned. It gives up after a minute (the test then
// fails on what is missing) and returns the matches.
// waitJobsDone waits (up to a minute) until the store at root holds a
// compaction snapshot and no queued job.
func waitJobsDone(root string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		snaps, _ := filepath.Glob(filepath.Join(root, "compaction-snapshots", "pre-compact-*.ctx"))
		jobs, _ := filepath.Glob(filepath.Join(root, "pending", "job-*"))
		if len(snaps) > 0 && len(jobs) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitWorker(t *testing.T, pattern string) []string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		m, _ := filepath.Glob(pattern)
		if len(m) > 0 || time.Now().After(deadline) {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
}
