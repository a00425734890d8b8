package web

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// Fixture transcripts of the four assistants.
var (
	claudeFixture = filepath.Join("..", "transcript", "claude", "testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	codexFixture  = filepath.Join("..", "transcript", "codex", "testdata", "basic.jsonl")
	geminiFixture = filepath.Join("..", "transcript", "gemini", "testdata", "session-2026-04-23T12-00-5e550001.jsonl")
	kimiFixture   = filepath.Join("..", "transcript", "kimi", "testdata", "share", "sessions",
		"2b8c70fb72d8a087e5dee109778f74cf", "0b9c5d2e-1111-4a2b-9c3d-000000000001")
	hostileFixture = filepath.Join("testdata", "hostile-claude.jsonl")
)

// testProject is a project directory whose store holds the given
// transcripts as saved contexts (the first as history, the last as
// current.ctx) and snapshot as a compaction snapshot, under a private
// home directory.
type testProject struct {
	home, dir string
	p         *Project
}

func newTestProject(t testing.TB, snapshotOf string, transcripts ...string) *testProject {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	st, err := store.Open(dir, store.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := st.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range transcripts {
		_, err := st.SaveCurrentFunc(func(w io.Writer) error {
			_, _, err := transcript.Save(context.Background(), w, tr, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd})
			return err
		}, store.Meta{SavedAt: time.Now()}, store.SaveOptions{Rotate: true})
		if err != nil {
			t.Fatalf("saving %s: %v", tr, err)
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if snapshotOf != "" {
		m := snapshot.NewManager(st, nil)
		if _, err := m.Create(snapshot.CreateOptions{TranscriptPath: snapshotOf, Trigger: "manual", Source: "cli", Force: true}); err != nil {
			t.Fatalf("snapshot of %s: %v", snapshotOf, err)
		}
	}
	p, err := OpenProject(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	return &testProject{home: home, dir: dir, p: p}
}
