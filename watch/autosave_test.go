package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// TestWatcherHonoursProjectSwitches: a project's auto_save: false keeps
// the watcher from writing its current.ctx (a "skipped" event, not an
// error), and compaction_snapshots.enabled: false makes a requested
// snapshot "blocked", not an error (issue 14 item 4).
func TestWatcherHonoursProjectSwitches(t *testing.T) {
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_SHARE_DIR"} {
		t.Setenv(k, "")
	}
	for _, tc := range []struct {
		name, cfg string
		want      string
		archived  bool
	}{
		{"auto_save off", "context:\n  auto_save: false\n", "skipped: auto_save is off", false},
		{"snapshots off", "context:\n  compaction_snapshots:\n    enabled: false\n", "blocked: compaction snapshots are disabled", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			project, _ = filepath.EvalSymlinks(project)
			if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(store.ProjectConfigPath(project), []byte(tc.cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			claudeSession(t, home, project, "6f1c2a3b-0000-4000-8000-00000000abcd", 80)
			now := time.Now()
			w, err := New(Options{Home: home, Only: []archive.Harness{archive.HarnessClaude}, NoNotify: true, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			evs, err := w.Once()
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, e := range evs {
				if e.Action == "error" {
					t.Errorf("error event: %s", e.Detail)
				}
				actions = append(actions, e.Action+": "+e.Detail)
			}
			if got := strings.Join(actions, "\n"); !strings.Contains(got, tc.want) {
				t.Errorf("events:\n%s\nwant %q", got, tc.want)
			}
			_, err = os.Stat(filepath.Join(project, ".claude", "context", "current.ctx"))
			if archived := err == nil; archived != tc.archived {
				t.Errorf("current.ctx written: %v, want %v", archived, tc.archived)
			}
		})
	}
}
