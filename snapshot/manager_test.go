package snapshot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

const fixtureSession = "11111111-2222-4333-8444-555555555555"

// fixture copies the Claude importer's test session (and its subagent
// folder) into dir and returns the main file. With upTo > 0 only the first
// upTo lines are kept (a transcript before its compaction).
func fixture(t *testing.T, dir string, upTo int) string {
	t.Helper()
	src := filepath.Join("..", "transcript", "claude", "testdata", fixtureSession+".jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if upTo > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		data = bytes.Join(lines[:upTo], nil)
	}
	p := filepath.Join(dir, fixtureSession+".jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type env struct {
	project, home string
	st            *store.Store
	m             *Manager
}

// newEnv opens a store in a fresh project directory with config.yaml
// content cfg (may be empty).
func newEnv(t *testing.T, cfg string) *env {
	t.Helper()
	e := &env{project: t.TempDir(), home: t.TempDir()}
	if cfg != "" {
		os.MkdirAll(filepath.Join(e.project, ".claude"), 0o700)
		if err := os.WriteFile(store.ProjectConfigPath(e.project), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.reopen(t)
	return e
}

func (e *env) reopen(t *testing.T) {
	t.Helper()
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	e.st, e.m = st, NewManager(st, nil)
}

func (e *env) create(t *testing.T, o CreateOptions) *CreateResult {
	t.Helper()
	if o.TranscriptPath == "" {
		o.TranscriptPath = fixture(t, t.TempDir(), 0)
	}
	if o.Level == 0 {
		o.Level = ctxfmt.LevelFastest
	}
	r, err := e.m.Create(o)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return r
}

func TestCreateListVerify(t *testing.T) {
	e := newEnv(t, "")
	r := e.create(t, CreateOptions{Trigger: "auto", Source: "hook", Now: t0})
	if r.Pending || r.Replaced != "" {
		t.Fatalf("result %+v", r)
	}
	s := r.Snapshot
	if s.ID != "pre-compact-20260127-143022-111111" || s.Trigger != "threshold" || s.Source != "hook" {
		t.Fatalf("snapshot %+v", s)
	}
	if s.PreCompaction.MessageCount == 0 || s.PreCompaction.TokenCount == 0 || s.ContentHash == "" || s.CompressedBytes == 0 || s.UncompressedBytes <= 0 {
		t.Fatalf("metrics missing: %+v", s)
	}
	fi, err := os.Stat(r.Path)
	if err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(r.Path) != e.st.SnapshotDir() {
		t.Fatalf("file %s: %v %v", r.Path, fi, err)
	}
	if err := e.m.Verify("111111"); err != nil {
		t.Fatal(err)
	}
	ix, err := e.m.Index()
	if err != nil || len(ix.Snapshots) != 1 || ix.TotalSizeBytes != s.CompressedBytes {
		t.Fatalf("index %+v %v", ix, err)
	}
	a, got, err := e.m.OpenArchive("20260127")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got.ID != s.ID || a.Meta().SessionID != fixtureSession {
		t.Fatalf("OpenArchive: %+v %+v", got, a.Meta())
	}
	if latest, ok, _ := e.m.LatestForSession(fixtureSession); !ok || latest.ID != s.ID {
		t.Fatalf("LatestForSession = %v %v", latest, ok)
	}
	audit, _ := os.ReadFile(store.AuditPath(e.home))
	if !bytes.Contains(audit, []byte(`"snapshot_id":"`+s.ID+`"`)) {
		t.Fatalf("audit log lacks the snapshot: %s", audit)
	}
}

func TestDebounceAndForce(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	e := newEnv(t, "")
	first := e.create(t, CreateOptions{Now: now}).Snapshot
	second := e.create(t, CreateOptions{Now: now.Add(2 * time.Minute)})
	if second.Replaced != first.ID {
		t.Fatalf("second snapshot within 5 min replaced %q, want %q", second.Replaced, first.ID)
	}
	if _, err := os.Stat(filepath.Join(e.st.SnapshotDir(), first.File)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("replaced file still there: %v", err)
	}
	third := e.create(t, CreateOptions{Now: now.Add(3 * time.Minute), Force: true})
	if third.Replaced != "" {
		t.Fatalf("forced snapshot replaced %q", third.Replaced)
	}
	fourth := e.create(t, CreateOptions{Now: now.Add(20 * time.Minute)})
	if fourth.Replaced != "" {
		t.Fatalf("snapshot after the window replaced %q", fourth.Replaced)
	}
	ix, _ := e.m.Index()
	if len(ix.Snapshots) != 3 {
		t.Fatalf("%d snapshots, want 3", len(ix.Snapshots))
	}
}

func TestPinDeleteExportPinnedFile(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	e := newEnv(t, "context:\n  compaction_snapshots:\n    retention_count: 2\n")
	var ids []string
	for i := 0; i < 2; i++ {
		ids = append(ids, e.create(t, CreateOptions{Now: now.Add(time.Duration(i) * time.Hour), Force: true}).Snapshot.ID)
	}
	if err := e.m.Pin(ShortID(ids[0]), true); err != nil {
		t.Fatal(err)
	}
	pinned, _ := os.ReadFile(e.st.PinnedPath())
	if !strings.Contains(string(pinned), ids[0]+"\n") || strings.Contains(string(pinned), ids[1]) {
		t.Fatalf(".pinned = %q", pinned)
	}
	// A third snapshot exceeds retention_count 2: the oldest unpinned goes.
	r := e.create(t, CreateOptions{Now: now.Add(2 * time.Hour), Force: true})
	if len(r.Pruned) != 1 || r.Pruned[0] != ids[1] {
		t.Fatalf("pruned %v, want [%s]", r.Pruned, ids[1])
	}
	out := filepath.Join(t.TempDir(), "x.ctx")
	if err := e.m.Export(ShortID(ids[0]), out); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Export(ShortID(ids[0]), out); !errors.Is(err, ErrExists) {
		t.Fatalf("second export: %v", err)
	}
	if err := ctxfmt.VerifyFile(out, ctxfmt.VerifyOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := e.m.Get(ids[0])
	if err := e.m.Verify(ids[0]); err != nil {
		t.Fatal(err)
	}
	a, _, err := e.m.OpenArchive(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := a.Messages()
	a.Close()
	if err != nil || len(msgs) != before.PreCompaction.MessageCount {
		t.Fatalf("pinned archive: %d messages, %v", len(msgs), err)
	}
	if err := e.m.Delete(ids[0]); err != nil {
		t.Fatal(err)
	}
	if pinned, _ := os.ReadFile(e.st.PinnedPath()); strings.Contains(string(pinned), ids[0]) {
		t.Fatalf(".pinned still names the deleted snapshot: %q", pinned)
	}
	if _, err := e.m.Get(ids[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted snapshot still found: %v", err)
	}
}

func TestPendingWhenLockBusy(t *testing.T) {
	e := newEnv(t, "context:\n  lock_timeout: 100ms\n")
	other, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := other.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := e.create(t, CreateOptions{Now: t0})
	if !r.Pending {
		unlock()
		t.Fatalf("lock busy but snapshot not pending: %+v", r)
	}
	unlock()
	if ix, _ := e.m.Index(); len(ix.Snapshots) != 0 {
		t.Fatalf("pending snapshot already listed")
	}
	if err := e.m.Sync(t0); err != nil {
		t.Fatal(err)
	}
	ix, _ := e.m.Index()
	if len(ix.Snapshots) != 1 || ix.Snapshots[0].ID != "pre-compact-20260127-143022-111111" {
		t.Fatalf("after merge: %+v", ix.Snapshots)
	}
	if err := e.m.Verify(ix.Snapshots[0].ID); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(e.st.PendingDir()); len(ents) != 0 {
		t.Fatalf("pending files left: %v", ents)
	}
}

// TestParkedFileWaitsForItsRecord: park renames a snapshot into place
// before it writes its pending record; a repair in between leaves the
// file to its record (the record names the caller's session), and adopts
// it only once it is older than parkGrace (its parker died).
func TestParkedFileWaitsForItsRecord(t *testing.T) {
	e := newEnv(t, "context:\n  lock_timeout: 100ms\n")
	other, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := other.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := e.create(t, CreateOptions{Now: t0})
	unlock()
	if !r.Pending {
		t.Fatalf("lock busy but snapshot not pending: %+v", r)
	}
	// The moment between the rename and the record: no record yet.
	if err := os.RemoveAll(e.st.PendingDir()); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Sync(t0); err != nil {
		t.Fatal(err)
	}
	if ix, _ := e.m.Index(); len(ix.Snapshots) != 0 {
		t.Fatalf("a file parked just now was adopted before its record: %+v", ix.Snapshots)
	}
	old := time.Now().Add(-2 * parkGrace)
	if err := os.Chtimes(r.Path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Sync(t0); err != nil {
		t.Fatal(err)
	}
	if ix, _ := e.m.Index(); len(ix.Snapshots) != 1 {
		t.Fatalf("a parked file with no record, older than parkGrace, was not adopted: %+v", ix.Snapshots)
	}
}

func TestRepairIndex(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	e := newEnv(t, "")
	a := e.create(t, CreateOptions{Now: now, Force: true}).Snapshot
	b := e.create(t, CreateOptions{Now: now.Add(time.Hour), Force: true}).Snapshot
	if err := e.m.Pin(a.ID, true); err != nil {
		t.Fatal(err)
	}
	// Damage index.json: it is moved to corrupt/ and rebuilt, the pin
	// coming back from .pinned.
	if err := os.WriteFile(e.st.IndexPath(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Sync(now.Add(2 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	ix, _ := e.m.Index()
	if len(ix.Snapshots) != 2 || !ix.Snapshots[0].Pinned || ix.Snapshots[0].ID != a.ID || ix.Snapshots[1].Pinned {
		t.Fatalf("rebuilt index: %+v", ix.Snapshots)
	}
	if ents, _ := os.ReadDir(e.st.CorruptDir()); len(ents) != 1 {
		t.Fatalf("damaged index.json not kept in corrupt/: %v", ents)
	}
	// A damaged snapshot file that the index does not list is quarantined;
	// a listed file that vanished loses its entry.
	bad := filepath.Join(e.st.SnapshotDir(), "pre-compact-20260101-000000-badbad.ctx")
	os.WriteFile(bad, []byte("garbage"), 0o600)
	os.Remove(filepath.Join(e.st.SnapshotDir(), b.File))
	if err := e.m.Sync(now.Add(2 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	ix, _ = e.m.Index()
	if len(ix.Snapshots) != 1 || ix.Snapshots[0].ID != a.ID {
		t.Fatalf("after repair: %+v", ix.Snapshots)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("damaged file left in place")
	}
	if w := strings.Join(e.m.Warnings(), "\n"); !strings.Contains(w, "failed verification") || !strings.Contains(w, "is gone") {
		t.Fatalf("warnings: %s", w)
	}
}

func TestDiffLostDetail(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	// The snapshot is the transcript just before its compaction boundary
	// (line 19); afterwards the live file has the boundary and summary.
	p := fixture(t, dir, 18)
	snap := e.create(t, CreateOptions{TranscriptPath: p, Now: t0}).Snapshot
	fixture(t, dir, 0)
	d, err := e.m.Diff(snap.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.CurrentSource != p || !d.Compacted || d.Summarized == 0 || len(d.LostSpans) == 0 {
		t.Fatalf("diff: %+v", d)
	}
	if d.Snap.Messages != snap.PreCompaction.MessageCount || d.Current.Messages >= d.Snap.Messages {
		t.Fatalf("counts: snap %+v current %+v", d.Snap, d.Current)
	}
	if d.LostToolCount == 0 || len(d.LostTools) == 0 {
		t.Fatalf("no lost tool outputs: %+v", d)
	}
	if !strings.Contains(d.LostSpans[0].Title, "Fix the failing test") || d.LostSpans[0].From != 1 {
		t.Fatalf("first span %+v", d.LostSpans[0])
	}
	if len(d.Preserved) == 0 || !strings.Contains(d.Preserved[0], "Compaction summary") {
		t.Fatalf("preserved %v", d.Preserved)
	}
	// Without compaction nothing is lost.
	d, err = e.m.Diff(snap.ID, mustOpen(t, e, snap.ID))
	if err != nil || len(d.LostSpans) != 0 || d.Summarized != 0 {
		t.Fatalf("self diff: %+v %v", d, err)
	}
}

func mustOpen(t *testing.T, e *env, id string) *archive.Archive {
	a, _, err := e.m.OpenArchive(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestSearchAndExtract(t *testing.T) {
	e := newEnv(t, "")
	s := e.create(t, CreateOptions{Now: t0}).Snapshot
	var hits []Hit
	if err := e.m.Search("FAILING test", false, func(h Hit) error { hits = append(hits, h); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].SnapshotID != s.ID || hits[0].Message != 1 || !strings.Contains(strings.ToLower(hits[0].Snippet), "failing test") {
		t.Fatalf("hits %+v", hits)
	}
	var rx []Hit
	if err := e.m.Search(`toolu_\d`, true, func(h Hit) error { rx = append(rx, h); return ErrStop }); err != nil {
		t.Fatal(err)
	}
	if len(rx) > 1 {
		t.Fatalf("ErrStop did not stop: %d hits", len(rx))
	}
	if err := e.m.Search("(", true, func(Hit) error { return nil }); err == nil {
		t.Fatal("bad regex accepted")
	}
	var md bytes.Buffer
	res, err := e.m.Extract(s.ID, ExtractOptions{Messages: true, Range: Range{From: 1, To: 2}, Out: &md})
	if err != nil || res.Messages != 2 || !strings.Contains(md.String(), "Fix the failing test") {
		t.Fatalf("extract: %+v %v\n%s", res, err, md.String())
	}
	var jl bytes.Buffer
	if _, err := e.m.Extract(s.ID, ExtractOptions{Messages: true, Format: "jsonl", Out: &jl}); err != nil || bytes.Count(jl.Bytes(), []byte("\n")) != s.PreCompaction.MessageCount {
		t.Fatalf("jsonl: %v\n%s", err, jl.String())
	}
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Range
		ok   bool
	}{{"3-7", Range{3, 7}, true}, {"5", Range{5, 5}, true}, {"4-", Range{4, 0}, true}, {"-9", Range{0, 9}, true}, {"", Range{}, true},
		{"7-3", Range{}, false}, {"a-b", Range{}, false}, {"0", Range{}, false}} {
		got, err := ParseRange(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseRange(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestStripper(t *testing.T) {
	s := NewStripper("/home/alice", "alice")
	for in, want := range map[string]string{
		`{"cwd":"/home/alice/proj"}`:         `{"cwd":"~/proj"}`,
		`/home/alicex/y`:                     `/home/alicex/y`,
		`see /Users/alice/x and /home/alice`: `see /Users/user/x and ~`,
		`C:\\Users\\alice\\x`:                `C:\\Users\\user\\x`,
		`alice wrote this`:                   `alice wrote this`,
	} {
		if got := s.String(in); got != want {
			t.Errorf("strip %q = %q, want %q", in, got, want)
		}
	}
}

func TestEncryptedFromConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: Argon2id at its default cost on every open; make test-long runs it")
	}
	t.Setenv("BEN10_TEST_PASS", "correct horse battery staple")
	e := newEnv(t, "context:\n  encryption:\n    enabled: true\n    key_source: env\n    env: BEN10_TEST_PASS\n")
	s := e.create(t, CreateOptions{Now: time.Now()}).Snapshot
	r, err := ctxfmt.OpenFile(e.m.Path(s), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enc := r.Encrypted()
	r.Close()
	if !enc {
		t.Fatal("snapshot not encrypted")
	}
	if err := e.m.Verify(s.ID); err != nil {
		t.Fatal(err)
	}
	a, _, err := e.m.OpenArchive(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := a.Messages()
	a.Close()
	if err != nil || len(msgs) != s.PreCompaction.MessageCount {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	// Without the key the snapshot cannot be written.
	t.Setenv("BEN10_TEST_PASS", "")
	if _, err := e.m.Create(CreateOptions{TranscriptPath: fixture(t, t.TempDir(), 0), Force: true}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("Create without key: %v", err)
	}
}

// inProject rewrites the fixture's working directory (/home/dev/proj) to the
// env's project and creates the files the session touched, so that file
// contents are captured.
func inProject(t *testing.T, e *env) string {
	t.Helper()
	p := fixture(t, t.TempDir(), 0)
	data, _ := os.ReadFile(p)
	canon, _ := filepath.EvalSymlinks(e.project)
	data = bytes.ReplaceAll(data, []byte("/home/dev/proj"), []byte(canon))
	os.WriteFile(p, data, 0o600)
	for name, body := range map[string]string{"pkg/calc/add.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "docs/calc.md": "# calc\n"} {
		f := filepath.Join(e.project, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(f), 0o700)
		os.WriteFile(f, []byte(body), 0o600)
	}
	return p
}

func TestFilesExtractAndReconcile(t *testing.T) {
	e := newEnv(t, "")
	s := e.create(t, CreateOptions{TranscriptPath: inProject(t, e), Now: time.Now()}).Snapshot
	if s.FileContents == 0 {
		t.Fatalf("no file contents captured: %+v", s)
	}
	out := t.TempDir()
	res, err := e.m.Extract(s.ID, ExtractOptions{Files: true, Dir: out})
	if err != nil || len(res.Files) == 0 {
		t.Fatalf("extract files: %+v %v", res, err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "pkg", "calc", "add.go"))
	if !strings.Contains(string(got), "func Add") {
		t.Fatalf("extracted add.go = %q", got)
	}
	// Change the working tree: modify, delete, add.
	os.WriteFile(filepath.Join(e.project, "pkg", "calc", "add.go"), []byte("package calc\n\n// Add adds.\nfunc Add(a, b int) int { return b + a }\n"), 0o600)
	os.Remove(filepath.Join(e.project, "docs", "calc.md"))
	os.WriteFile(filepath.Join(e.project, "pkg", "calc", "sub.go"), []byte("package calc\n"), 0o600)
	os.WriteFile(filepath.Join(e.project, "pkg", "calc", "debug.log"), []byte("x\n"), 0o600)
	a := mustOpen(t, e, s.ID)
	files, _ := a.Files()
	contents, _ := a.FileContents()
	rec, err := Reconcile(e.project, files, contents, nil, ExcludePatterns(e.m.cfg))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Modified) != 1 || rec.Modified[0].Path != "pkg/calc/add.go" || !rec.Modified[0].Counted || rec.Modified[0].Added != 2 || rec.Modified[0].Removed != 1 {
		t.Fatalf("modified %+v", rec.Modified)
	}
	if len(rec.Deleted) != 1 || rec.Deleted[0].Path != "docs/calc.md" {
		t.Fatalf("deleted %+v", rec.Deleted)
	}
	if len(rec.New) != 1 || rec.New[0].Path != "pkg/calc/sub.go" {
		t.Fatalf("new %+v (debug.log is excluded by *.log)", rec.New)
	}
	// With the current hashes as baseline, every change is acknowledged:
	// the modification, the deletion and the new file (now compared by
	// its hash: unchanged, like add.go).
	rec2, _ := Reconcile(e.project, files, contents, rec.Hashes, ExcludePatterns(e.m.cfg))
	if rec2.Changed() || rec2.Unchanged != 2 {
		t.Fatalf("after reconcile: %+v", rec2)
	}
	// Restoring files back into the project skips the modified one unless forced.
	res, err = e.m.Extract(s.ID, ExtractOptions{Files: true, Dir: e.project})
	if err != nil || len(res.Skipped) != 1 {
		t.Fatalf("restore files: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(e.project, "docs", "calc.md")); err != nil {
		t.Fatalf("deleted file not restored: %v", err)
	}
}

// TestHoldSharesTheWatcherCooldown: a watcher snapshot held for its
// cooldown is replaced, not doubled, by a PreCompact hook snapshot of the
// same session inside that cooldown but past snapshot_debounce; after the
// hold a new snapshot is added.
func TestHoldSharesTheWatcherCooldown(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	e := newEnv(t, "")
	w := e.create(t, CreateOptions{Now: now, Source: "watcher", HoldFor: 10 * time.Minute}).Snapshot
	if !w.HoldUntil.Equal(now.Add(10 * time.Minute)) {
		t.Fatalf("HoldUntil = %v, want %v", w.HoldUntil, now.Add(10*time.Minute))
	}
	h := e.create(t, CreateOptions{Now: now.Add(7 * time.Minute), Source: "hook"})
	if h.Replaced != w.ID {
		t.Fatalf("hook snapshot 7 min after a held watcher snapshot replaced %q, want %q", h.Replaced, w.ID)
	}
	later := e.create(t, CreateOptions{Now: now.Add(30 * time.Minute), Source: "hook"})
	if later.Replaced != "" {
		t.Fatalf("snapshot after the hold replaced %q", later.Replaced)
	}
	ix, _ := e.m.Index()
	if len(ix.Snapshots) != 2 || ix.Snapshots[0].Source != "hook" {
		t.Fatalf("index after hold: %+v", ix.Snapshots)
	}
}

// A snapshot of a session with an earlier archive (here an earlier
// snapshot) builds on it and holds the same content as a
// full import, redaction on (the default).
func TestCreateBuildsOnPrevious(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	p := fixture(t, dir, 5)
	first := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0})
	if first.Resumed {
		t.Fatal("first snapshot resumed")
	}
	fixture(t, dir, 0)
	inc := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0.Add(time.Hour)})
	if !inc.Resumed {
		t.Fatal("second snapshot not built on the first")
	}
	full := e.create(t, CreateOptions{TranscriptPath: p, SessionID: fixtureSession, Force: true, Now: t0.Add(2 * time.Hour), NoPrevious: true})
	if full.Resumed {
		t.Fatal("NoPrevious snapshot resumed")
	}
	if inc.Snapshot.PreCompaction != full.Snapshot.PreCompaction {
		t.Fatalf("counts: incremental %+v, full %+v", inc.Snapshot.PreCompaction, full.Snapshot.PreCompaction)
	}
	ia, fa := mustOpen(t, e, inc.Snapshot.ID), mustOpen(t, e, full.Snapshot.ID)
	im, fm := ia.Meta(), fa.Meta()
	im.CreatedAt, fm.CreatedAt, im.UpdatedAt, fm.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(im, fm) {
		t.Fatalf("metadata differs:\n%+v\n%+v", im, fm)
	}
	for _, c := range []struct {
		name string
		f    func(a *archive.Archive) (any, error)
	}{
		{"files", func(a *archive.Archive) (any, error) { return a.Files() }},
		{"tasks", func(a *archive.Archive) (any, error) { return a.Tasks() }},
		{"compactions", func(a *archive.Archive) (any, error) { return a.Compactions() }},
		{"recall", func(a *archive.Archive) (any, error) { r, _, err := a.Recall(); return r, err }},
		{"messages", func(a *archive.Archive) (any, error) { return a.Messages() }},
		{"tools", func(a *archive.Archive) (any, error) { return a.Tools() }},
		{"raw", func(a *archive.Archive) (any, error) { return a.RawFiles() }},
	} {
		g, err := c.f(ia)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w, err := c.f(fa)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s differs:\n got %+v\nwant %+v", c.name, g, w)
		}
	}
	if !ia.Redaction().Enabled {
		t.Fatal("snapshot not redacted")
	}
	// A snapshot of another session does not build on this one.
	other := e.create(t, CreateOptions{TranscriptPath: p, SessionID: "another-session", Force: true, Now: t0.Add(3 * time.Hour)})
	if other.Resumed {
		t.Fatal("built on another session's archive")
	}
}

// TestCreateRefusedWhenPinnedFillTheLimit: a snapshot that would take
// compaction-snapshots/ beyond max_storage_mb even after every unpinned
// snapshot is pruned is refused with a *store.StorageLimitError offering
// the snapshot options; nothing is added.
func TestCreateRefusedWhenPinnedFillTheLimit(t *testing.T) {
	e := newEnv(t, "context:\n  compaction_snapshots:\n    max_storage_mb: 1\n")
	first := e.create(t, CreateOptions{Now: t0, Force: true}).Snapshot
	if err := e.m.Pin(first.ID, true); err != nil {
		t.Fatal(err)
	}
	// The pinned snapshot now counts as the whole limit.
	ix, _ := e.m.Index()
	ix.Snapshots[0].CompressedBytes = 1 << 20
	if err := os.WriteFile(e.st.IndexPath(), ix.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.Create(CreateOptions{TranscriptPath: fixture(t, t.TempDir(), 0), Now: t0.Add(time.Hour), Force: true, Level: ctxfmt.LevelFastest})
	var le *store.StorageLimitError
	if !errors.As(err, &le) || le.Area != "compaction-snapshots" || le.LimitBytes != 1<<20 || !slices.Equal(le.Options, store.SnapshotLimitOptions) {
		t.Fatalf("Create over the limit: %v", err)
	}
	if ix, _ := e.m.Index(); len(ix.Snapshots) != 1 {
		t.Fatalf("%d snapshots after a refused one, want 1", len(ix.Snapshots))
	}
}
