package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestNestedProjectsOneStore is issue 14 item 15 through the real binary:
// a session started in a subdirectory of a project that has a store saves
// into that store, `context status` in the subdirectory shows that save,
// and no store appears in the subdirectory.
func TestNestedProjectsOneStore(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	sub := filepath.Join(w.project, "services", "api")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	// A session in the subdirectory that saves nothing creates no store.
	in, _ := json.Marshal(map[string]any{"session_id": "aaaaaaaa-0000-4000-8000-000000000001", "cwd": sub,
		"hook_event_name": "SessionStart", "source": "startup"})
	if r := runBen10(t, in, append(w.env, "CLAUDE_PROJECT_DIR="+sub), "hook", "session-start"); r.code != 0 || r.stderr != "" {
		t.Fatalf("SessionStart: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, ".claude")); err == nil {
		t.Fatal("SessionStart with nothing to save created a store in the subdirectory")
	}
	// The project has a store (an earlier session saved there).
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	cur := filepath.Join(w.contextDir(), "current.ctx")
	before, err := os.Stat(cur)
	if err != nil {
		t.Fatal(err)
	}
	// A session started in the subdirectory saves into the project's store.
	sess := "bbbbbbbb-0000-4000-8000-000000000002"
	data, _ := os.ReadFile(w.transcript)
	data = bytes.ReplaceAll(data, []byte(demoSessionID), []byte(sess))
	data = bytes.ReplaceAll(data, []byte(`"cwd":"`+w.project+`"`), []byte(`"cwd":"`+sub+`"`))
	tp := filepath.Join(filepath.Dir(w.transcript), sess+".jsonl")
	if err := os.WriteFile(tp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	in, _ = json.Marshal(map[string]any{"session_id": sess, "cwd": sub, "transcript_path": tp, "hook_event_name": "SessionEnd", "reason": "other"})
	if r := runBen10(t, in, append(w.env, "CLAUDE_PROJECT_DIR="+sub), "hook", "session-end"); r.code != 0 || r.stderr != "" {
		t.Fatalf("SessionEnd in the subdirectory: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sub, ".claude")); err == nil {
		t.Fatal("the subdirectory's session created its own store")
	}
	if after, err := os.Stat(cur); err != nil || after.ModTime().Equal(before.ModTime()) && after.Size() == before.Size() {
		t.Fatalf("the project's current.ctx was not replaced by the subdirectory's session (%v)", err)
	}
	for _, dir := range []string{"", sub} {
		args := []string{"context", "status", "--json"}
		if dir == "" {
			args = append(args, "--dir", sub)
		}
		r := runBen10In(t, dir, nil, w.env, args...)
		var info struct {
			Project string `json:"project"`
			Current *struct {
				SessionID string `json:"session_id"`
			} `json:"current"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info.Project != w.project || info.Current == nil || info.Current.SessionID != sess {
			t.Errorf("status in %q: project %q, current %+v (%v)\n%s%s", dir, info.Project, info.Current, err, r.stdout, r.stderr)
		}
	}
}
