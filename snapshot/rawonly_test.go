package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// TestRawOnlySnapshot: a raw-only snapshot (what the PreCompact hook
// writes) is a valid snapshot as soon as Create returns — listed as
// pending, verified, opened with the model built from its raw transcript
// (counts filled in), searched, diffed, extracted, exported — with the
// same content as a complete snapshot of the same transcript; Recompress
// completes it (model segments written, the index counts filled in,
// ModelPending cleared) to the same content, file contents captured.
// Without a completion (a crashed background job) it stays valid.
func TestRawOnlySnapshot(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		pad       int // lines of about 44 KB appended to the transcript
	}{
		{"redaction on", "", 0},
		{"redaction off", "context:\n  sensitive_redaction: false\n", 0},
		{"encrypted", "context:\n  encryption:\n    enabled: true\n    key_source: env\n    env: BEN10_TEST_PASS\n", 0},
		// Over a quarter of the chunk size: the raw-only snapshot stores
		// the main file in smaller chunks than its completion.
		{"redaction on, 1.5 MB transcript", "", 34},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && (tc.pad > 0 || strings.Contains(tc.cfg, "encryption")) {
				t.Skip("-short: Argon2id at its default cost and a 1.5 MB transcript; make test-long runs it")
			}
			t.Setenv("BEN10_TEST_PASS", "correct horse battery staple")
			e := newEnv(t, tc.cfg)
			tr := inProject(t, e)
			if tc.pad > 0 {
				f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := range tc.pad {
					fmt.Fprintf(f, `{"type":"progress","sessionId":"%s","data":{"type":"bash_progress","output":"%d %s"}}`+"\n", fixtureSession, i, strings.Repeat("building module ", 2750))
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			}
			sub := filepath.Join(filepath.Dir(tr), fixtureSession, "subagents")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, "agent-x.jsonl"), []byte(`{"type":"user","sessionId":"`+fixtureSession+`","isSidechain":true,"uuid":"s1","message":{"role":"user","content":"look around"}}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC().Add(-time.Hour)
			// The complete snapshot of the same transcript, for reference.
			full := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now, Level: ctxfmt.LevelDefault, Force: true, NoPrevious: true})
			res := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now.Add(time.Minute), Level: ctxfmt.LevelDefault,
				Force: true, NoPrevious: true, RawOnly: true, QuickVerify: true})
			s := res.Snapshot
			if !res.RawOnly || !s.ModelPending || s.PreCompaction.MessageCount != 0 {
				t.Fatalf("raw-only create: %+v", res)
			}
			oo := OpenOptions(e.m.cfg)
			ra := openPath(t, e.m.Path(s), oo)
			if _, ok := ra.RawOnly(); !ok {
				t.Fatal("the snapshot file is not raw-only")
			}
			fa := openPath(t, e.m.Path(full.Snapshot), oo)
			if n, fn := ra.RawFileInfos()[0].Segments, fa.RawFileInfos()[0].Segments; (tc.pad > 0) != (n > fn) {
				t.Errorf("raw-only snapshot stores the main file in %d segments, the complete one in %d", n, fn)
			}
			if err := compareContent(fa, ra, true, true); err != nil {
				t.Fatalf("raw-only snapshot reads differently from a complete one: %v", err)
			}
			// Every reader, before completion.
			if err := e.m.Verify(s.ID); err != nil {
				t.Fatal(err)
			}
			a, c, got, err := e.m.OpenArchive(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := full.Snapshot.PreCompaction
			if got.PreCompaction != want {
				t.Errorf("OpenArchive counts %+v, want %+v", got.PreCompaction, want)
			}
			if r, ok, err := a.Recall(); err != nil || !ok || len(r.Files) == 0 {
				t.Errorf("recall of the raw-only snapshot: %+v %v %v", r, ok, err)
			}
			c.Close()
			table := string(NewListTable(mustIndex(t, e), true).AppendTo(nil))
			if !bytes.Contains([]byte(table), []byte("pending")) {
				t.Errorf("list does not show the pending counts:\n%s", table)
			}
			var hits int
			if err := e.m.Search("failing test", false, func(h Hit) error {
				if h.SnapshotID == s.ID {
					hits++
				}
				return nil
			}); err != nil || hits == 0 {
				t.Errorf("search of the raw-only snapshot: %d hits, %v", hits, err)
			}
			d, err := e.m.Diff(s.ID, nil)
			fd, ferr := e.m.Diff(full.Snapshot.ID, nil)
			if err != nil || ferr != nil {
				t.Fatalf("diff: %v / %v", err, ferr)
			}
			// (Until completed, a raw-only snapshot holds no file contents.)
			d.Snapshot, fd.Snapshot = Snapshot{}, Snapshot{}
			fdFiles := fd.LostFiles
			d.LostFiles, fd.LostFiles = nil, nil
			if !reflect.DeepEqual(d, fd) {
				t.Errorf("diff of the raw-only snapshot %+v, of the complete one %+v", d, fd)
			}
			var md bytes.Buffer
			if r, err := e.m.Extract(s.ID, ExtractOptions{Messages: true, Out: &md}); err != nil || r.Messages != want.MessageCount {
				t.Errorf("extract: %+v %v", r, err)
			}
			out := filepath.Join(t.TempDir(), "x.ctx")
			if err := e.m.Export(s.ID, out); err != nil {
				t.Fatal(err)
			}
			// The background job: completed at max.
			if err := e.m.Recompress(s.ID, ctxfmt.LevelMax); err != nil {
				t.Fatal(err)
			}
			after, err := e.m.Get(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after.ModelPending || after.PreCompaction != want || after.Level != ctxfmt.LevelMax.String() || after.FileContents != full.Snapshot.FileContents || after.FileContents == 0 {
				t.Fatalf("index entry after completion: %+v, want counts %+v and %d contents", after, want, full.Snapshot.FileContents)
			}
			if err := e.m.Verify(s.ID); err != nil {
				t.Fatal(err)
			}
			ca := openPath(t, e.m.Path(after), oo)
			if _, ok := ca.RawOnly(); ok {
				t.Fatal("completed snapshot still raw-only")
			}
			if err := compareContent(fa, ca, false, true); err != nil {
				t.Fatalf("completed snapshot differs from a complete one: %v", err)
			}
			if d, err := e.m.Diff(s.ID, nil); err != nil || !reflect.DeepEqual(d.LostFiles, fdFiles) {
				t.Errorf("diff of the completed snapshot: lost files %+v, want %+v (%v)", d.LostFiles, fdFiles, err)
			}
			// The exported raw-only copy (a snapshot whose completion never
			// ran) still opens and reads.
			xa := openPath(t, out, oo)
			if err := sameContent(ra, xa, false); err != nil {
				t.Fatalf("exported raw-only snapshot: %v", err)
			}
		})
	}
}

func mustIndex(t *testing.T, e *env) *Index {
	t.Helper()
	ix, err := e.m.Index()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestRawOnlyPrevious: a raw-only snapshot of a session is never a reason
// to build its model when it is a candidate base of the next save
// (Previous reads the stored metadata), and the next snapshot built on it
// is complete and right.
func TestRawOnlyPrevious(t *testing.T) {
	for _, cfg := range []string{"", "context:\n  sensitive_redaction: false\n"} {
		e := newEnv(t, cfg)
		tr := fixture(t, t.TempDir(), 18)
		now := time.Now().UTC().Add(-time.Hour)
		first := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now, Force: true, RawOnly: true}).Snapshot
		p := e.m.Previous(fixtureSession)
		if p == nil {
			t.Fatal("no previous archive")
		}
		if _, ok := p.RawOnly(); !ok {
			t.Fatal("previous is not the raw-only snapshot")
		}
		p.Close()
		fixture(t, filepath.Dir(tr), 0)
		second := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now.Add(time.Minute), Force: true})
		if second.Snapshot.ModelPending || second.Snapshot.PreCompaction.MessageCount == 0 {
			t.Fatalf("%q: second snapshot %+v", cfg, second.Snapshot)
		}
		// And a raw-only one built on the raw-only one.
		third := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now.Add(90 * time.Second), Force: true, RawOnly: true})
		direct := e.create(t, CreateOptions{TranscriptPath: tr, SessionID: fixtureSession, Now: now.Add(2 * time.Minute), Force: true, NoPrevious: true})
		if second.Snapshot.PreCompaction != direct.Snapshot.PreCompaction {
			t.Errorf("%q: built on a raw-only snapshot: %+v, direct %+v", cfg, second.Snapshot.PreCompaction, direct.Snapshot.PreCompaction)
		}
		oo := OpenOptions(e.m.cfg)
		for _, s := range []Snapshot{second.Snapshot, third.Snapshot} {
			if err := compareContent(openPath(t, e.m.Path(direct.Snapshot), oo), openPath(t, e.m.Path(s), oo), false, true); err != nil {
				t.Errorf("%q: snapshot built on a raw-only one: %v", cfg, err)
			}
		}
		if _, err := e.m.Get(first.ID); err != nil {
			t.Errorf("the raw-only snapshot is gone: %v", err)
		}
	}
}

// TestRawOnlyFallsBack: where a raw-only snapshot cannot be written (no
// session id, level max, another assistant's session), Create writes a
// complete one.
func TestRawOnlyFallsBack(t *testing.T) {
	e := newEnv(t, "")
	tr := fixture(t, t.TempDir(), 0)
	codex := filepath.Join(t.TempDir(), "rollout-2025-01-01T00-00-00-0196f2a1-0000-7000-8000-000000000000.jsonl")
	if err := os.WriteFile(codex, []byte(`{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"0196f2a1-0000-7000-8000-000000000000","cwd":"/p","cli_version":"0.1"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Add(-time.Hour)
	for i, o := range []CreateOptions{
		{TranscriptPath: tr, Level: ctxfmt.LevelDefault},
		{TranscriptPath: tr, SessionID: fixtureSession, Level: ctxfmt.LevelMax},
		{TranscriptPath: codex, SessionID: "0196f2a1-0000-7000-8000-000000000000", Level: ctxfmt.LevelDefault},
	} {
		o.RawOnly, o.Force, o.Now = true, true, now.Add(time.Duration(i)*time.Minute)
		r := e.create(t, o)
		if r.RawOnly || r.Snapshot.ModelPending {
			t.Errorf("case %d: raw-only snapshot written: %+v", i, r.Snapshot)
		}
		a := openPath(t, r.Path, OpenOptions(e.m.cfg))
		if _, ok := a.RawOnly(); ok {
			t.Errorf("case %d: the file is raw-only", i)
		}
	}
}
