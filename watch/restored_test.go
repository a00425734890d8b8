package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// TestWatcherSkipsRestoredSessions is issue 14 item 4: a transcript that
// `context restore --resume` wrote is Ben10's copy of a saved session: the
// watcher neither saves it over current.ctx (pushing the real save into
// history) nor snapshots it, and reports it as skipped. Once the user
// resumes it and the assistant appends to it, it is a live session again.
func TestWatcherSkipsRestoredSessions(t *testing.T) {
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_SHARE_DIR"} {
		t.Setenv(k, "")
	}
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	const live = "6f1c2a3b-0000-4000-8000-00000000abcd"
	claudeSession(t, home, project, live, 80)
	now := time.Now()
	once := func(at time.Time) []Event {
		t.Helper()
		w, err := New(Options{Home: home, Only: []archive.Harness{archive.HarnessClaude}, NoNotify: true, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		evs, err := w.Once()
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	once(now)
	st, err := store.Open(project, store.Options{Home: home, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := st.ReadMeta()
	if err != nil || meta.SessionID != live {
		t.Fatalf("the live session was not saved: %+v %v", meta, err)
	}
	snaps := func() int {
		sum, _ := snapshot.ReadSummary(st.IndexPath())
		return sum.Count
	}
	snapsBefore := snaps()

	a, err := archive.OpenFile(st.CurrentPath(), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, warn, err := snapshot.RestoreResumable(a, home, st.CurrentPath(), archive.RestoreOptions{ProjectDir: project, ConfigDir: filepath.Join(home, ".claude")})
	a.Close()
	if err != nil || warn != nil {
		t.Fatalf("restore: %v, %v", err, warn)
	}
	evs := once(now.Add(time.Minute))
	var restoredEvents []string
	for _, e := range evs {
		if e.Session == res.SessionID {
			restoredEvents = append(restoredEvents, e.Action+": "+e.Detail)
		}
		if e.Action == "error" {
			t.Errorf("error event: %s", e.Detail)
		}
	}
	got := strings.Join(restoredEvents, "\n")
	if !strings.Contains(got, "skipped: a session Ben10 restored") || strings.Contains(got, "archive") || strings.Contains(got, "snapshot") {
		t.Fatalf("the restored session's events:\n%s", got)
	}
	if m, err := st.ReadMeta(); err != nil || m.SessionID != live {
		t.Fatalf("current.ctx now holds session %q (%v), want the live %s", m.SessionID, err, live)
	}
	if hs, _ := st.History(); len(hs) != 0 {
		t.Fatalf("the real save was pushed into history: %v", hs)
	}
	if n := snaps(); n != snapsBefore {
		t.Fatalf("%d snapshots after the restore, %d before", n, snapsBefore)
	}

	// The user resumes it: the assistant appends, and it is live.
	f, err := os.OpenFile(res.Files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","uuid":"u9","parentUuid":"a1","isSidechain":false,"cwd":"` + project + `","sessionId":"` + res.SessionID + `","timestamp":"` + now.UTC().Format(time.RFC3339Nano) + `","message":{"role":"user","content":"go on"}}` + "\n")
	f.Close()
	evs = once(now.Add(2 * time.Minute))
	archived := false
	for _, e := range evs {
		if e.Session == res.SessionID && e.Action == "archive" {
			archived = true
		}
	}
	if !archived {
		t.Fatalf("the resumed session was not saved once the assistant wrote to it: %+v", evs)
	}
	if m, _ := st.ReadMeta(); m.SessionID != res.SessionID {
		t.Fatalf("current.ctx holds %q after the resumed session was saved", m.SessionID)
	}
}
