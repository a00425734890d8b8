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

// TestPreviousPrefersSameRedaction: Previous picks the newest archive of
// the session written under the current redaction configuration (its raw
// segments can be copied), even when a newer one written under another
// exists; without such an archive it picks the newest.
func TestPreviousPrefersSameRedaction(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	p := fixtureWithSubagents(t, dir)
	fixture(t, dir, 8)
	cp := writeCheckpoint(t, e.m, p)
	time.Sleep(2 * time.Millisecond) // distinct UpdatedAt
	fixture(t, dir, 14)
	cfg := *e.m.cfg
	cfg.SensitiveRedaction = false
	plain := NewManager(e.st, &cfg)
	res, err := plain.Create(CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0, Level: ctxfmt.LevelMax, NoPrevious: true})
	if err != nil {
		t.Fatal(err)
	}
	updated := func(a *archive.Archive) time.Time { return a.Meta().UpdatedAt }
	cpa, err := archive.OpenFile(cp, OpenOptions(e.m.cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer cpa.Close()
	mxa := mustOpen(t, e, res.Snapshot.ID)
	if mxa.Redaction().Enabled || !updated(mxa).After(updated(cpa)) {
		t.Fatal("the unredacted snapshot should be newer than the checkpoint")
	}
	prev := e.m.previous(fixtureSession, RedactionFingerprint(e.m.cfg))
	if prev == nil || !updated(prev).Equal(updated(cpa)) {
		t.Fatalf("Previous: %v, want the redacted checkpoint of %v", prev, updated(cpa))
	}
	prev.Close()
	// Under the unredacted configuration the snapshot is both the newest
	// and written under it.
	prev = plain.previous(fixtureSession, RedactionFingerprint(plain.cfg))
	if prev == nil || !updated(prev).Equal(updated(mxa)) {
		t.Fatalf("Previous under another configuration: %v", prev)
	}
	prev.Close()
	if plain.previous("another-session", RedactionFingerprint(plain.cfg)) != nil {
		t.Fatal("Previous of an unknown session")
	}
}

// TestPreviousFallsBackToNewest: with only archives at max, a snapshot
// builds on the newest, and Previous gives the newest.
func TestPreviousFallsBackToNewest(t *testing.T) {
	e := newEnv(t, "context:\n  sensitive_redaction: false\n")
	dir := t.TempDir()
	p := fixture(t, dir, 8)
	e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0, Level: ctxfmt.LevelMax, NoPrevious: true})
	fixture(t, dir, 0)
	b := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0.Add(time.Hour), Level: ctxfmt.LevelMax})
	if !b.Resumed {
		t.Fatal("not built on the max snapshot")
	}
	prev := e.m.previous(fixtureSession, RedactionFingerprint(e.m.cfg))
	if prev == nil {
		t.Fatal("no previous archive")
	}
	defer prev.Close()
	if !prev.Meta().UpdatedAt.Equal(mustOpen(t, e, b.Snapshot.ID).Meta().UpdatedAt) {
		t.Fatal("Previous is not the newest snapshot")
	}
}
