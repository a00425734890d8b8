package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

// unknownTypesFixture is the Claude fixture with lines of eight types the
// importer does not know: its import report then holds a map of eight
// keys, which msgpack encodes in Go's random map order.
func unknownTypesFixture(t *testing.T, dir string) string {
	t.Helper()
	p := fixture(t, dir, 0)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range 8 {
		fmt.Fprintf(f, "{\"type\":\"zz-new-type-%d\",\"sessionId\":%q}\n", i, fixtureSession)
	}
	return p
}

// TestRecompressMapOrder: twenty raw-only hook snapshots of a session whose
// import report holds a map (unknown line types) are all completed by
// Recompress. The self-check compared msgpack encodings, which differ
// from one encoding of the same map to the next, and left most of them
// pending.
func TestRecompressMapOrder(t *testing.T) {
	e := newEnv(t, "")
	tr := unknownTypesFixture(t, t.TempDir())
	now := time.Now().UTC().Add(-time.Hour)
	for i := range 20 {
		r := e.create(t, CreateOptions{TranscriptPath: tr, Now: now.Add(time.Duration(i) * time.Minute), Force: true, RawOnly: true, QuickVerify: true, SessionID: fixtureSession})
		if !r.RawOnly {
			t.Fatalf("snapshot %d: not raw-only", i)
		}
		if err := e.m.Recompress(r.Snapshot.ID, ctxfmt.LevelDefault); err != nil {
			t.Fatalf("snapshot %d of 20: %v", i+1, err)
		}
		s, err := e.m.Get(r.Snapshot.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.ModelPending {
			t.Fatalf("snapshot %d of 20 still pending", i+1)
		}
		if got := openPath(t, e.m.Path(s), OpenOptions(e.m.cfg)).ImportReport().UnknownTypes; len(got) < 8 {
			t.Fatalf("snapshot %d: unknown types %v, want at least 8", i+1, got)
		}
	}
}

// TestCompletePendingAfterKill: of twenty raw-only hook snapshots, the
// background worker completed some, was killed half-way through one (its
// temporary file left behind) and never ran for the others.
// CompletePending takes the work over once StalePending has passed, and
// leaves alone a snapshot whose worker may still be running.
func TestCompletePendingAfterKill(t *testing.T) {
	e := newEnv(t, "context:\n  compaction_snapshots:\n    retention_count: 50\n")
	tr := unknownTypesFixture(t, t.TempDir())
	start := time.Now().UTC().Add(-time.Hour)
	var ids []string
	for i := range 20 {
		r := e.create(t, CreateOptions{TranscriptPath: tr, Now: start.Add(time.Duration(i) * time.Minute), Force: true, RawOnly: true, QuickVerify: true, SessionID: fixtureSession})
		ids = append(ids, r.Snapshot.ID)
		switch {
		case i%4 == 0:
			if err := e.m.Recompress(r.Snapshot.ID, ctxfmt.LevelDefault); err != nil {
				t.Fatal(err)
			}
		case i == 9:
			// Killed while writing its new file.
			if err := os.WriteFile(filepath.Join(e.st.SnapshotDir(), store.TempPrefix+"snap-killed"), []byte("CTX half a file"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	fresh := e.create(t, CreateOptions{TranscriptPath: tr, Now: time.Now().UTC(), Force: true, RawOnly: true, QuickVerify: true, SessionID: fixtureSession}).Snapshot
	done, err := e.m.CompletePending(ctxfmt.LevelDefault, time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 15 {
		t.Errorf("completed %d snapshots, want the 15 left pending", len(done))
	}
	for i, id := range ids {
		s, err := e.m.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.ModelPending || s.Level != ctxfmt.LevelDefault.String() {
			t.Errorf("snapshot %d of 20: pending %v, level %s", i+1, s.ModelPending, s.Level)
		}
	}
	if s, _ := e.m.Get(fresh.ID); !s.ModelPending {
		t.Error("a snapshot taken just now was completed (its own worker may be running)")
	}
	again, err := e.m.CompletePending(ctxfmt.LevelDefault, time.Now().UTC())
	if err != nil || len(again) != 0 {
		t.Errorf("second pass: %v, %v", again, err)
	}
}
