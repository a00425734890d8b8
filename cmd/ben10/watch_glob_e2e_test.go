package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A brace pattern in watch.yaml's session_paths (*.{jsonl,json}) is
// honoured by the real watcher: a Gemini CLI session of each kind (JSON
// Lines and the older whole-file JSON) in the one directory it names is
// picked up, and a file of another extension is not.
func TestWatchBraceGlobPicksUpBothKinds(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "gem")
	cfg := filepath.Join(home, ".claude-code", "watch.yaml")
	for _, f := range []struct{ path, body string }{
		{cfg, "global: {poll_interval_seconds: 0.1}\nllms:\n  claude: false\n  codex: false\n  kimi: false\n" +
			"  gemini:\n    session_paths: [\"~/gem/*.{jsonl,json}\"]\n"},
		{filepath.Join(dir, "session-new.jsonl"), `{"sessionId":"brace-jsonl","projectHash":"00","startTime":"2026-04-23T12:00:00.000Z","lastUpdated":"2026-04-23T12:00:00.000Z","kind":"main"}` + "\n"},
		{filepath.Join(dir, "session-old.json"), `{"sessionId":"brace-json","projectHash":"00","startTime":"2026-04-23T12:00:00.000Z","lastUpdated":"2026-04-23T12:00:00.000Z","kind":"main","messages":[]}`},
		{filepath.Join(dir, "session-other.txt"), `{"sessionId":"brace-txt"}`},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var log syncBuf
	cmd := exec.Command(ben10Bin, "watch", "--llm", "gemini")
	cmd.Env = cleanEnv(home)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("watcher output:\n%s", log.String())
		}
	}()
	statePath := filepath.Join(home, ".claude-code", "watch-state.json")
	var active []string
	waitFor(t, 15*time.Second, "both sessions active", func() (bool, string) {
		st, err := readWatchState(statePath)
		if err != nil {
			return false, err.Error()
		}
		l := st.LLMs["gemini"]
		if l == nil {
			return false, "no gemini entry"
		}
		active = l.ActiveSessions
		return containsID(active, "brace-jsonl") && containsID(active, "brace-json"), strings.Join(active, ",")
	})
	if containsID(active, "brace-txt") || len(active) != 2 {
		t.Errorf("active sessions %v, want exactly brace-json and brace-jsonl", active)
	}
	// --status, from a second process, lists both.
	r := runBen10(t, nil, cleanEnv(home), "watch", "--status", "--llm", "gemini")
	if r.code != 0 || !strings.Contains(r.stdout, "brace-jsonl") || !strings.Contains(r.stdout, "brace-json") {
		t.Errorf("watch --status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
