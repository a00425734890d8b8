package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSizeLimitRefusalVisible is issue 14 item 5: a final save refused
// over context.max_storage_mb (after retention removed what it could) is
// on the hook's stderr line, in `context status` (text, --brief and
// --json) and in `doctor`, which fails; the next successful save clears
// it.
func TestSizeLimitRefusalVisible(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.writeConfig("context:\n  max_storage_mb: 1\n")
	// An export nothing may remove takes the whole limit.
	exports := filepath.Join(w.contextDir(), "exports")
	if err := os.MkdirAll(exports, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(exports, "shared.ctxpkg"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	w.fire("SessionStart", map[string]any{"source": "startup"})
	in, _ := json.Marshal(map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project,
		"hook_event_name": "SessionEnd", "reason": "other"})
	r := runBen10(t, in, w.env, "hook", "session-end")
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "storage limit") {
		t.Fatalf("refused final save: exit %d, stderr %q; want exit 0 and one line naming the storage limit", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err == nil {
		t.Fatal("current.ctx written over the limit")
	}

	st := runBen10(t, nil, w.env, "context", "status", "--dir", w.project)
	if !strings.Contains(st.stdout, "refused") || !strings.Contains(st.stdout, "storage limit") || strings.Contains(st.stdout, "Good (no issues") {
		t.Errorf("status does not show the refused save:\n%s", st.stdout)
	}
	br := runBen10(t, nil, w.env, "context", "status", "--brief", "--dir", w.project)
	if !strings.Contains(br.stdout, "SAVE REFUSED") {
		t.Errorf("status --brief: %q", br.stdout)
	}
	js := runBen10(t, nil, w.env, "context", "status", "--json", "--dir", w.project)
	var info struct {
		Refused []struct {
			Area    string `json:"area"`
			Session string `json:"session"`
		} `json:"refused"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &info); err != nil || len(info.Refused) != 1 || info.Refused[0].Area != "context" || info.Refused[0].Session != demoSessionID {
		t.Errorf("status --json refused: %+v (%v)\n%s", info.Refused, err, js.stdout)
	}
	dr := runBen10(t, nil, w.env, "doctor", "--dir", w.project)
	if dr.code != 1 || !strings.Contains(dr.stdout, "✗ storage") || !strings.Contains(dr.stdout, "refused") {
		t.Errorf("doctor: exit %d\n%s", dr.code, dr.stdout)
	}

	// Room made by hand: the next save succeeds and the refusal is gone.
	if err := os.Remove(filepath.Join(exports, "shared.ctxpkg")); err != nil {
		t.Fatal(err)
	}
	w.fire("SessionEnd", map[string]any{"reason": "other"})
	st = runBen10(t, nil, w.env, "context", "status", "--dir", w.project)
	if strings.Contains(st.stdout, "refused") {
		t.Errorf("status still shows a refusal after a successful save:\n%s", st.stdout)
	}
}
