package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusAfterCrash: a session that checkpointed and then crashed (no
// SessionEnd, so no current.ctx) does not leave status saying "No saved
// context": it names the checkpoint, and restore takes it (issue 14 item
// 6, the status part).
func TestStatusAfterCrash(t *testing.T) {
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
