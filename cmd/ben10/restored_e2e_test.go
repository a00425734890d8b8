package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveAfterRestorePicksLiveSession is issue 14 item 7 (and the
// registry of item 4): `context restore --resume` writes a copy of the
// saved session into Claude Code's folder, the newest transcript there;
// `context save` still saves the live session, not Ben10's copy, and the
// copy is recorded in ~/.claude-code/restored.json.
func TestSaveAfterRestorePicksLiveSession(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	r := runBen10(t, nil, w.env, "context", "restore", "--resume", "--json", "--dir", w.project)
	if r.code != 0 {
		t.Fatalf("restore --resume: %d %s%s", r.code, r.stdout, r.stderr)
	}
	copies, _ := filepath.Glob(filepath.Join(filepath.Dir(w.transcript), "*.jsonl"))
	if len(copies) != 2 {
		t.Fatalf("want the live transcript and its restored copy side by side, got %v", copies)
	}
	reg, err := os.ReadFile(filepath.Join(w.home, ".claude-code", "restored.json"))
	if err != nil {
		t.Fatalf("the restored copy was not recorded: %v", err)
	}
	var entries []struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(reg, &entries); err != nil || len(entries) != 1 || strings.Contains(entries[0].Path, demoSessionID) {
		t.Fatalf("registry %s (%v)", reg, err)
	}
	if r := runBen10(t, nil, w.env, "context", "save", "--dir", w.project); r.code != 0 {
		t.Fatalf("context save: %d %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(w.contextDir(), "current.ctx.meta"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		SessionID  string `json:"session_id"`
		Transcript string `json:"transcript"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.SessionID != demoSessionID || m.Transcript != w.transcript {
		t.Fatalf("context save after a restore saved %q (%s), want the live %s (%s)", m.SessionID, m.Transcript, demoSessionID, w.transcript)
	}
}
