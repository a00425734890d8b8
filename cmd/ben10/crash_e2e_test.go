package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/hook"
)

// TestStatusAfterCrash: a session that checkpointed and then crashed (no
// SessionEnd, so no current.ctx) does not leave status saying "No saved
// context": it names the checkpoint, and restore takes it (issue 14 item
// 6, the status part).
func TestStatusAfterCrash(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.writeConfig("context:\n  checkpoint_interval: 1\n")
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"})
	if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err == nil {
		t.Fatal("current.ctx exists before any SessionEnd")
	}
	for _, args := range [][]string{{"context", "status"}, {"context", "status", "--brief"}} {
		r := runBen10(t, nil, w.env, append(args, "--dir", w.project)...)
		if r.code != 0 || strings.Contains(r.stdout, "No saved context") || strings.Contains(r.stdout, "no saved context") || !strings.Contains(r.stdout, "checkpoint") {
			t.Errorf("%s after a crash: exit %d\n%s", strings.Join(args, " "), r.code, r.stdout)
		}
	}
	r := w.restore()
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "cp-001") {
		t.Errorf("restore after a crash: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestCrashCheckpointAtNextStart is issue 14 item 6: session A's hooks
// run under an assistant process (here `timeout`, standing in for Claude
// Code) that then dies without a SessionEnd; a session started a moment
// later gets A's newest checkpoint at once instead of waiting out the
// 15 minutes a live session in another terminal is given.
func TestCrashCheckpointAtNextStart(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: processes cannot be told apart on this platform")
	}
	timeout, err := exec.LookPath("timeout")
	if err != nil {
		t.Skip("timeout (coreutils) not found")
	}
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.writeConfig("context:\n  checkpoint_interval: 1\n")
	underA := func(event string, fields map[string]any) {
		t.Helper()
		in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": event}
		for k, v := range fields {
			in[k] = v
		}
		data, _ := json.Marshal(in)
		r := runBinary(t, timeout, data, w.env, "60", ben10Bin, "hook", hook.Event(event).Kebab())
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s under A's process: exit %d, stderr %q", event, r.code, r.stderr)
		}
	}
	underA("SessionStart", map[string]any{"source": "startup"})
	underA("UserPromptSubmit", map[string]any{"prompt": "go on"})
	if cps, _ := filepath.Glob(filepath.Join(w.contextDir(), "checkpoints", "cp-*.ctx")); len(cps) == 0 {
		t.Fatal("A wrote no checkpoint")
	}
	// A's process is gone (timeout exited). B starts right away.
	w.session = "bbbbbbbb-0000-4000-8000-000000000001"
	out := w.fire("SessionStart", map[string]any{"source": "startup", "transcript_path": filepath.Join(filepath.Dir(w.transcript), w.session+".jsonl")})
	if out == nil || out.HookSpecificOutput == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "latest checkpoint") ||
		!strings.Contains(out.SystemMessage, demoSessionID[:8]) {
		t.Fatalf("the crashed session's checkpoint was not offered at once: %+v", out)
	}
}
