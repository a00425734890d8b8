package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// metadataOnly is what Claude Code 2.1.197 sometimes leaves as a
// session's transcript: its metadata lines and no conversation.
func metadataOnly(session string) []byte {
	return []byte(fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"go on","leafUuid":"c1cab47b-54a7-45e6-873e-d68834e7fef8","sessionId":%[1]q}
{"type":"mode","mode":"normal","sessionId":%[1]q}
{"type":"permission-mode","permissionMode":"default","sessionId":%[1]q}
{"type":"ai-title","aiTitle":"Fix the cart total","sessionId":%[1]q}
`, session))
}

// TestNoConversationNotSavedNorRestored: hooks write no checkpoint and no
// final save of a transcript without a conversation, nor does `context
// save`; an archive without messages (as older versions wrote) is refused
// by `restore FILE --resume` with a clear error, and the store's restore
// passes over such a checkpoint for the newest one with a conversation.
func TestNoConversationNotSavedNorRestored(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	if err := os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte("context:\n  checkpoint_interval: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.writeTranscript(metadataOnly(demoSessionID))
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"})
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	for _, g := range []string{"current.ctx", "checkpoints/*.ctx"} {
		if m, _ := filepath.Glob(filepath.Join(w.contextDir(), g)); len(m) > 0 {
			t.Errorf("a save without conversation was written: %v", m)
		}
	}
	r := runBen10(t, nil, w.env, "context", "save", "--dir", w.project, "--transcript", w.transcript)
	if r.code == 0 || !strings.Contains(r.stderr, "no conversation") {
		t.Errorf("context save of a transcript without conversation: exit %d, %q", r.code, r.stderr)
	}

	// The session with its conversation: checkpoint 1 and current.ctx.
	w.writeDemo()
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"})
	cps, _ := filepath.Glob(filepath.Join(w.contextDir(), "checkpoints", "cp-*.ctx"))
	if len(cps) != 1 {
		t.Fatalf("checkpoints %v, want one", cps)
	}
	// A newer checkpoint holding only metadata lines, as an older
	// version wrote it.
	st, err := claude.ImportFiles([]archive.RawFile{{Name: demoSessionID + ".jsonl", Data: metadataOnly(demoSessionID)}}, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(w.contextDir(), "checkpoints", "cp-002.ctx")
	if err := os.WriteFile(empty, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgDir := filepath.Join(w.home, "claude-config")
	env := append(append([]string(nil), w.env...), "CLAUDE_CONFIG_DIR="+cfgDir)
	r = runBen10(t, nil, env, "context", "restore", empty, "--resume", "--project-dir", w.project)
	if r.code == 0 || !strings.Contains(r.stderr, "no conversation") {
		t.Errorf("restore --resume of an archive without messages: exit %d, %q", r.code, r.stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(cfgDir, "projects", "*", "*.jsonl")); len(m) > 0 {
		t.Errorf("a session without conversation was written for Claude Code: %v", m)
	}
	r = runBen10(t, nil, env, "context", "restore", "--dir", w.project, "--checkpoint", "2")
	if r.code == 0 || !strings.Contains(r.stderr, "no conversation") {
		t.Errorf("restore --checkpoint 2: exit %d, %q", r.code, r.stderr)
	}
	r = runBen10(t, nil, env, "context", "restore", "--dir", w.project, "--checkpoint", "7")
	if r.code == 0 || !strings.Contains(r.stderr, "existing checkpoints: 1, 2") {
		t.Errorf("restore --checkpoint 7: exit %d, %q", r.code, r.stderr)
	}
	// No current.ctx (the session crashed): the restore takes cp-001,
	// the newest checkpoint with a conversation.
	r = runBen10(t, nil, env, "context", "restore", "--dir", w.project)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "cp-001") {
		t.Errorf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("the checkpoint without conversation was moved: %v", err)
	}
}
