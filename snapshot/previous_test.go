package snapshot

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript"
)

// writeCheckpoint saves transcript p as the store's next checkpoint at
// the default level under m's configuration (as a hook does).
func writeCheckpoint(t *testing.T, m *Manager, p string) string {
	t.Helper()
	eopts, _, err := EncodeOptions(m.cfg, ctxfmt.LevelDefault)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := m.st.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	res, err := m.st.WriteCheckpointFunc(func(w io.Writer) error {
		_, _, err := transcript.Save(context.Background(), w, p, archive.HarnessClaude, archive.ImportOptions{ProjectDir: m.st.ProjectDir()}, eopts)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Path
}

// TestPreviousPrefersResumeState: Previous picks the newest archive of the
// session that carries a resume state for the current redaction
// configuration, even when a newer archive without one exists (a max
// snapshot), so that the next snapshot resumes instead of importing in
// full; without such an archive it picks the newest.
func TestPreviousPrefersResumeState(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	p := fixtureWithSubagents(t, dir)
	fixture(t, dir, 8)
	cp := writeCheckpoint(t, e.m, p)
	time.Sleep(2 * time.Millisecond) // distinct UpdatedAt
	fixture(t, dir, 14)
	mx := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0, Level: ctxfmt.LevelMax, NoPrevious: true})
	updated := func(a *archive.Archive) time.Time { return a.Meta().UpdatedAt }
	prev := e.m.Previous(fixtureSession)
	if prev == nil {
		t.Fatal("no previous archive")
	}
	cpa, err := archive.OpenFile(cp, OpenOptions(e.m.cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer cpa.Close()
	if _, ok, _ := prev.ResumeState(); !ok || !updated(prev).Equal(updated(cpa)) {
		t.Fatalf("Previous: archive of %v (resume state %v), want the checkpoint of %v", updated(prev), ok, updated(cpa))
	}
	prev.Close()
	mxa := mustOpen(t, e, mx.Snapshot.ID)
	if _, ok, _ := mxa.ResumeState(); ok || !updated(mxa).After(updated(cpa)) {
		t.Fatal("the max snapshot should be newer and without a resume state")
	}

	// The next snapshot resumes from the checkpoint.
	fixture(t, dir, 0)
	next := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0.Add(time.Hour), Level: ctxfmt.LevelFastest})
	if !next.Resumed {
		t.Fatal("snapshot after a max snapshot did not resume from the checkpoint")
	}
	// Now the newest archive has a resume state: it wins.
	prev = e.m.Previous(fixtureSession)
	if prev == nil || !updated(prev).Equal(updated(mustOpen(t, e, next.Snapshot.ID))) {
		t.Fatalf("Previous after a fastest snapshot: %v", prev)
	}
	prev.Close()

	// Another redaction configuration cannot resume from any of them:
	// the newest archive is taken.
	cfg := *e.m.cfg
	cfg.SensitiveRedaction = false
	m2 := NewManager(e.st, &cfg)
	prev = m2.Previous(fixtureSession)
	if prev == nil || !updated(prev).Equal(updated(mustOpen(t, e, next.Snapshot.ID))) {
		t.Fatalf("Previous under another configuration: %v", prev)
	}
	prev.Close()
	if m2.Previous("another-session") != nil {
		t.Fatal("Previous of an unknown session")
	}
}

// TestPreviousFallsBackToNewest: with only archives without a resume
// state (max snapshots), Previous gives the newest.
func TestPreviousFallsBackToNewest(t *testing.T) {
	e := newEnv(t, "context:\n  sensitive_redaction: false\n")
	dir := t.TempDir()
	p := fixture(t, dir, 8)
	e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0, Level: ctxfmt.LevelMax, NoPrevious: true})
	fixture(t, dir, 0)
	b := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0.Add(time.Hour), Level: ctxfmt.LevelMax})
	if b.Resumed {
		t.Fatal("resumed from a max snapshot")
	}
	prev := e.m.Previous(fixtureSession)
	if prev == nil {
		t.Fatal("no previous archive")
	}
	defer prev.Close()
	if !prev.Meta().UpdatedAt.Equal(mustOpen(t, e, b.Snapshot.ID).Meta().UpdatedAt) {
		t.Fatal("Previous is not the newest snapshot")
	}
}
