package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hookstart"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// fakeSnapshots is an in-memory snapshot layer writing real archives, so
// the handlers are tested without package snapshot.
type fakeSnapshots struct {
	dir       string
	snaps     []SnapshotInfo
	createErr error
	requests  []SnapshotRequest
	// home's key tags the snapshots (as package snapshot's do), unless
	// untagged is set (a snapshot this user's Ben10 did not write).
	home     string
	untagged bool
}

func (f *fakeSnapshots) Create(r SnapshotRequest) (SnapshotInfo, error) {
	f.requests = append(f.requests, r)
	if f.createErr != nil {
		return SnapshotInfo{}, f.createErr
	}
	s, err := claude.Import(context.Background(), r.TranscriptPath, archive.ImportOptions{Limit: r.Limit})
	if err != nil {
		return SnapshotInfo{}, err
	}
	id := fmt.Sprintf("pre-compact-%s-%d", r.SessionID[:8], len(f.snaps))
	p := filepath.Join(f.dir, id+".ctx")
	var b bytes.Buffer
	opts := archive.EncodeOptions{Level: r.Level}
	if !f.untagged {
		if opts.Auth, err = snapshot.UserAuthKey(f.home); err != nil {
			return SnapshotInfo{}, err
		}
	}
	if err := archive.Encode(context.Background(), &b, s, opts); err != nil {
		return SnapshotInfo{}, err
	}
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		return SnapshotInfo{}, err
	}
	in := SnapshotInfo{ID: id, SessionID: r.SessionID, CreatedAt: r.Now, Path: p, Level: r.Level.String()}
	f.snaps = append(f.snaps, in)
	return in, nil
}

func (f *fakeSnapshots) LatestForSession(sid string) (SnapshotInfo, bool, error) {
	for i := len(f.snaps) - 1; i >= 0; i-- {
		if f.snaps[i].SessionID == sid {
			return f.snaps[i], true, nil
		}
	}
	return SnapshotInfo{}, false, nil
}

func (f *fakeSnapshots) OpenArchive(id string) (*archive.Archive, io.Closer, error) {
	for _, s := range f.snaps {
		if s.ID == id {
			a, err := archive.OpenFile(s.Path, archive.OpenOptions{})
			return a, a, err
		}
	}
	return nil, nil, errors.New("no such snapshot")
}

// env is one test's world: a home, a project, a clock.
type env struct {
	t       *testing.T
	home    string
	project string
	now     time.Time
	snaps   *fakeSnapshots
	spawned [][]string
	vars    map[string]string
	procs   *fakeProcesses
}

// fakeProcesses is a process table: the hook runs under self (unknown
// when zero); running lists the processes that still run (nil: nothing
// is known about any).
type fakeProcesses struct {
	self    ProcessID
	running map[ProcessID]bool
}

func (f *fakeProcesses) Session() (ProcessID, bool) { return f.self, f.self.PID != 0 }

func (f *fakeProcesses) Running(p ProcessID) (running, known bool) {
	if f.running == nil {
		return false, false
	}
	return f.running[p], true
}

const demoSession = "5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b"

func newEnv(t *testing.T) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t, home: filepath.Join(base, "home"), project: filepath.Join(base, "cart-service"),
		now: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC), vars: map[string]string{"BEN10_HOOK_WORK": WorkSync}, procs: &fakeProcesses{}}
	for _, d := range []string{e.home, e.project, filepath.Join(base, "snaps")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.project, _ = filepath.EvalSymlinks(e.project)
	e.snaps = &fakeSnapshots{dir: filepath.Join(base, "snaps"), home: e.home}
	return e
}

func (e *env) config(yaml string) {
	e.t.Helper()
	p := store.ProjectConfigPath(e.project)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("context:\n"+yaml), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) handler() *Handler {
	return &Handler{
		Home:      e.home,
		Getenv:    func(k string) string { return e.vars[k] },
		Now:       func() time.Time { return e.now },
		Snapshots: func(*store.Store, *store.Config) Snapshotter { return e.snaps },
		Spawn:     func(args ...string) error { e.spawned = append(e.spawned, args); return nil },
		Processes: e.procs,
	}
}

// transcript writes the demo transcript (cut before line `cut`, 0 = all)
// for the project and returns its path.
func (e *env) transcript(session string, cut int) string {
	e.t.Helper()
	data, err := os.ReadFile("../testdata/demo/claude-session.jsonl")
	if err != nil {
		e.t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/dev/cart-service"), []byte(e.project))
	data = bytes.ReplaceAll(data, []byte(demoSession), []byte(session))
	if cut > 0 {
		lines := bytes.SplitAfter(data, []byte("\n"))
		data = bytes.Join(lines[:cut], nil)
	}
	p := filepath.Join(e.home, ".claude", "projects", archive.ProjectDirName(e.project), session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// boundaryLine is the 0-based index of the demo's compact_boundary line.
func boundaryLine(t *testing.T) int {
	data, err := os.ReadFile("../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(`"subtype":"compact_boundary"`)) {
			return i
		}
	}
	t.Fatal("demo transcript has no compact_boundary")
	return 0
}

type run struct {
	out    *Output
	stdout string
	stderr string
}

func (e *env) fire(event string, in map[string]any) run {
	e.t.Helper()
	if _, ok := in["cwd"]; !ok {
		in["cwd"] = e.project
	}
	in["hook_event_name"] = event
	data, _ := json.Marshal(in)
	var so, se bytes.Buffer
	code := e.handler().Run(context.Background(), "", bytes.NewReader(data), &so, &se)
	if code != 0 {
		e.t.Fatalf("%s exited %d", event, code)
	}
	r := run{stdout: so.String(), stderr: se.String()}
	if so.Len() > 0 {
		r.out = &Output{}
		if err := json.Unmarshal(so.Bytes(), r.out); err != nil {
			e.t.Fatalf("%s printed non-JSON %q", event, so.String())
		}
	}
	return r
}

func (e *env) state() *State {
	e.t.Helper()
	st, err := store.Open(e.project, store.Options{Home: e.home, ReadOnly: true})
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := hooknote.ReadState(st.Root())
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// initStore creates the project's store, as an earlier session's save
// would have: SessionStart does not create one.
func (e *env) initStore() {
	e.t.Helper()
	if _, err := store.Open(e.project, store.Options{Home: e.home}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) store() *store.Store {
	st, err := store.Open(e.project, store.Options{Home: e.home, ReadOnly: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

// work runs the user's worker in-process, as `ben10 internal work` does.
func (e *env) work() {
	e.t.Helper()
	if _, err := e.handler().Work(context.Background()); err != nil {
		e.t.Fatalf("worker: %v", err)
	}
}

func TestFullFlow(t *testing.T) {
	e := newEnv(t)
	delete(e.vars, "BEN10_HOOK_WORK") // the default: a background worker
	e.config("  checkpoint_interval: 3\n")
	b := boundaryLine(t)
	tp := e.transcript(demoSession, b)
	base := func() map[string]any {
		return map[string]any{"session_id": demoSession, "transcript_path": tp}
	}

	// A first session in an empty project: nothing to inject.
	in := base()
	in["source"] = "startup"
	if r := e.fire("SessionStart", in); r.stdout != "" || r.stderr != "" {
		t.Fatalf("startup in empty project: stdout %q stderr %q", r.stdout, r.stderr)
	}
	// Two prompts: not due; the third is.
	for i := 1; i <= 3; i++ {
		e.now = e.now.Add(time.Minute)
		in := base()
		in["prompt"] = fmt.Sprintf("prompt %d", i)
		if r := e.fire("UserPromptSubmit", in); r.stdout != "" || r.stderr != "" {
			t.Fatalf("prompt %d: stdout %q stderr %q", i, r.stdout, r.stderr)
		}
		e.work() // the checkpoint, when one was queued
		cps, _ := e.store().Checkpoints()
		if want := i / 3; len(cps) != want {
			t.Fatalf("after prompt %d: %d checkpoints, want %d", i, len(cps), want)
		}
	}
	ss := e.state().Sessions[demoSession]
	if ss.Prompts != 3 || ss.SinceCheckpoint != 0 || ss.Checkpoints != 1 || !ss.LastCheckpoint.Equal(e.now) {
		t.Fatalf("session state after checkpoint: %+v", ss)
	}

	// PreCompact takes note: a job with the transcript's size, the
	// worker started, no snapshot written in the hook.
	e.spawned = nil
	in = base()
	in["trigger"] = "auto"
	if r := e.fire("PreCompact", in); r.stdout != "" || r.stderr != "" {
		t.Fatalf("PreCompact: stdout %q stderr %q", r.stdout, r.stderr)
	}
	fi, err := os.Stat(tp)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := e.store().Jobs()
	if err != nil || len(jobs) != 1 || jobs[0].Event != "PreCompact" || jobs[0].Size != fi.Size() || jobs[0].Session != demoSession {
		t.Fatalf("queued jobs %+v, %v", jobs, err)
	}
	if len(e.snaps.snaps) != 0 || len(e.spawned) != 1 || strings.Join(e.spawned[0], " ") != "internal work" {
		t.Fatalf("snapshots %+v, spawned %q", e.snaps.snaps, e.spawned)
	}
	// The worker writes the snapshot of those bytes at the configured
	// level, once; the queue is empty after it.
	e.work()
	want := ctxfmt.LevelFromZstd(store.DefaultConfig().CompactionSnapshots.CompressionLevel)
	if len(e.snaps.snaps) != 1 || e.snaps.snaps[0].Level != want.String() || e.snaps.requests[0].Limit != fi.Size() {
		t.Fatalf("snapshots: %+v, requests %+v", e.snaps.snaps, e.snaps.requests)
	}
	if jobs, err := e.store().Jobs(); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs after the worker: %+v, %v", jobs, err)
	}
	id := e.snaps.snaps[0].ID
	rs := e.state().Recoveries
	if len(rs) != 1 || rs[0].State != RecoveryActive || rs[0].Snapshot != id {
		t.Fatalf("recoveries after PreCompact: %+v", rs)
	}

	// Compaction happens: the transcript gains the boundary and summary.
	e.transcript(demoSession, 0)
	e.now = e.now.Add(30 * time.Second)
	in = base()
	in["source"] = "compact"
	r := e.fire("SessionStart", in)
	if r.out == nil || r.out.HookSpecificOutput == nil {
		t.Fatalf("SessionStart(compact) injected nothing: stdout %q stderr %q", r.stdout, r.stderr)
	}
	ctx := r.out.HookSpecificOutput.AdditionalContext
	if n := archive.DigestLen(ctx); n > archive.RecoveryDigestBudget || n == 0 {
		t.Fatalf("compact digest is %d characters", n)
	}
	if !strings.HasSuffix(ctx, hookstart.RecallToolsLine) {
		t.Errorf("compact digest does not end by naming the MCP tools:\n%s", ctx[max(0, len(ctx)-300):])
	}
	if r.out.HookSpecificOutput.HookEventName != SessionStart || !strings.Contains(r.out.SystemMessage, id) || strings.Contains(r.out.SystemMessage, "\n") {
		t.Fatalf("output: %+v", r.out)
	}
	// What the summary dropped is there; what it already says is left out.
	for _, want := range []string{"testdata/carts/threshold.json", "internal/cart/total_test.go", "go vet ./... && git commit", "go run ./cmd/pricecheck --cart testdata/carts/threshold.json"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("compact digest lacks %q:\n%s", want, ctx)
		}
	}
	if strings.Contains(ctx, "- docs/pricing.md") {
		t.Errorf("compact digest repeats docs/pricing.md, which the summary names:\n%s", ctx)
	}
	// Re-fired: nothing.
	if r := e.fire("SessionStart", in); r.stdout != "" {
		t.Fatalf("re-fired SessionStart(compact) injected again: %q", r.stdout)
	}
	rs = e.state().Recoveries
	if len(rs) != 1 || rs[0].State != RecoveryConsumed || rs[0].ConsumedBy != demoSession || rs[0].ConsumedAt.IsZero() {
		t.Fatalf("recoveries after SessionStart(compact): %+v", rs)
	}

	// SessionEnd: the final save.
	e.now = e.now.Add(5 * time.Minute)
	in = base()
	in["reason"] = "prompt_input_exit"
	if r := e.fire("SessionEnd", in); r.stdout != "" || r.stderr != "" {
		t.Fatalf("SessionEnd: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if _, err := e.store().ReadMeta(); err == nil {
		t.Fatal("SessionEnd saved inside the hook; it should only take note")
	}
	e.work()
	m, err := e.store().ReadMeta()
	if err != nil || m.SessionID != demoSession || m.Messages == 0 {
		t.Fatalf("current.ctx meta: %+v %v", m, err)
	}
	if s := e.state().Sessions[demoSession]; s.Ended.IsZero() || s.EndReason != "prompt_input_exit" {
		t.Fatalf("session not ended: %+v", s)
	}

	// A new session in the same project gets the handoff, once.
	e.now = e.now.Add(time.Hour)
	next := "9a8b7c6d-0000-4000-8000-000000000001"
	in = map[string]any{"session_id": next, "transcript_path": filepath.Join(filepath.Dir(tp), next+".jsonl"), "source": "startup"}
	r = e.fire("SessionStart", in)
	if r.out == nil || r.out.HookSpecificOutput == nil {
		t.Fatalf("startup after SessionEnd injected nothing: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if n := archive.DigestLen(r.out.HookSpecificOutput.AdditionalContext); n > 2000 {
		t.Fatalf("startup digest is %d characters", n)
	}
	if !strings.Contains(r.out.HookSpecificOutput.AdditionalContext, demoSession[:8]) || !strings.Contains(r.out.SystemMessage, "previous session") {
		t.Fatalf("startup output: %+v", r.out)
	}
	if r := e.fire("SessionStart", in); r.stdout != "" {
		t.Fatalf("re-fired startup injected again: %q", r.stdout)
	}
	// A third session gets nothing: the handoff was consumed.
	in["session_id"] = "9a8b7c6d-0000-4000-8000-000000000002"
	if r := e.fire("SessionStart", in); r.stdout != "" {
		t.Fatalf("consumed handoff injected into a third session: %q", r.stdout)
	}
	// resume and fork: nothing.
	for _, src := range []string{"resume", "fork"} {
		in := base()
		in["source"] = src
		if r := e.fire("SessionStart", in); r.stdout != "" || r.stderr != "" {
			t.Fatalf("%s: stdout %q stderr %q", src, r.stdout, r.stderr)
		}
	}
	// The audit log has the two injections.
	audit, _ := os.ReadFile(store.AuditPath(e.home))
	if n := bytes.Count(audit, []byte(store.ActionRestore)); n != 2 {
		t.Fatalf("audit log has %d restores:\n%s", n, audit)
	}
}

func TestStartupSkipsLiveSessionsOldContextAndOtherProjects(t *testing.T) {
	e := newEnv(t)
	tp := e.transcript(demoSession, 0)
	// Session A checkpoints (a file modification) and keeps running.
	in := map[string]any{"session_id": demoSession, "transcript_path": tp, "tool_name": "Edit"}
	if r := e.fire("PostToolUse", in); r.stderr != "" {
		t.Fatal(r.stderr)
	}
	if cps, _ := e.store().Checkpoints(); len(cps) != 1 {
		t.Fatalf("PostToolUse(Edit) wrote %d checkpoints", len(cps))
	}
	// Debounced: a second edit a minute later writes none.
	e.now = e.now.Add(time.Minute)
	e.fire("PostToolUse", in)
	if cps, _ := e.store().Checkpoints(); len(cps) != 1 {
		t.Fatalf("debounce: %d checkpoints", len(cps))
	}
	// Read is not a significant event.
	in["tool_name"] = "Read"
	e.fire("PostToolUse", in)

	// B starts while A is live: nothing.
	e.now = e.now.Add(2 * time.Minute)
	b := map[string]any{"session_id": "bbbbbbbb-0000-4000-8000-000000000001", "transcript_path": filepath.Join(e.home, ".claude", "projects", "b.jsonl"), "source": "startup"}
	if r := e.fire("SessionStart", b); r.stdout != "" {
		t.Fatalf("live session's context injected: %q", r.stdout)
	}
	// Once A has been quiet for longer than the live window (it crashed),
	// its checkpoint is offered.
	e.now = e.now.Add(hooknote.LiveWindow + time.Minute)
	b["session_id"] = "bbbbbbbb-0000-4000-8000-000000000002"
	if r := e.fire("SessionStart", b); r.out == nil {
		t.Fatalf("crashed session's checkpoint not injected: stdout %q stderr %q", r.stdout, r.stderr)
	}
	// Another project never sees it.
	other := filepath.Join(filepath.Dir(e.project), "other")
	os.Mkdir(other, 0o700)
	b["session_id"], b["cwd"] = "cccccccc-0000-4000-8000-000000000001", other
	if r := e.fire("SessionStart", b); r.stdout != "" {
		t.Fatalf("other project got context: %q", r.stdout)
	}
	// Too old: nothing (a fresh session after 5 hours).
	e2 := newEnv(t)
	tp2 := e2.transcript(demoSession, 0)
	e2.fire("SessionEnd", map[string]any{"session_id": demoSession, "transcript_path": tp2, "reason": "logout"})
	e2.now = e2.now.Add(5 * time.Hour)
	if r := e2.fire("SessionStart", map[string]any{"session_id": "dddddddd-0000-4000-8000-000000000001", "source": "clear"}); r.stdout != "" {
		t.Fatalf("5-hour-old context injected: %q", r.stdout)
	}
}

func TestFailuresExitZeroAndLog(t *testing.T) {
	e := newEnv(t)
	logged := func() int {
		b, _ := os.ReadFile(hookfast.ErrorLogPath(e.home))
		return bytes.Count(b, []byte("\n"))
	}
	cases := []struct {
		name, event, stdin string
	}{
		{"empty stdin", "", ""},
		{"not json", "PreCompact", "{nope"},
		{"unknown event", "Bogus", `{"session_id":"s","cwd":"/"}`},
		{"no session", "PreCompact", `{"cwd":"/"}`},
		{"missing transcript", "PreCompact", `{"session_id":"s1","cwd":"` + e.project + `","transcript_path":"/nonexistent/s1.jsonl","trigger":"auto"}`},
		{"missing project", "SessionStart", `{"session_id":"s1","cwd":"/nonexistent/dir","source":"startup"}`},
	}
	e.snaps.createErr = errors.New("claude: transcript not found")
	for i, tc := range cases {
		var so, se bytes.Buffer
		code := e.handler().Run(context.Background(), tc.event, strings.NewReader(tc.stdin), &so, &se)
		if code != 0 || so.Len() != 0 {
			t.Errorf("%s: code %d stdout %q", tc.name, code, so.String())
		}
		if lines := strings.Count(se.String(), "\n"); lines != 1 || !strings.HasPrefix(se.String(), "ben10 ") {
			t.Errorf("%s: stderr %q is not one line", tc.name, se.String())
		}
		if n := logged(); n != i+1 {
			t.Errorf("%s: error log has %d lines, want %d", tc.name, n, i+1)
		}
	}
}

func TestPromptNotDueIsCheap(t *testing.T) {
	e := newEnv(t)
	// The transcript does not exist: a prompt that is not due never looks.
	in := map[string]any{"session_id": demoSession, "transcript_path": "/nonexistent/x.jsonl", "prompt": "hi"}
	for i := 0; i < 5; i++ {
		if r := e.fire("UserPromptSubmit", in); r.stdout != "" || r.stderr != "" {
			t.Fatalf("prompt %d: stdout %q stderr %q", i, r.stdout, r.stderr)
		}
	}
	if ss := e.state().Sessions[demoSession]; ss.Prompts != 5 {
		t.Fatalf("prompts counted: %+v", ss)
	}
	// 15 minutes later the sixth prompt is due (time-based); the missing
	// transcript is then a logged failure, and the counter restarts.
	e.now = e.now.Add(16 * time.Minute)
	r := e.fire("UserPromptSubmit", in)
	if r.stdout != "" || !strings.Contains(r.stderr, "transcript not found") {
		t.Fatalf("due prompt: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if ss := e.state().Sessions[demoSession]; ss.SinceCheckpoint != 0 || ss.LastCheckpointErr == "" {
		t.Fatalf("after failed checkpoint: %+v", ss)
	}
}

func TestCorruptStateIsSetAside(t *testing.T) {
	e := newEnv(t)
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Root(), StateName), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "prompt": "x"})
	if !strings.Contains(r.stderr, "damaged") {
		t.Fatalf("stderr %q", r.stderr)
	}
	if ss := e.state().Sessions[demoSession]; ss == nil || ss.Prompts != 1 {
		t.Fatalf("state not restarted: %+v", e.state())
	}
	aside, _ := filepath.Glob(filepath.Join(st.Root(), StateName+".corrupt-*"))
	if len(aside) != 1 {
		t.Fatalf("damaged state not kept: %v", aside)
	}
}

func TestErrorLogIsBounded(t *testing.T) {
	home := t.TempDir()
	big := strings.Repeat("e", 5000)
	for i := 0; i < 1500; i++ {
		if err := hookfast.AppendError(home, hookfast.ErrorEntry{Time: time.Now(), Event: "PreCompact", Error: big}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(hookfast.ErrorLogPath(home))
	if err != nil || fi.Size() > hookfast.MaxErrorLog+2*hookfast.MaxErrorText {
		t.Fatalf("error log %v bytes (%v)", fi.Size(), err)
	}
	if _, err := os.Stat(hookfast.ErrorLogPath(home) + ".1"); err != nil {
		t.Fatalf("no rotated log: %v", err)
	}
}
