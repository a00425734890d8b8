package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestWorkerSnapshotsBeforeBoundary: PreCompact takes note of the
// transcript's size; the worker, running after Claude Code appended the
// compaction's boundary and summary, snapshots exactly the lines before
// them (real snapshot layer), verified and indexed.
func TestWorkerSnapshotsBeforeBoundary(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	b := boundaryLine(t)
	tp := e.transcript(demoSession, b)
	pre, err := claude.Import(context.Background(), tp, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := e.handler()
	h.Snapshots = nil // package snapshot's Manager
	fire := func(event string, in map[string]any) {
		t.Helper()
		in["cwd"], in["hook_event_name"], in["session_id"], in["transcript_path"] = e.project, event, demoSession, tp
		var so, se bytes.Buffer
		if h.Run(context.Background(), "", bytes.NewReader(mustJSON(t, in)), &so, &se); se.Len() > 0 {
			t.Fatalf("%s: %s", event, se.String())
		}
	}
	fire("PreCompact", map[string]any{"trigger": "manual"})
	// The compaction happens before the worker runs.
	e.transcript(demoSession, 0)
	if _, err := h.Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(e.project, store.Options{Home: e.home, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := snapshot.NewManager(st, nil)
	s, ok, err := m.LatestForSession(demoSession)
	if err != nil || !ok {
		t.Fatalf("no snapshot after the worker: %v", err)
	}
	if s.Trigger != "manual" || s.PreCompaction.MessageCount != len(pre.Messages) {
		t.Fatalf("snapshot %+v, want %d messages (the transcript before its boundary)", s, len(pre.Messages))
	}
	a, _, err := m.OpenArchive(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	raw, err := a.RawFiles()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw[0].Data, []byte(`"compact_boundary"`)) {
		t.Fatal("the snapshot holds the compaction boundary written after PreCompact")
	}
	if jobs, err := st.Jobs(); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs left: %+v, %v", jobs, err)
	}
	if _, err := os.Stat(m.Path(s)); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
