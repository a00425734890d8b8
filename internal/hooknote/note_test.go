package hooknote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// noteWorld is a home with Claude Code's projects directory, a project and
// a session transcript in it, and an Env that records the workers it
// starts and the jobs it must do now.
type noteWorld struct {
	t                 *testing.T
	home, project, tp string
	env               *Env
	vars              map[string]string
	spawned           [][]string
	synced            []store.Job
	syncErr           error
	now               time.Time
}

const noteSession = "0b5c6d7e-1111-4222-8333-444455556666"

func newNoteWorld(t *testing.T, config string) *noteWorld {
	t.Helper()
	base := t.TempDir()
	w := &noteWorld{t: t, home: filepath.Join(base, "home"), project: filepath.Join(base, "proj"),
		vars: map[string]string{}, now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	w.tp = filepath.Join(w.home, ".claude", "projects", "-proj", noteSession+".jsonl")
	// The project has a store (an earlier session's): an event with
	// nothing to save creates none.
	for _, d := range []string{filepath.Dir(w.tp), filepath.Join(w.project, ".claude", "context")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte("context:\n"+config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.write(strings.Repeat(`{"type":"user","message":{"role":"user","content":"hello"}}`+"\n", 10))
	w.env = &Env{
		Home: w.home, Getenv: func(k string) string { return w.vars[k] }, Now: func() time.Time { return w.now },
		Spawn:     func(args ...string) error { w.spawned = append(w.spawned, args); return nil },
		Processes: noProcesses{},
		SyncWork: func(_ context.Context, _ *store.Store, j store.Job) error {
			w.synced = append(w.synced, j)
			return w.syncErr
		},
	}
	return w
}

// noProcesses knows no process: the tests do not depend on the process
// tree they run under.
type noProcesses struct{}

func (noProcesses) Session() (ProcessID, bool)              { return ProcessID{}, false }
func (noProcesses) Running(ProcessID) (running, known bool) { return false, false }

func (w *noteWorld) write(data string) {
	w.t.Helper()
	if err := os.WriteFile(w.tp, []byte(data), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// note runs event ev with extra input fields through Open and Note, as
// both `ben10 hook` and ben10-hook do.
func (w *noteWorld) note(ev Event, in Input) error {
	w.t.Helper()
	in.SessionID, in.TranscriptPath, in.Cwd = noteSession, w.tp, w.project
	if !w.env.InProcess(ev, &in) {
		w.t.Fatalf("%s (%+v) is not a light event", ev, in)
	}
	c, err := w.env.Open(context.Background(), ev, &in)
	if err != nil || c == nil {
		return err
	}
	return c.Note(ev)
}

func (w *noteWorld) store() *store.Store {
	w.t.Helper()
	st, err := store.Open(w.project, store.Options{Home: w.home, ReadOnly: true})
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *noteWorld) jobs() []store.Job {
	w.t.Helper()
	js, err := w.store().Jobs()
	if err != nil {
		w.t.Fatal(err)
	}
	return js
}

func (w *noteWorld) session() *SessionState {
	w.t.Helper()
	s, err := ReadState(w.store().Root())
	if err != nil {
		w.t.Fatal(err)
	}
	return s.Sessions[noteSession]
}

func (w *noteWorld) registered() bool {
	for _, p := range QueuedProjects(w.home) {
		if p == w.store().ProjectDir() {
			return true
		}
	}
	return false
}

// TestNoteEvents: each event that only takes note updates the session's
// state, and the ones that save queue exactly their job (session,
// transcript, its size and head hash at the event) and start the worker
// once, or only register the project in the defer mode.
func TestNoteEvents(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  string
		vars    map[string]string
		ev      Event
		in      Input
		job     string // the event of the queued job; "" none
		spawned int
		check   func(*SessionState) bool
	}{
		{"PreCompact", "", nil, PreCompact, Input{Trigger: "manual"}, JobPreCompact, 1,
			func(ss *SessionState) bool { return ss.Snapshots == 1 && ss.PreCompactSize > 0 }},
		{"PreCompact, snapshots off", "  compaction_snapshots:\n    enabled: false\n", nil, PreCompact, Input{}, "", 0,
			func(ss *SessionState) bool { return ss.Snapshots == 0 && !ss.LastEvent.IsZero() }},
		{"PreCompact, defer", "", map[string]string{"BEN10_HOOK_WORK": "defer"}, PreCompact, Input{}, JobPreCompact, 0,
			func(ss *SessionState) bool { return ss.PreCompactSize > 0 }},
		{"SessionEnd", "", nil, SessionEnd, Input{Reason: "logout"}, JobSessionEnd, 1,
			func(ss *SessionState) bool { return !ss.Ended.IsZero() && ss.EndReason == "logout" }},
		{"SessionEnd, auto_save off", "  auto_save: false\n", nil, SessionEnd, Input{Reason: "clear"}, "", 0,
			func(ss *SessionState) bool { return !ss.Ended.IsZero() }},
		{"Stop", "", nil, Stop, Input{}, "", 0,
			func(ss *SessionState) bool { return !ss.LastEvent.IsZero() && ss.Transcript != "" }},
		{"SessionStart(resume)", "", nil, SessionStart, Input{Source: "resume"}, "", 0,
			func(ss *SessionState) bool { return !ss.Started.IsZero() }},
		{"PostToolUse, a reading tool", "", nil, PostToolUse, Input{ToolName: "Read"}, "", 0,
			func(ss *SessionState) bool { return ss.Modifications == 0 }},
		{"PostToolUse, an edit: first checkpoint due", "", nil, PostToolUse, Input{ToolName: "Edit"}, JobCheckpoint, 1,
			func(ss *SessionState) bool {
				return ss.LastCheckpoint.Equal(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
			}},
		{"UserPromptSubmit, nothing due", "  checkpoint_interval: 5\n  checkpoint_minutes: 0\n", nil, UserPromptSubmit, Input{Prompt: "p"}, "", 0,
			nil},
		{"UserPromptSubmit, due", "  checkpoint_interval: 1\n  checkpoint_minutes: 0\n", nil, UserPromptSubmit, Input{Prompt: "p"}, JobCheckpoint, 1,
			func(ss *SessionState) bool { return ss.Prompts == 1 && ss.SinceCheckpoint == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newNoteWorld(t, tc.config)
			for k, v := range tc.vars {
				w.vars[k] = v
			}
			if err := w.note(tc.ev, tc.in); err != nil {
				t.Fatalf("%s: %v", tc.ev, err)
			}
			js := w.jobs()
			switch {
			case tc.job == "" && len(js) != 0:
				t.Fatalf("queued %+v, want no job", js)
			case tc.job != "" && (len(js) != 1 || js[0].Event != tc.job || js[0].Session != noteSession || js[0].Transcript != w.tp || js[0].Size == 0 || len(js[0].Head) != 64):
				t.Fatalf("queued %+v, want one %s job of the transcript", js, tc.job)
			}
			if len(w.spawned) != tc.spawned {
				t.Fatalf("started the worker %d times (%v), want %d", len(w.spawned), w.spawned, tc.spawned)
			}
			for _, a := range w.spawned {
				if strings.Join(a, " ") != "internal work" {
					t.Fatalf("started %q, want the worker (internal work)", a)
				}
			}
			if tc.job != "" && !w.registered() {
				t.Fatal("a queued job's project is not registered for the worker")
			}
			if len(w.synced) != 0 {
				t.Fatalf("a job was done in the hook: %+v", w.synced)
			}
			if tc.check != nil {
				if ss := w.session(); ss == nil || !tc.check(ss) {
					t.Fatalf("session state %+v", ss)
				}
			}
		})
	}
}

// TestNoteRewrittenTranscript: a transcript shorter than an earlier queued
// job saw cannot be trusted to keep its bytes until the worker reads them:
// its job is done before the hook returns (SyncWork), and without SyncWork
// the call fails with ErrNoSyncWork and leaves the job queued and the
// project registered for the next worker.
func TestNoteRewrittenTranscript(t *testing.T) {
	w := newNoteWorld(t, "")
	w.vars["BEN10_HOOK_WORK"] = "defer"
	if err := w.note(PreCompact, Input{}); err != nil {
		t.Fatal(err)
	}
	w.write(`{"type":"user","message":{"role":"user","content":"rewritten"}}` + "\n")
	if err := w.note(SessionEnd, Input{Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	if len(w.synced) != 1 || w.synced[0].Event != JobSessionEnd {
		t.Fatalf("jobs done in the hook: %+v, want the SessionEnd job", w.synced)
	}
	w.env.SyncWork = nil
	w.now = w.now.Add(time.Minute)
	err := w.note(PreCompact, Input{})
	if !errors.Is(err, ErrNoSyncWork) {
		t.Fatalf("without SyncWork: %v, want ErrNoSyncWork", err)
	}
	if n := len(w.jobs()); n != 3 || !w.registered() {
		t.Fatalf("%d jobs queued, registered %v: the job must stay for the next worker", n, w.registered())
	}
}

// TestNoteRefuses: what a hook must not act on is an error naming it, and
// no job: a transcript outside Claude Code's projects directory, an empty
// session id, an unknown work mode, a session that has no transcript.
func TestNoteRefuses(t *testing.T) {
	w := newNoteWorld(t, "")
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(outside, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &Input{SessionID: noteSession, TranscriptPath: outside, Cwd: w.project}
	if _, err := w.env.Open(context.Background(), PreCompact, in); !errors.Is(err, ErrTranscriptPath) {
		t.Fatalf("a transcript outside the projects directory: %v", err)
	}
	if _, err := w.env.Open(context.Background(), PreCompact, &Input{Cwd: w.project}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("no session id: %v", err)
	}
	w.vars["BEN10_HOOK_WORK"] = "later"
	in = &Input{SessionID: noteSession, TranscriptPath: w.tp, Cwd: w.project}
	c, err := w.env.Open(context.Background(), PreCompact, in)
	if err == nil {
		err = c.Note(PreCompact)
	}
	if err == nil || !strings.Contains(err.Error(), "BEN10_HOOK_WORK") {
		t.Fatalf("an unknown work mode: %v", err)
	}
	w.vars["BEN10_HOOK_WORK"] = ""
	if err := os.Remove(w.tp); err != nil {
		t.Fatal(err)
	}
	if err := w.note(PreCompact, Input{}); !errors.Is(err, ErrNoTranscript) {
		t.Fatalf("no transcript file: %v", err)
	}
	if js := w.jobs(); len(js) != 0 {
		t.Fatalf("jobs queued by refused calls: %+v", js)
	}
}

// TestInProcess: which events the shim handles itself and which it hands
// to `ben10 hook`.
func TestInProcess(t *testing.T) {
	for _, tc := range []struct {
		ev    Event
		in    Input
		mode  string
		light bool
	}{
		{PreCompact, Input{}, "", true},
		{SessionEnd, Input{}, "defer", true},
		{UserPromptSubmit, Input{}, "", true},
		{PostToolUse, Input{}, "", true},
		{Stop, Input{}, "", true},
		{SessionStart, Input{Source: "resume"}, "", true},
		{SessionStart, Input{Source: "compact"}, "", false},
		{SessionStart, Input{Source: "startup"}, "", false},
		{SessionStart, Input{}, "", false},
		{PostCompact, Input{}, "", true},
		{PostCompact, Input{CompactSummary: "s"}, "", true},
		{PreCompact, Input{}, "sync", false},
		{PreCompact, Input{}, "bogus", false},
		{Event("Notification"), Input{}, "", false},
	} {
		e := &Env{Getenv: func(k string) string {
			if k == "BEN10_HOOK_WORK" {
				return tc.mode
			}
			return ""
		}}
		if got := e.InProcess(tc.ev, &tc.in); got != tc.light {
			t.Errorf("%s %+v mode %q: InProcess %v, want %v", tc.ev, tc.in, tc.mode, got, tc.light)
		}
	}
}

// TestNoteQueuesThroughNoLink: a take-note hook opens the store without
// its write probe and sweep (store.Options.Quick), yet a repository that
// plants a link where the queue or the store belongs does not redirect
// the job: it goes to the store under the home directory, and nothing is
// written through the link. No probe file is left in the store.
func TestNoteQueuesThroughNoLink(t *testing.T) {
	for _, link := range []string{"pending", ""} {
		name := "store"
		if link != "" {
			name = link
		}
		t.Run(name, func(t *testing.T) {
			w := newNoteWorld(t, "")
			outside := filepath.Join(filepath.Dir(w.project), "outside")
			if err := os.Mkdir(outside, 0o700); err != nil {
				t.Fatal(err)
			}
			ctxDir := filepath.Join(w.project, ".claude", "context")
			if link == "" {
				if err := os.Remove(ctxDir); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, ctxDir); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Symlink(outside, filepath.Join(ctxDir, link)); err != nil {
				t.Fatal(err)
			}
			if err := w.note(PreCompact, Input{Trigger: "auto"}); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Fatalf("written through the link: %v", ents)
			}
			st := w.store()
			if !st.IsFallback() {
				t.Fatalf("the store %s is not the fallback", st.Root())
			}
			if js, err := st.Jobs(); err != nil || len(js) != 1 || js[0].Event != JobPreCompact {
				t.Fatalf("jobs in the fallback store: %+v, %v", js, err)
			}
			if len(w.spawned) != 1 {
				t.Fatalf("workers started: %v", w.spawned)
			}
		})
	}
	w := newNoteWorld(t, "")
	if err := w.note(SessionEnd, Input{Reason: "logout"}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(w.store().Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), store.TempPrefix) && e.Name() != store.TempPrefix+StateName {
			t.Fatalf("the hook left %s in the store", e.Name())
		}
	}
}

// TestNoteWorkerRunning: while a worker holds the user's worker lock, a
// hook that queues a job starts no other (the running worker looks at the
// queues again after it releases the lock); once it is free, it does.
func TestNoteWorkerRunning(t *testing.T) {
	w := newNoteWorld(t, "")
	if WorkerRunning(w.home) {
		t.Fatal("a worker runs before any was started")
	}
	lock := filepath.Join(WorkDir(w.home), WorkerLockName)
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		t.Fatal(err)
	}
	unlock, err := store.LockFile(lock, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !WorkerRunning(w.home) {
		t.Fatal("the held worker lock is not seen")
	}
	if err := w.note(PreCompact, Input{Trigger: "auto"}); err != nil {
		t.Fatal(err)
	}
	if len(w.spawned) != 0 || len(w.jobs()) != 1 || !w.registered() {
		t.Fatalf("with a worker running: started %v, queued %+v, registered %v", w.spawned, w.jobs(), w.registered())
	}
	unlock()
	w.now = w.now.Add(time.Minute)
	if err := w.note(SessionEnd, Input{Reason: "logout"}); err != nil {
		t.Fatal(err)
	}
	if len(w.spawned) != 1 || len(w.jobs()) != 2 {
		t.Fatalf("with no worker running: started %v, queued %+v", w.spawned, w.jobs())
	}
}
