package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/snapshot"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// TestCompactDigestBeforeSnapshot: when SessionStart(compact) comes
// before the worker wrote the snapshot, the digest is built from the
// transcript's lines before the compaction, with what the summary
// dropped; the snapshot the worker writes later is not injected again.
func TestCompactDigestBeforeSnapshot(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	tp := e.transcript(demoSession, boundaryLine(t))
	base := map[string]any{"session_id": demoSession, "transcript_path": tp}
	with := func(k, v string) map[string]any {
		m := map[string]any{k: v}
		for a, b := range base {
			m[a] = b
		}
		return m
	}
	if r := e.fire("PreCompact", with("trigger", "auto")); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	e.transcript(demoSession, 0) // the compaction appends its boundary and summary
	e.now = e.now.Add(30 * time.Second)
	r := e.fire("SessionStart", with("source", "compact"))
	if r.out == nil || r.out.HookSpecificOutput == nil {
		t.Fatalf("SessionStart(compact) injected nothing: stdout %q stderr %q", r.stdout, r.stderr)
	}
	text := r.out.HookSpecificOutput.AdditionalContext
	if !strings.HasPrefix(text, "[Ben10] Context from before the compaction (from the session's transcript;") || !strings.Contains(r.out.SystemMessage, "transcript") {
		t.Fatalf("output: %+v", r.out)
	}
	for _, want := range []string{"testdata/carts/threshold.json", "internal/cart/total_test.go"} {
		if !strings.Contains(text, want) {
			t.Errorf("digest from the transcript lacks %q:\n%s", want, text)
		}
	}
	if len(e.snaps.snaps) != 0 {
		t.Fatal("a snapshot was written in a hook")
	}
	// The worker writes the snapshot now; it is not offered again.
	e.work()
	if len(e.snaps.snaps) != 1 {
		t.Fatalf("snapshots after the worker: %+v", e.snaps.snaps)
	}
	for _, rc := range e.state().Recoveries {
		if rc.State == RecoveryActive {
			t.Fatalf("recovery offered after its digest was injected: %+v", rc)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(e.store().Root(), hookstart.PreparedDir, "*")); len(left) != 0 {
		t.Fatalf("prepared recall kept for a snapshot that is not offered: %v", left)
	}
	if r := e.fire("SessionStart", with("source", "compact")); r.stdout != "" {
		t.Fatalf("re-fired SessionStart(compact) injected again: %q", r.stdout)
	}
}

// TestWorkerPreparesRecall: after the PreCompact snapshot the worker
// writes its recall for the light hook, which reads back the archive's
// own recall; SessionStart(compact) from the prepared recall and from
// the archive inject the same text, and the injection removes it.
func TestWorkerPreparesRecall(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	tp := e.transcript(demoSession, boundaryLine(t))
	if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"}); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	e.work()
	if len(e.snaps.snaps) != 1 {
		t.Fatalf("snapshots after the worker: %+v", e.snaps.snaps)
	}
	id := e.snaps.snaps[0].ID
	st := e.store()
	got, err := hookstart.ReadPrepared(st, hookstart.AuthKey(st), demoSession, id)
	if err != nil {
		t.Fatal(err)
	}
	a, closer, err := e.snaps.OpenArchive(id)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := a.Recall()
	closer.Close()
	if err != nil || !reflect.DeepEqual(got, recall.Recall(want)) {
		t.Fatalf("prepared recall differs from the archive's (%v)", err)
	}
	e.transcript(demoSession, 0) // the compaction appends its boundary and summary
	in := &Input{SessionID: demoSession, TranscriptPath: tp, Cwd: e.project, HookEventName: "SessionStart", Source: "compact"}
	render := func(src func(*hooknote.Call) hookstart.Sources) string {
		t.Helper()
		saved := e.state()
		c, err := e.handler().env().Open(context.Background(), SessionStart, in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := hookstart.Compact(c, src(c))
		if err != nil || out == nil {
			t.Fatalf("SessionStart(compact): %+v, %v", out, err)
		}
		// Undo the injection for the other source.
		if err := hooknote.UpdateState(st.Root(), st.ProjectDir(), e.now, func(s *State) error { *s = *saved; return nil }); err != nil {
			t.Fatal(err)
		}
		return out.SystemMessage + "\n" + out.HookSpecificOutput.AdditionalContext
	}
	light := render(hookstart.Prepared)
	if _, err := hookstart.ReadPrepared(st, hookstart.AuthKey(st), demoSession, id); !errors.Is(err, hookstart.ErrNotPrepared) {
		t.Fatalf("prepared recall kept after its injection: %v", err)
	}
	heavy := render(func(c *hooknote.Call) hookstart.Sources {
		cc := &call{Call: c, h: e.handler()}
		return hookstart.Sources{Snapshot: func(id string) (recall.Recall, error) { return cc.snapshotRecall(e.snaps, id) }}
	})
	if light != heavy {
		t.Fatalf("from the prepared recall:\n%s\nfrom the archive:\n%s", light, heavy)
	}
}

// TestRewrittenTranscriptSavedInHook: a transcript shorter than an
// earlier queued job saw it was rewritten, not appended to: the hook
// does its save itself instead of trusting the file to keep its bytes.
func TestRewrittenTranscriptSavedInHook(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	tp := e.transcript(demoSession, 0)
	if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"}); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	e.transcript(demoSession, boundaryLine(t)) // shorter
	if r := e.fire("SessionEnd", map[string]any{"session_id": demoSession, "transcript_path": tp, "reason": "logout"}); r.stderr != "" {
		t.Fatalf("SessionEnd: %s", r.stderr)
	}
	if m, err := e.store().ReadMeta(); err != nil || m.SessionID != demoSession {
		t.Fatalf("the final save of a rewritten transcript was left to the worker: %+v, %v", m, err)
	}
	jobs, err := e.store().Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Event != "PreCompact" {
		t.Fatalf("jobs: %+v, %v", jobs, err)
	}
}

// TestFailedJobKeptAndRetried: a job that fails stays queued with its
// error and a later retry time; the next worker after that time does it.
// One that fails store.MaxJobAttempts times is kept as failed and no
// longer run.
func TestFailedJobKeptAndRetried(t *testing.T) {
	e := newEnv(t)
	e.snaps.createErr = errors.New("disk full")
	tp := e.transcript(demoSession, boundaryLine(t))
	r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"})
	if !strings.Contains(r.stderr, "disk full") {
		t.Fatalf("the failure is not reported: %q", r.stderr)
	}
	jobs, err := e.store().Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Attempts != 1 || !strings.Contains(jobs[0].LastError, "disk full") || !jobs[0].NextTry.After(e.now) || jobs[0].Failed {
		t.Fatalf("jobs after a failure: %+v, %v", jobs, err)
	}
	// Not due yet: the worker leaves it.
	e.work()
	if j, _ := e.store().Jobs(); len(j) != 1 || j[0].Attempts != 1 {
		t.Fatalf("a job run before its retry time: %+v", j)
	}
	// Due, and failing until it is marked failed.
	for i := 2; i <= store.MaxJobAttempts; i++ {
		e.now = e.now.Add(2 * time.Hour)
		_, _ = e.handler().Work(t.Context())
	}
	jobs, _ = e.store().Jobs()
	if len(jobs) != 1 || !jobs[0].Failed || jobs[0].Attempts != store.MaxJobAttempts {
		t.Fatalf("jobs after %d failures: %+v", store.MaxJobAttempts, jobs)
	}
	// Kept, never retried automatically.
	e.snaps.createErr = nil
	e.now = e.now.Add(2 * time.Hour)
	e.work()
	if len(e.snaps.snaps) != 0 {
		t.Fatal("a failed job was run again")
	}
	if j, _ := e.store().Jobs(); len(j) != 1 {
		t.Fatalf("the failed job was dropped: %+v", j)
	}
}

// TestPlantedJobRefused: a job that names a file outside Claude Code's
// projects directory is never read, even one that authenticates (a
// planted job that does not is refused before: jobauth_test.go); it is
// kept as failed with the reason.
func TestPlantedJobRefused(t *testing.T) {
	e := newEnv(t)
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	secret := e.home + "/secret.jsonl"
	if err := os.WriteFile(secret, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.QueueJob(store.Job{Event: "PreCompact", Session: demoSession, Transcript: secret, Size: 16, Time: e.now}); err != nil {
		t.Fatal(err)
	}
	if err := hooknote.RegisterProject(e.home, st.ProjectDir()); err != nil {
		t.Fatal(err)
	}
	for range store.MaxJobAttempts {
		_, _ = e.handler().Work(t.Context())
		e.now = e.now.Add(2 * time.Hour)
	}
	if len(e.snaps.requests) != 0 {
		t.Fatalf("the planted job was run: %+v", e.snaps.requests)
	}
	jobs, _ := st.Jobs()
	if len(jobs) != 1 || !jobs[0].Failed || !strings.Contains(jobs[0].LastError, "outside Claude Code's projects directory") {
		t.Fatalf("planted job: %+v", jobs)
	}
}

// hookDuringJob is a Snapshotter that runs fn (once) while the worker does
// its first job, with the worker lock held.
type hookDuringJob struct {
	Snapshotter
	fn func()
}

func (s *hookDuringJob) Create(r SnapshotRequest) (SnapshotInfo, error) {
	if fn := s.fn; fn != nil {
		s.fn = nil
		fn()
	}
	return s.Snapshotter.Create(r)
}

// TestHookQueuesWhileWorkerRuns: the no-lost-wake-up protocol. A hook
// that queues a job while the worker runs (it holds the worker lock)
// starts no second worker; the running one looks at the queues again
// before it returns and does that job too.
func TestHookQueuesWhileWorkerRuns(t *testing.T) {
	e := newEnv(t)
	delete(e.vars, "BEN10_HOOK_WORK") // the default: a background worker
	const second = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	tp := e.transcript(demoSession, boundaryLine(t))
	tp2 := e.transcript(second, boundaryLine(t))
	if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"}); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	if len(e.spawned) != 1 {
		t.Fatalf("a hook with no worker running started %d workers", len(e.spawned))
	}
	h := e.handler()
	snaps := &hookDuringJob{Snapshotter: e.snaps, fn: func() {
		if !hooknote.WorkerRunning(e.home) {
			t.Error("the worker does its job without holding the worker lock")
		}
		if r := e.fire("PreCompact", map[string]any{"session_id": second, "transcript_path": tp2, "trigger": "manual"}); r.stderr != "" {
			t.Errorf("PreCompact while the worker runs: %s", r.stderr)
		}
	}}
	h.Snapshots = func(*store.Store, *store.Config) Snapshotter { return snaps }
	if _, err := h.Work(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(e.spawned) != 1 {
		t.Fatalf("a hook started a worker while one ran: %v", e.spawned)
	}
	if len(e.snaps.snaps) != 2 || e.snaps.snaps[1].SessionID != second {
		t.Fatalf("snapshots written by the one worker: %+v", e.snaps.snaps)
	}
	if jobs, err := e.store().Jobs(); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs left after the worker: %+v, %v", jobs, err)
	}
	if hooknote.WorkerRunning(e.home) || h.due() {
		t.Fatal("the worker lock is held or a job waits after the worker returned")
	}
}

// TestRegistrationKept: a project stays registered after its queue
// drained, so the next job's hook writes nothing but the job; a
// registration older than registryTTL with nothing queued is dropped, one
// with a job waiting is kept.
func TestRegistrationKept(t *testing.T) {
	e := newEnv(t)
	e.vars["BEN10_HOOK_WORK"] = WorkDefer
	tp := e.transcript(demoSession, boundaryLine(t))
	if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"}); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	regs := hooknote.QueuedProjects(e.home)
	if len(regs) != 1 {
		t.Fatalf("registrations after a hook queued a job: %v", regs)
	}
	var reg string
	for reg = range regs {
	}
	fi, err := os.Stat(reg)
	if err != nil {
		t.Fatal(err)
	}
	e.work()
	if len(e.snaps.snaps) != 1 || e.handler().due() {
		t.Fatalf("the job was not done: %+v", e.snaps.snaps)
	}
	if fi2, err := os.Stat(reg); err != nil || !os.SameFile(fi, fi2) {
		t.Fatalf("the registration was removed or rewritten after the queue drained: %v", err)
	}
	// A later job's hook finds it and writes nothing.
	e.now = e.now.Add(time.Minute)
	if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "manual"}); r.stderr != "" {
		t.Fatalf("PreCompact: %s", r.stderr)
	}
	if fi2, err := os.Stat(reg); err != nil || !os.SameFile(fi, fi2) {
		t.Fatalf("the hook rewrote the registration: %v", err)
	}
	// Old, with a job waiting for its retry: kept.
	old := time.Now().Add(-registryTTL - time.Hour)
	if err := os.Chtimes(reg, old, old); err != nil {
		t.Fatal(err)
	}
	e.snaps.createErr = errors.New("disk full")
	_, _ = e.handler().Work(t.Context())
	if _, err := os.Stat(reg); err != nil {
		t.Fatalf("an old registration with a job waiting was dropped: %v", err)
	}
	// Old, with nothing waiting once the retry is done: dropped.
	e.snaps.createErr = nil
	e.now = e.now.Add(2 * time.Hour)
	e.work()
	if len(e.snaps.snaps) != 2 {
		t.Fatalf("the retried job was not done: %+v", e.snaps.snaps)
	}
	if _, err := os.Stat(reg); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an old registration with nothing queued was kept: %v", err)
	}
}

// TestWorkerPreparesStartup: every final save's job leaves a startup
// record of each saved context file — the new current.ctx and the one
// rotated into history — and sweeps the records of files gone; the light
// hook's startup from those records gives exactly what `ben10 hook`'s
// gives from the archives, and honours the consumed key the second time.
func TestWorkerPreparesStartup(t *testing.T) {
	e := newEnv(t)
	const other = "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"
	for _, sid := range []string{other, demoSession} {
		tp := e.transcript(sid, 0)
		e.fire("SessionStart", map[string]any{"session_id": sid, "transcript_path": tp, "source": "startup"})
		if sid == demoSession {
			// A record of a file that is gone (removed by retention).
			gone := filepath.Join(e.store().Root(), hookstart.PreparedDir, "history-session-20200101-000000.ctx.start")
			if err := os.WriteFile(gone, []byte("stale"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if r := e.fire("SessionEnd", map[string]any{"session_id": sid, "transcript_path": tp, "reason": "logout"}); r.stderr != "" {
			t.Fatalf("SessionEnd of %s: %s", sid, r.stderr)
		}
		e.now = e.now.Add(time.Minute)
	}
	st := e.store()
	cands := hookstart.Candidates(st)
	if len(cands) != 2 || cands[0].Kind != store.KindCurrent || cands[1].Kind != store.KindHistory {
		t.Fatalf("saved context files: %+v", cands)
	}
	key := hookstart.AuthKey(st)
	for _, cand := range cands {
		got, err := hookstart.ReadStartupRecord(st, key, cand)
		if err != nil {
			t.Fatalf("%s: %v", cand.Path, err)
		}
		a, err := archive.OpenFile(cand.Path, archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := savedOf(a, snapshot.AuthKeyFor(st))
		a.Close()
		if !want.Authentic || want.Recall == nil || !reflect.DeepEqual(normSaved(got), normSaved(want)) {
			t.Fatalf("%s: the record says\n%+v\nthe archive\n%+v", cand.Path, got, want)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(st.Root(), hookstart.PreparedDir, "*.start"))
	if len(recs) != 2 {
		t.Fatalf("startup records after the sweep: %v", recs)
	}

	// A third session starts: the records and the archives decide alike.
	const third = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	in := &Input{SessionID: third, TranscriptPath: e.transcript(third, 0), Cwd: e.project, HookEventName: "SessionStart", Source: "startup"}
	before := e.state()
	render := func(src func(*call) hookstart.StartupSources) string {
		t.Helper()
		c, err := e.handler().env().Open(context.Background(), SessionStart, in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := hookstart.Startup(c, src(&call{Call: c, h: e.handler()}))
		if err != nil {
			t.Fatalf("SessionStart(startup): %v", err)
		}
		if out == nil {
			return ""
		}
		return out.SystemMessage + "\n" + out.HookSpecificOutput.AdditionalContext
	}
	reset := func() {
		if err := hooknote.UpdateState(st.Root(), st.ProjectDir(), e.now, func(s *State) error { *s = *before; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	light := render(func(c *call) hookstart.StartupSources { return hookstart.Recorded(c.Call) })
	if !strings.Contains(light, "previous session "+demoSession[:8]+" (its final save") {
		t.Fatalf("the records offered:\n%s", light)
	}
	if again := render(func(c *call) hookstart.StartupSources { return hookstart.Recorded(c.Call) }); again != "" {
		t.Fatalf("offered twice:\n%s", again)
	}
	reset()
	heavy := render(func(c *call) hookstart.StartupSources { return c.archiveSources(nil) })
	if light != heavy {
		t.Fatalf("from the records:\n%s\nfrom the archives:\n%s", light, heavy)
	}
}

// normSaved makes a Saved comparable after a JSON round trip (times lose
// their location and monotonic reading).
func normSaved(s hookstart.Saved) hookstart.Saved {
	s.Updated, s.LastActivity = s.Updated.UTC().Round(0), s.LastActivity.UTC().Round(0)
	if s.Recall != nil {
		data, _ := json.Marshal(s.Recall)
		var r recall.Recall
		_ = json.Unmarshal(data, &r)
		s.Recall = &r
	}
	return s
}

// TestEncryptedStoreNotPrepared: a store whose archives are encrypted
// keeps no recall in clear beside them — no startup record, no prepared
// recall of a snapshot, and the records written before encryption was
// turned on are removed — and `ben10 hook` still offers its saved context
// from the archive.
func TestEncryptedStoreNotPrepared(t *testing.T) {
	e := newEnv(t)
	const other = "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"
	tp := e.transcript(other, 0)
	e.fire("SessionStart", map[string]any{"session_id": other, "transcript_path": tp, "source": "startup"})
	e.fire("SessionEnd", map[string]any{"session_id": other, "transcript_path": tp, "reason": "logout"})
	records := func() []string {
		m, _ := filepath.Glob(filepath.Join(e.store().Root(), hookstart.PreparedDir, "*"))
		return m
	}
	if len(records()) != 1 {
		t.Fatalf("prepared files of a clear store: %v", records())
	}
	keyFile := filepath.Join(e.home, "archive.key")
	if err := os.WriteFile(keyFile, bytes.Repeat([]byte{7}, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	e.config("  encryption:\n    enabled: true\n    key_source: keyfile\n    key_file: " + keyFile + "\n")
	tp = e.transcript(demoSession, boundaryLine(t))
	e.fire("SessionStart", map[string]any{"session_id": demoSession, "transcript_path": tp, "source": "startup"})
	e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"})
	e.transcript(demoSession, 0)
	e.fire("SessionEnd", map[string]any{"session_id": demoSession, "transcript_path": tp, "reason": "logout"})
	if len(e.snaps.snaps) != 1 {
		t.Fatalf("snapshots: %+v", e.snaps.snaps)
	}
	if got := records(); len(got) != 0 {
		t.Fatalf("prepared files of an encrypted store: %v", got)
	}
	if a, err := archive.OpenFile(e.store().CurrentPath(), archive.OpenOptions{}); err == nil {
		a.Close()
		t.Fatal("current.ctx opens without the key: not encrypted")
	}
	const third = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
	r := e.fire("SessionStart", map[string]any{"session_id": third, "transcript_path": e.transcript(third, 0), "source": "startup"})
	if r.out == nil || !strings.Contains(r.out.SystemMessage, "previous session "+demoSession[:8]) {
		t.Fatalf("SessionStart(startup) of an encrypted store: %+v", r)
	}
	if got := records(); len(got) != 0 {
		t.Fatalf("ben10 hook recorded an encrypted store's archives: %v", got)
	}
}
