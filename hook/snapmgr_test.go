package hook

import (
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// TestRecompressSweepsPending: the background recompression of a new
// snapshot also completes an older raw-only snapshot left pending (its
// own recompression killed), and leaves a recent one to its own.
func TestRecompressSweepsPending(t *testing.T) {
	e := newEnv(t)
	tp := e.transcript(demoSession, boundaryLine(t))
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.Config()
	m := snapshot.NewManager(st, cfg)
	now := time.Now().UTC()
	var ids []string
	for _, at := range []time.Time{now.Add(-time.Hour), now.Add(-time.Second), now} {
		r, err := m.Create(snapshot.CreateOptions{TranscriptPath: tp, SessionID: demoSession, Now: at, Force: true, RawOnly: true, Level: ctxfmt.LevelDefault})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Snapshot.ModelPending {
			t.Fatalf("snapshot %+v not raw-only", r.Snapshot)
		}
		ids = append(ids, r.Snapshot.ID)
	}
	if err := DefaultSnapshots(st, cfg).Recompress(ids[2], ctxfmt.LevelDefault); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, true, false} {
		s, err := m.Get(ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if s.ModelPending != want || (!want && s.PreCompaction.MessageCount == 0) {
			t.Errorf("snapshot %d after the sweep: %+v, want pending %v", i, s, want)
		}
	}
}
