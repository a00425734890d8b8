package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// saveSessions saves one session per id into the world's project through
// the hooks (SessionStart, SessionEnd), oldest first, each rotating the
// previous current.ctx into history.
func (w *hookWorld) saveSessions(ids ...string) {
	w.t.Helper()
	full, err := os.ReadFile(w.transcript)
	if err != nil {
		w.t.Fatal(err)
	}
	orig := w.session
	for _, id := range ids {
		w.session = id
		w.transcript = filepath.Join(filepath.Dir(w.transcript), id+".jsonl")
		w.writeTranscript(bytes.ReplaceAll(full, []byte(orig), []byte(id)))
		w.fire("SessionStart", map[string]any{"source": "startup"})
		w.fire("SessionEnd", map[string]any{"reason": "other"})
	}
}

// TestRestoreEdgeCases is issue 14 item 7: a rotated-out checkpoint is
// named with the ones that exist (in every restore mode); restoring from
// a non-current source keeps every history file; an archive of another
// project needs --force, and its working directory is then mapped.
func TestRestoreEdgeCases(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.writeConfig("context:\n  history_retention_count: 2\n  checkpoint_interval: 1\n")
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"})

	t.Run("rotated-out checkpoint", func(t *testing.T) {
		for _, mode := range []string{"full", "summary"} {
			r := w.restore("--checkpoint", "9", "--mode", mode)
			if r.code == 0 || !strings.Contains(r.stderr, "checkpoint 9 does not exist") || !strings.Contains(r.stderr, "existing checkpoints: 1") {
				t.Errorf("--mode %s: exit %d, stderr %q", mode, r.code, r.stderr)
			}
		}
	})

	t.Run("non-current source keeps history", func(t *testing.T) {
		w.saveSessions("aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b", "cccccccc-0000-4000-8000-00000000000c")
		hist, _ := filepath.Glob(filepath.Join(w.contextDir(), "history", "session-*.ctx"))
		if len(hist) != 2 {
			t.Fatalf("history before the restore: %v", hist)
		}
		from := filepath.Join(t.TempDir(), "b.ctx")
		data, err := os.ReadFile(hist[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(from, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if r := w.restore("--from", from); r.code != 0 {
			t.Fatalf("restore --from: %d %s", r.code, r.stderr)
		}
		for _, h := range hist {
			if _, err := os.Stat(h); err != nil {
				t.Errorf("restoring from a non-current source evicted history %s", filepath.Base(h))
			}
		}
		after, _ := filepath.Glob(filepath.Join(w.contextDir(), "history", "session-*.ctx"))
		if len(after) != 3 {
			t.Errorf("history after the restore: %d files, want the 2 kept and the replaced current.ctx", len(after))
		}
		// Restoring a history file swaps it with current.ctx: history
		// does not grow.
		if r := w.restore("--from", after[0]); r.code != 0 {
			t.Fatalf("restore --from history: %d %s", r.code, r.stderr)
		}
		if again, _ := filepath.Glob(filepath.Join(w.contextDir(), "history", "session-*.ctx")); len(again) != 3 {
			t.Errorf("history after restoring one of its files: %d, want 3", len(again))
		}
	})

	t.Run("another project", func(t *testing.T) {
		other := newHookWorld(t, demoSessionID)
		other.writeDemo()
		other.fire("SessionStart", map[string]any{"source": "startup"})
		other.fire("SessionEnd", map[string]any{"reason": "other"})
		pkg := filepath.Join(other.contextDir(), "current.ctx")
		r := w.restore("--from", pkg)
		if r.code == 0 || !strings.Contains(r.stderr, "another project") || !strings.Contains(r.stderr, "--force") {
			t.Fatalf("restore of another project's archive without --force: exit %d, stderr %q", r.code, r.stderr)
		}
		r = w.restore("--from", pkg, "--force", "--json")
		if r.code != 0 || !strings.Contains(r.stderr, "warning") {
			t.Fatalf("restore --force: exit %d, stderr %q", r.code, r.stderr)
		}
		cfg := filepath.Join(w.home, "claude-config", "projects")
		var resumed []string
		filepath.Walk(cfg, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(`"cwd":"`+other.project)) {
					resumed = append(resumed, p)
				}
			}
			return nil
		})
		if len(resumed) != 0 {
			t.Fatalf("the resumed session still works in the other project: %v", resumed)
		}
	})
}
