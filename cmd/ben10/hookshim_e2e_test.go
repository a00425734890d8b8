package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
)

// installedCommand is Ben10's command for event in the settings file at
// path, or "" when there is none.
func installedCommand(t *testing.T, path string, e hook.Event) string {
	t.Helper()
	st, err := hook.Status(path, hook.ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	return st.Events[e]
}

// runShell runs a hook command line through the shell, as Claude Code
// does, with stdin and environment.
func runShell(t *testing.T, stdin []byte, env []string, command string) result {
	t.Helper()
	return runCmd(t, exec.Command("/bin/sh", "-c", command), stdin, env)
}

// runBinary runs the binary bin with args, stdin and environment.
func runBinary(t *testing.T, bin string, stdin []byte, env []string, args ...string) result {
	t.Helper()
	return runCmd(t, exec.Command(bin, args...), stdin, env)
}

func runCmd(t *testing.T, cmd *exec.Cmd, stdin []byte, env []string) result {
	t.Helper()
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return result{so.String(), se.String(), code}
}

// shimWorld is a hookWorld with a copy of the shim alone in a directory
// (no ben10 beside it), which shows whether a call stayed on the fast
// path: the lone shim can only hand on by failing.
type shimWorld struct {
	*hookWorld
	lone string
}

func newShimWorld(t *testing.T, config string) *shimWorld {
	t.Helper()
	w := &shimWorld{hookWorld: newHookWorld(t, "5c0d7e2a-9b1f-4e3a-8c6d-2f4a1b3c5d7e")}
	w.writeTranscript([]byte(`{"type":"user","sessionId":"` + w.session + `","cwd":"` + w.project + `","timestamp":"2026-03-02T09:00:00Z","uuid":"u1","message":{"role":"user","content":"hello"}}` + "\n"))
	// The project has a store (an earlier session's): SessionStart
	// creates none, so the counter starts with the first prompt.
	if err := os.MkdirAll(w.contextDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	w.setConfig(config)
	dir := t.TempDir()
	w.lone = filepath.Join(dir, "ben10-hook")
	data, err := os.ReadFile(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.lone, data, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *shimWorld) setConfig(config string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte("context:\n"+config), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *shimWorld) input(event string, extra map[string]any) []byte {
	in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": event}
	for k, v := range extra {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	return data
}

// prompt submits one prompt through the shim at bin.
func (w *shimWorld) prompt(bin string, extra map[string]any) result {
	w.t.Helper()
	return runBinary(w.t, bin, w.input("UserPromptSubmit", extra), w.env, "user-prompt-submit")
}

func (w *shimWorld) counter() int {
	n, _ := hookfast.ReadCounter(hookfast.CounterPath(w.contextDir(), w.session))
	return n
}

func (w *shimWorld) errorLog() string {
	data, _ := os.ReadFile(hookfast.ErrorLogPath(w.home))
	return string(data)
}

// checkOneLine: exit 0, nothing on stdout, exactly one line on stderr
// naming want, and the error log grew by one entry naming want.
func (w *shimWorld) checkOneLine(r result, logBefore, want string) {
	w.t.Helper()
	if r.code != 0 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
		w.t.Fatalf("want exit 0 and one stderr line about %q: exit %d, stdout %q, stderr %q", want, r.code, r.stdout, r.stderr)
	}
	added := strings.TrimPrefix(w.errorLog(), logBefore)
	if strings.Count(added, "\n") != 1 || !strings.Contains(added, want) {
		w.t.Fatalf("error log gained %q, want one entry about %q", added, want)
	}
}

// TestShimCountsPrompts drives prompts through the real shim beside a
// stand-in ben10 that only records how it is called: a prompt with no
// checkpoint due is counted by the shim alone (ben10 never runs), a due
// one queues its checkpoint job and starts the worker (`ben10 internal
// work`), and a changed configuration applies from the next prompt. The
// real worker then does the job, every prompt counted once.
func TestShimCountsPrompts(t *testing.T) {
	t.Parallel()
	w := newShimWorld(t, "  checkpoint_interval: 4\n  checkpoint_minutes: 0\n")
	if out := w.fire("SessionStart", map[string]any{"source": "startup"}); out != nil {
		t.Fatalf("startup injected %+v", out)
	}
	dir := t.TempDir()
	shim, calls := filepath.Join(dir, "ben10-hook"), filepath.Join(dir, "calls")
	data, err := os.ReadFile(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ben10"), []byte("#!/bin/sh\necho \"$*\" >>"+calls+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	called := func() string { b, _ := os.ReadFile(calls); return string(b) }
	// The worker is started detached: wait until it has recorded n calls.
	waitCalls := func(n int) string {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); strings.Count(called(), "\n") < n && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		return called()
	}
	env := append(append([]string(nil), w.env...), "BEN10_HOOK_WORK=background")
	prompt := func(i int) {
		t.Helper()
		if r := runBinary(t, shim, w.input("UserPromptSubmit", map[string]any{"prompt": "p"}), env, "user-prompt-submit"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("prompt %d: %+v", i, r)
		}
	}
	var stateBefore []byte
	for i := 1; i <= 3; i++ {
		prompt(i)
		if w.counter() != i || called() != "" {
			t.Fatalf("prompt %d: counter %d, ben10 called %q", i, w.counter(), called())
		}
		if i == 1 {
			stateBefore, _ = os.ReadFile(filepath.Join(w.contextDir(), "hook-state.json"))
		}
	}
	if after, _ := os.ReadFile(filepath.Join(w.contextDir(), "hook-state.json")); !bytes.Equal(after, stateBefore) {
		t.Fatal("counting a prompt rewrote the state file")
	}
	prompt(4) // due: the job is queued and the worker started
	if got := waitCalls(1); got != "internal work\n" {
		t.Fatalf("the due prompt called ben10 %q, want the worker started once", got)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.Prompts != 4 {
		t.Fatalf("state after the due prompt: %+v (want 4 prompts, each counted once)", ss)
	}
	if r := runBinary(t, ben10Bin, nil, w.env, "internal", "work"); r.code != 0 {
		t.Fatalf("the worker: %+v", r)
	}
	if cps, _ := filepath.Glob(filepath.Join(w.contextDir(), "checkpoints", "cp-*.ctx")); len(cps) != 1 {
		t.Fatalf("checkpoints after the worker: %v", cps)
	}
	prompt(5)
	if ss := w.state().Sessions[w.session]; ss == nil || ss.Prompts != 5 || ss.Checkpoints != 1 || ss.SinceCheckpoint != 1 || called() != "internal work\n" {
		t.Fatalf("prompt 5: state %+v, ben10 called %q (want 5 prompts, 1 since the checkpoint, no call)", ss, called())
	}
	// A changed configuration applies at once: with an interval of 2,
	// prompt 6 (the second since the checkpoint) is due.
	w.setConfig("  checkpoint_interval: 2\n  checkpoint_minutes: 0\n")
	prompt(6)
	if got := waitCalls(2); got != "internal work\ninternal work\n" {
		t.Fatalf("prompt 6 under the new interval called ben10 %q, want the worker started again", got)
	}
}

// TestShimHandsOnStdinIntact: what the shim does not answer reaches ben10
// with the same bytes on stdin — a 300 KB prompt that is due (more than a
// pipe holds), and a PreCompact — and `hook EVENT` arguments work too.
func TestShimHandsOnStdinIntact(t *testing.T) {
	t.Parallel()
	w := newShimWorld(t, "  checkpoint_interval: 1\n")
	big := strings.Repeat("long pasted prompt ", 300<<10/19)
	if r := w.prompt(shimBin, map[string]any{"prompt": big}); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("due prompt: %+v", r)
	}
	if cps, _ := filepath.Glob(filepath.Join(w.contextDir(), "checkpoints", "cp-*.ctx")); len(cps) != 1 {
		t.Fatalf("the handed-on prompt did not checkpoint: %v", cps)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.Prompts != 1 {
		t.Fatalf("state after the handed-on prompt: %+v", ss)
	}
	r := runBinary(t, shimBin, w.input("PreCompact", map[string]any{"trigger": "manual"}), append(w.env, "BEN10_HOOK_RECOMPRESS=off"), "hook", "pre-compact")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("PreCompact through the shim: %+v", r)
	}
	if snaps, _ := filepath.Glob(filepath.Join(w.contextDir(), "compaction-snapshots", "*.ctx")); len(snaps) != 1 {
		t.Fatalf("snapshots after PreCompact through the shim: %v", snaps)
	}
	// --input FILE is read by the shim and handed on as stdin.
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, w.input("SessionStart", map[string]any{"source": "resume"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, shimBin, nil, w.env, "session-start", "--input", in); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("SessionStart(resume) with --input: %+v", r)
	}
}

// TestShimErrorsExitZero: unreadable input, through the pair and alone,
// exits 0 with one stderr line and one error log entry.
func TestShimErrorsExitZero(t *testing.T) {
	t.Parallel()
	w := newShimWorld(t, "")
	for _, tc := range []struct {
		name, bin string
		stdin     []byte
		args      []string
		want      string
	}{
		{"not JSON, handed to ben10", shimBin, []byte("not json"), []string{"user-prompt-submit"}, "bad hook input"},
		{"empty, handed to ben10", shimBin, []byte(""), []string{"user-prompt-submit"}, "stdin is empty"},
		{"unknown event, handed to ben10", shimBin, w.input("UserPromptSubmit", nil), []string{"no-such-event"}, "unknown hook event"},
		{"not JSON, no ben10", w.lone, []byte("{"), []string{"user-prompt-submit"}, "ben10 is not next to ben10-hook"},
		{"missing --input file", shimBin, nil, []string{"user-prompt-submit", "--input", filepath.Join(t.TempDir(), "none.json")}, "none.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.errorLog()
			r := runBinary(t, tc.bin, tc.stdin, w.env, tc.args...)
			w.checkOneLine(r, before, tc.want)
		})
	}
}

// TestHookSupervisedDeadline: the work of a hook runs as a supervised
// child with a hard deadline; a child stopped at its deadline (here
// BEN10_HOOK_DEADLINE=1ns, so it never gets to answer) leaves exit 0, no
// stdout, one stderr line and one error log entry, through ben10 and
// through the shim.
func TestHookSupervisedDeadline(t *testing.T) {
	t.Parallel()
	w := newShimWorld(t, "")
	// A saved context to check: the shim hands SessionStart on (with
	// nothing to offer it would answer alone, internal/hookstart.Startup).
	if err := os.WriteFile(filepath.Join(w.contextDir(), "current.ctx"), []byte("saved"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), w.env...), hookfast.DeadlineEnv+"=1ns")
	for _, tc := range []struct {
		name, bin string
		args      []string
		event     string
	}{
		{"ben10 hook", ben10Bin, []string{"hook", "session-start"}, "SessionStart"},
		{"ben10-hook", shimBin, []string{"session-start"}, "SessionStart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.errorLog()
			r := runBinary(t, tc.bin, w.input(tc.event, map[string]any{"source": "startup", "trigger": "auto"}), env, tc.args...)
			w.checkOneLine(r, before, "deadline")
		})
	}
}

// TestShimHooksInstall: install points every event at the shim next to
// ben10; status and doctor show both;
// an install of the old form is upgraded in place; uninstall removes both.
func TestShimHooksInstall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR="}
	settings := filepath.Join(home, ".claude", "settings.json")
	// An old install: UserPromptSubmit through `ben10 hook`, beside
	// another tool's hook.
	old := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"'` + ben10Bin + `' hook user-prompt-submit","timeout":10}]}],"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBen10(t, nil, env, "hooks", "install")
	if r.code != 0 || !strings.Contains(r.stdout, "hook shim "+shimBin) {
		t.Fatalf("install: %+v", r)
	}
	data, _ := os.ReadFile(settings)
	if n := strings.Count(string(data), "user-prompt-submit"); n != 1 {
		t.Fatalf("%d user-prompt-submit entries after upgrading:\n%s", n, data)
	}
	if !strings.Contains(string(data), "'"+shimBin+"' user-prompt-submit") || !strings.Contains(string(data), "'"+shimBin+"' session-start") || !strings.Contains(string(data), "'"+shimBin+"' pre-compact") || strings.Contains(string(data), "' hook ") || !strings.Contains(string(data), "notify-send done") {
		t.Fatalf("settings after install:\n%s", data)
	}
	if r := runBen10(t, nil, env, "hooks", "install"); r.code != 0 || !strings.Contains(r.stdout, "nothing changed") {
		t.Fatalf("second install: %+v", r)
	}
	r = runBen10(t, nil, env, "hooks", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "installed") || !strings.Contains(r.stdout, "shim   "+shimBin) || !strings.Contains(r.stdout, "binary "+ben10Bin) {
		t.Fatalf("status: %+v", r)
	}
	var sts []hook.Installed
	r = runBen10(t, nil, env, "hooks", "status", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &sts); err != nil || len(sts) == 0 || sts[0].Shim != shimBin || sts[0].Binary != ben10Bin || len(sts[0].Missing) != 0 {
		t.Fatalf("status --json: %v %+v", err, sts)
	}
	r = runBen10(t, nil, env, "doctor")
	if !strings.Contains(r.stdout, "(via "+shimBin+")") {
		t.Fatalf("doctor does not show the shim:\n%s%s", r.stdout, r.stderr)
	}
	r = runBen10(t, nil, env, "hooks", "uninstall")
	if r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	data, _ = os.ReadFile(settings)
	if strings.Contains(string(data), "ben10") || !strings.Contains(string(data), "notify-send done") {
		t.Fatalf("settings after uninstall:\n%s", data)
	}
}

// TestShimTakesNoteE2E: PreCompact and SessionEnd through the built
// ben10-hook only take note, in the shim's own process: beside a stand-in
// ben10 that logs its arguments, the shim queues the job and starts
// `ben10 internal work`, never `ben10 hook`; beside the real ben10 the
// worker it starts writes the snapshot and the final save, and leaves
// the queue empty.
func TestShimTakesNoteE2E(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	bg := append(append([]string(nil), w.env...), "BEN10_HOOK_WORK=background")
	input := func(event string, extra map[string]any) []byte {
		in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": event}
		for k, v := range extra {
			in[k] = v
		}
		data, _ := json.Marshal(in)
		return data
	}
	// The shim beside a stand-in ben10.
	dir := t.TempDir()
	shim, log := filepath.Join(dir, "ben10-hook"), filepath.Join(dir, "calls.log")
	data, err := os.ReadFile(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ben10"), []byte("#!/bin/sh\necho \"$*\" >> '"+log+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, shim, input("PreCompact", map[string]any{"trigger": "auto"}), bg, "pre-compact"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("PreCompact through the shim: %+v", r)
	}
	if js := w.jobs(); len(js) != 1 || js[0].Event != "PreCompact" || js[0].Session != w.session || js[0].Size == 0 {
		t.Fatalf("queued jobs after PreCompact: %+v", js)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.Snapshots != 1 || ss.PreCompactSize == 0 {
		t.Fatalf("state after PreCompact: %+v", ss)
	}
	var calls []byte
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if calls, _ = os.ReadFile(log); len(calls) > 0 {
			break
		}
	}
	if string(calls) != "internal work\n" {
		t.Fatalf("the shim ran ben10 with %q, want only the worker (internal work)", calls)
	}
	// The real pair: the worker does the queued job and the next ones.
	if r := runBinary(t, shimBin, input("PreCompact", map[string]any{"trigger": "manual"}), bg, "pre-compact"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("PreCompact through the pair: %+v", r)
	}
	w.waitWorkDone()
	if snaps, _ := filepath.Glob(filepath.Join(w.contextDir(), "compaction-snapshots", "*.ctx")); len(snaps) == 0 {
		t.Fatal("no snapshot after the worker ran the PreCompact jobs")
	}
	if r := runBinary(t, shimBin, input("SessionEnd", map[string]any{"reason": "logout"}), bg, "session-end"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("SessionEnd through the pair: %+v", r)
	}
	w.waitWorkDone()
	if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err != nil {
		t.Fatalf("no final save after SessionEnd: %v", err)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.Ended.IsZero() || ss.EndReason != "logout" {
		t.Fatalf("state after SessionEnd: %+v", ss)
	}
}

// state reads the project's hook state.
func (w *hookWorld) state() *hook.State {
	w.t.Helper()
	s, err := hooknote.ReadState(w.contextDir())
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// TestHookEarlyEntry: `ben10 hook …` is handled during initialisation
// (internal/hookentry), yet behaves as the command: --help prints the
// command's help, and --input and an unknown event work as before.
func TestHookEarlyEntry(t *testing.T) {
	t.Parallel()
	r := runBen10(t, nil, nil, "hook", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Claude Code runs this command") || !strings.Contains(r.stdout, "--input saved-input.json") {
		t.Fatalf("hook --help: %+v", r)
	}
	w := newShimWorld(t, "")
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, w.input("SessionStart", map[string]any{"source": "resume"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBen10(t, nil, w.env, "hook", "--input", in); r.code != 0 || r.stderr != "" || r.stdout != "" {
		t.Fatalf("hook --input: %+v", r)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.LastEvent.IsZero() {
		t.Fatalf("SessionStart(resume) did not reach the handler: %+v", ss)
	}
	before := w.errorLog()
	r = runBen10(t, w.input("SessionStart", nil), w.env, "hook", "no-such-event")
	w.checkOneLine(r, before, "unknown hook event")
}
