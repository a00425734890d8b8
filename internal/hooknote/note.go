package hooknote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// Env is the environment of a hook call. The zero value is the real
// environment; the fields replace it in tests, and tell the ben10-hook
// shim's calls apart from ben10's.
type Env struct {
	// Home is the user's home directory (default store.HomeDir()).
	Home string
	// Getenv replaces os.Getenv.
	Getenv func(string) string
	// Now replaces time.Now.
	Now func() time.Time
	// Bin is the ben10 executable whose `internal work` the worker is
	// (default: this executable).
	Bin string
	// Spawn starts the worker, `Bin internal work`, detached with its
	// standard streams closed (default spawnDetached).
	Spawn func(args ...string) error
	// Processes tells the assistant process of a session and whether it
	// still runs (default SystemProcesses).
	Processes Processes
	// SyncWork does job j of st (already queued) before the hook returns:
	// in the work mode WorkSync, and for a rewritten transcript. It must
	// leave the project registered (RegisterProject) when the job is not
	// done. Without it such a call fails with ErrNoSyncWork.
	SyncWork func(ctx context.Context, st *store.Store, j store.Job) error
}

// ErrNoSyncWork: a job must be done before the hook returns and Env has
// no SyncWork.
var ErrNoSyncWork = errors.New("hook: a job must be done now and nothing can do it here")

func (e *Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// Clock is the time of the call (Env.Now or time.Now).
func (e *Env) Clock() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// HomeDir is the user's home directory (Env.Home or store.HomeDir).
func (e *Env) HomeDir() string {
	if e.Home != "" {
		return e.Home
	}
	if d, err := store.HomeDir(); err == nil {
		return d
	}
	return ""
}

// Work modes, from $BEN10_HOOK_WORK: how a hook that queued a job gets it
// done.
const (
	// WorkBackground (default): start the user's worker (`ben10 internal
	// work`, detached) unless one runs; the hook returns at once.
	WorkBackground = "background"
	// WorkSync: do the job inside the hook before it returns (tests,
	// demos).
	WorkSync = "sync"
	// WorkDefer: queue the job and start nothing (tests: the state a
	// killed worker leaves). The next hook or command starts the worker.
	WorkDefer = "defer"
)

// Recompression modes: the former $BEN10_HOOK_RECOMPRESS values, still
// read when $BEN10_HOOK_WORK is unset: "sync" and "off" mean WorkSync,
// "defer" WorkDefer, "background" WorkBackground.
const (
	RecompressBackground = "background"
	RecompressSync       = "sync"
	RecompressOff        = "off"
	RecompressDefer      = "defer"
)

// Job events: store.Job.Event of the jobs the hooks queue.
const (
	JobSessionEnd = "SessionEnd"
	JobPreCompact = "PreCompact"
	JobCheckpoint = "Checkpoint"
)

// HeadBytes is how much of the transcript's start a job fingerprints.
const HeadBytes = 64 << 10

// WorkMode is the work mode of this hook run.
func (e *Env) WorkMode() (string, error) {
	m := e.getenv("BEN10_HOOK_WORK")
	if m == "" {
		switch r := e.getenv("BEN10_HOOK_RECOMPRESS"); r {
		case RecompressSync, RecompressOff:
			m = WorkSync
		case RecompressDefer:
			m = WorkDefer
		case "", RecompressBackground:
			m = WorkBackground
		default:
			return "", fmt.Errorf("BEN10_HOOK_RECOMPRESS=%q: use background, sync, defer or off", r)
		}
	}
	switch m {
	case WorkBackground, WorkSync, WorkDefer:
		return m, nil
	}
	return "", fmt.Errorf("BEN10_HOOK_WORK=%q: use background, sync or defer", m)
}

// InProcess reports whether event ev with input in only takes note, so it
// may run with no supervisor process around it: it reads the bounded hook
// JSON, the store's configuration, hook state and job queue (each read
// with a size cap), writes the state, appends a job and starts the worker;
// it decodes no archive. Such work cannot hit a fatal runtime error (out
// of memory, a stack overflow), which no Go program recovers from
// in-process, so a panic recovered in-process covers it.
//
// SessionStart of a new, cleared or compacted session may inject a digest
// read from the store's archives (untrusted input: a project directory's
// files), and WorkSync does the queued job, which decodes them, inside
// the hook: those are not in-process events.
func (e *Env) InProcess(ev Event, in *Input) bool {
	if mode, err := e.WorkMode(); err != nil || mode == WorkSync {
		return false
	}
	if ev == SessionStart {
		switch in.Source {
		case "startup", "clear", "compact", "":
			return false
		}
	}
	_, err := ParseEvent(string(ev))
	return err == nil
}

// projectDir is the directory whose store the hooks use: the session's
// start directory ($CLAUDE_PROJECT_DIR) when known, else the hook's cwd.
func (e *Env) projectDir(in *Input) (string, error) {
	c, err := hookfast.ProjectDir(e.getenv, in.Cwd)
	if errors.Is(err, hookfast.ErrNoProject) {
		return "", fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if err != nil {
		return "", err
	}
	// A session started in a subdirectory of a project with a store
	// uses that store, as the commands do.
	return store.ResolveProject(c, e.HomeDir())
}

// Call is one hook call on a project's store.
type Call struct {
	Env *Env
	Ctx context.Context
	In  *Input
	St  *store.Store
	Cfg *store.Config
	Now time.Time
	// Counted: this UserPromptSubmit is already in the session's counter.
	Counted bool
}

// Open starts the call of event ev with input in: it checks the input,
// counts a prompt on the fast path (done: nothing more to do, c is nil)
// and opens the project's store. c is nil, with a nil error, when there
// is nothing to do: a prompt the fast path handled, or a light event in a
// project without a store.
func (e *Env) Open(ctx context.Context, ev Event, in *Input) (c *Call, err error) {
	if in.SessionID == "" {
		return nil, fmt.Errorf("%w: session_id is empty", ErrBadInput)
	}
	counted := false
	if ev == UserPromptSubmit {
		var done bool
		if done, counted = e.fastPrompt(in); done {
			return nil, nil
		}
	}
	dir, err := e.projectDir(in)
	if err != nil {
		return nil, err
	}
	if in.TranscriptPath != "" {
		if err := e.CheckTranscriptPath(in.TranscriptPath); err != nil {
			return nil, err
		}
	}
	st, err := e.openStore(dir, in, lightEvent(ev, in))
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() && !isDir(st.Root()) {
		return nil, nil // no store: nothing saved to offer, nothing to save yet
	}
	return &Call{Env: e, Ctx: ctx, In: in, St: st, Cfg: st.Config(), Now: e.Clock(), Counted: counted}, nil
}

// lightEvent: the event only reads saved context and updates the hook
// state, so the store need not be probed, created or swept.
func lightEvent(ev Event, in *Input) bool {
	switch ev {
	case SessionStart, Stop, PostCompact:
		return true
	case PostToolUse:
		return !modifyingTools[in.ToolName]
	}
	return false
}

// openStore opens the project's store. For a light event it opens it
// read-only (configuration and location, no probe file, no sweep of
// temporary files) when the store directory is writable or does not exist
// (it is not created then). The other events may queue a job: they open
// it quick (store.Options.Quick: no probe file, no sweep), which creates a
// store that does not exist yet and moves one that cannot be written to
// its fallback.
func (e *Env) openStore(dir string, in *Input, light bool) (*store.Store, error) {
	if light {
		st, err := store.Open(dir, store.Options{Home: e.HomeDir(), Session: in.SessionID, Now: e.Now, ReadOnly: true})
		if err == nil && (writableDir(st.Root()) || !isDir(st.Root())) {
			// A store that does not exist is not created for an
			// event that has nothing to save.
			return st, nil
		}
	}
	return store.Open(dir, store.Options{Home: e.HomeDir(), Session: in.SessionID, Now: e.Now, Quick: true})
}

// Note handles an event that only takes note (Env.InProcess) other than
// PostCompact (internal/hookstart keeps its summary): it updates the
// session's hook state and, for a save that is due (a checkpoint,
// PreCompact, SessionEnd), queues its job and gets it done as the work
// mode says.
func (c *Call) Note(ev Event) error {
	switch ev {
	case UserPromptSubmit:
		return c.userPromptSubmit()
	case PostToolUse:
		return c.postToolUse()
	case PreCompact:
		return c.preCompact()
	case SessionEnd:
		return c.sessionEnd()
	case SessionStart, Stop:
		return c.Touch()
	}
	return fmt.Errorf("%w %q: not an event that only takes note", ErrUnknownEvent, ev)
}

// Update runs fn on the session's hook state under the state lock (see
// UpdateState), after recording the event (its time, the assistant
// process, the transcript) and folding in the prompts counted on the fast
// path.
func (c *Call) Update(fn func(*State, *SessionState) error) error {
	return UpdateState(c.St.Root(), c.St.ProjectDir(), c.Now, func(s *State) error {
		ss := s.Session(c.In.SessionID)
		if ss.Started.IsZero() {
			ss.Started = c.Now
		}
		ss.LastEvent = c.Now
		c.recordProcess(ss)
		if c.In.TranscriptPath != "" {
			ss.Transcript = c.In.TranscriptPath
		}
		// Fold the prompts counted on the fast path into the state.
		cp := hookfast.CounterPath(c.St.Root(), c.In.SessionID)
		n, _, old, ok := hookfast.ReadCounterHeader(cp)
		ss.Prompts += n
		ss.SinceCheckpoint += n
		if err := fn(s, ss); err != nil {
			return err
		}
		s.Expire(c.Now, c.HandoffMaxAge())
		ref := ss.LastCheckpoint
		if ref.IsZero() {
			ref = ss.Started
		}
		hd := hookfast.Header{Ref: ref, Base: ss.SinceCheckpoint}
		if ok && n == 0 && hd.Base == old.Base && hd.Ref.Equal(old.Ref) {
			return nil // unchanged: no rewrite
		}
		if err := hookfast.WriteCounter(cp, hd); err != nil {
			// The next fold must not count the same prompts twice.
			_ = os.Remove(cp)
		}
		return nil
	})
}

// Touch records the event in the session's hook state and nothing else.
func (c *Call) Touch() error {
	return c.Update(func(*State, *SessionState) error { return nil })
}

// HandoffMaxAge is how old a saved context may be and still be offered
// to a new session (context.recovery.startup_max_age, default 4 hours).
func (c *Call) HandoffMaxAge() time.Duration {
	if c.Cfg.Recovery.StartupMaxAge > 0 {
		return c.Cfg.Recovery.StartupMaxAge
	}
	return 4 * time.Hour
}

// ---- UserPromptSubmit, PostToolUse: checkpoints ----

// Checkpoint pacing for PostToolUse: a file modification triggers a
// checkpoint when the last one is at least this old.
const toolCheckpointDebounce = 2 * time.Minute

func (c *Call) userPromptSubmit() error {
	due := false
	err := c.Update(func(s *State, ss *SessionState) error {
		if !c.Counted {
			ss.Prompts++
			ss.SinceCheckpoint++
		}
		due = c.checkpointDue(ss)
		return nil
	})
	if err != nil || !due {
		return err
	}
	return c.runCheckpoint("prompt")
}

// checkpointDue: every checkpoint_interval prompts, or checkpoint_minutes
// after the last checkpoint (or the session's first event), whichever
// comes first.
func (c *Call) checkpointDue(ss *SessionState) bool {
	ref := ss.LastCheckpoint
	if ref.IsZero() {
		ref = ss.Started
	}
	return pacing(c.Cfg).DueAt(ss.SinceCheckpoint, ref, c.Now)
}

// modifyingTools are the tools whose use is a significant event.
var modifyingTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true, "Bash": true}

func (c *Call) postToolUse() error {
	if !modifyingTools[c.In.ToolName] {
		return c.Touch()
	}
	due := false
	err := c.Update(func(s *State, ss *SessionState) error {
		ss.Modifications++
		due = c.Cfg.AutoSave && (ss.LastCheckpoint.IsZero() || c.Now.Sub(ss.LastCheckpoint) >= toolCheckpointDebounce)
		return nil
	})
	if err != nil || !due {
		return err
	}
	return c.runCheckpoint("tool")
}

// runCheckpoint takes note of a checkpoint: the worker writes it. The
// counters restart now, so the next interval is counted from this prompt
// whatever the job's outcome.
func (c *Call) runCheckpoint(why string) error {
	terr := CheckTranscript(c.In)
	err := c.Update(func(s *State, ss *SessionState) error {
		ss.SinceCheckpoint = 0
		ss.Modifications = 0
		ss.LastCheckpoint = c.Now
		if terr != nil {
			ss.LastCheckpointErr = terr.Error()
		}
		return nil
	})
	if err != nil || terr != nil {
		return errors.Join(err, terr)
	}
	if err := c.takeNote(JobCheckpoint, why); err != nil {
		return fmt.Errorf("checkpoint (%s): %w", why, err)
	}
	return nil
}

// ---- PreCompact ----

// preCompact takes note: the transcript's size now is what the snapshot
// holds (Claude Code appends the compaction's boundary and summary after
// it and keeps every earlier line), and the worker writes it.
func (c *Call) preCompact() error {
	if !c.Cfg.CompactionSnapshots.Enabled {
		return c.Touch()
	}
	var size int64
	if fi, err := os.Stat(c.In.TranscriptPath); err == nil {
		size = fi.Size()
	}
	err := c.Update(func(s *State, ss *SessionState) error {
		ss.Snapshots++
		ss.CompactSummary = ""
		ss.PreCompactSize, ss.PreCompactTranscript = size, c.In.TranscriptPath
		return nil
	})
	if err != nil {
		return err
	}
	if err := c.takeNote(JobPreCompact, c.In.Trigger); err != nil {
		return fmt.Errorf("snapshot before compaction: %w", err)
	}
	return nil
}

// ---- SessionEnd ----

// sessionEnd takes note: the worker saves the session into current.ctx.
func (c *Call) sessionEnd() error {
	var ss0 SessionState
	err := c.Update(func(s *State, ss *SessionState) error {
		ss0 = *ss
		ss.Ended = c.Now
		ss.EndReason = c.In.Reason
		return nil
	})
	if err != nil || !c.Cfg.AutoSave {
		return err
	}
	if err := c.takeNote(JobSessionEnd, c.In.Reason); err != nil {
		if errors.Is(err, ErrNoTranscript) && c.In.TranscriptPath != "" && ss0.Prompts == 0 {
			return nil // a session that never got a message has no transcript file
		}
		return fmt.Errorf("final save: %w", err)
	}
	return nil
}

// ---- the job queue ----

// ErrNoTranscript: the hook input names no transcript, or it does not
// exist.
var ErrNoTranscript = errors.New("hook: transcript not found")

// CheckTranscript reports ErrNoTranscript when the hook input names no
// transcript or it does not exist.
func CheckTranscript(in *Input) error {
	if in.TranscriptPath == "" {
		return fmt.Errorf("%w: the hook input has no transcript_path", ErrNoTranscript)
	}
	if _, err := os.Stat(in.TranscriptPath); err != nil {
		return fmt.Errorf("%w: %w", ErrNoTranscript, err)
	}
	return nil
}

// HeadHash is the SHA-256 (hex) of the first min(size, HeadBytes) bytes
// of the file at p.
func HeadHash(p string, size int64) (string, error) {
	f, err := store.OpenFileRegular(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, min(size, HeadBytes)); err != nil {
		return "", fmt.Errorf("reading the start of %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// takeNote queues the job of event for this session's transcript and gets
// it done as the work mode says. A transcript that was rewritten since an
// earlier job of the session noted it (shorter, or its first bytes
// changed) cannot be trusted to keep its bytes until a worker reads them:
// that job is done before the hook returns (Env.SyncWork).
func (c *Call) takeNote(event, trigger string) error {
	if err := CheckTranscript(c.In); err != nil {
		return err
	}
	fi, err := os.Stat(c.In.TranscriptPath)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoTranscript, err)
	}
	head, err := HeadHash(c.In.TranscriptPath, fi.Size())
	if err != nil {
		return err
	}
	mode, err := c.Env.WorkMode()
	if err != nil {
		return err
	}
	j := store.Job{Event: event, Trigger: trigger, Session: c.In.SessionID, Transcript: c.In.TranscriptPath,
		Size: fi.Size(), Head: head, Cwd: c.In.Cwd, Time: c.Now}
	jobs, _ := c.St.SessionJobs(j.Session) // unreadable: as if none were queued
	if rewritten(jobs, j) {
		mode = WorkSync
	} else if event == JobCheckpoint && queued(jobs, j) {
		return nil // the queued checkpoint, written later, holds this one
	}
	if j, err = c.St.QueueJob(j); err != nil {
		return err
	}
	home := c.Env.HomeDir()
	switch mode {
	case WorkSync:
		if c.Env.SyncWork == nil {
			return errors.Join(fmt.Errorf("%w (%s job of session %s)", ErrNoSyncWork, j.Event, j.Session), RegisterProject(home, c.St.ProjectDir()))
		}
		return c.Env.SyncWork(c.Ctx, c.St, j)
	case WorkDefer:
		return RegisterProject(home, c.St.ProjectDir())
	}
	if err := RegisterProject(home, c.St.ProjectDir()); err != nil {
		return err
	}
	return c.Env.StartWorker()
}

// rewritten reports whether an earlier queued job of the session (jobs:
// its queued jobs) saw the transcript longer than it is now, or with
// other first bytes.
func rewritten(jobs []store.Job, j store.Job) bool {
	for _, o := range jobs {
		if o.Session != j.Session || o.Transcript != j.Transcript || o.Failed {
			continue
		}
		if o.Size > j.Size || (o.Size <= j.Size && o.Head != "" && o.Size >= HeadBytes && o.Head != j.Head) {
			return true
		}
	}
	return false
}

// queued reports whether a job of j's event and session waits to be run
// (not failed) among jobs.
func queued(jobs []store.Job, j store.Job) bool {
	for _, o := range jobs {
		if o.Event == j.Event && o.Session == j.Session && !o.Failed {
			return true
		}
	}
	return false
}

// WorkerLockName is the user's worker lock in WorkDir: the worker holds
// it while it runs the queues.
const WorkerLockName = "worker.lock"

// WorkerRunning reports whether a worker holds the user's worker lock. A
// worker looks at every queue again after it releases the lock (see
// package hook's Handler.Work), so a job queued before this call returns
// true is run by that worker: no wake-up is lost.
func WorkerRunning(home string) bool {
	unlock, err := store.LockFile(filepath.Join(WorkDir(home), WorkerLockName), 0)
	if err != nil {
		return errors.Is(err, store.ErrFileLockTimeout)
	}
	unlock()
	return false
}

// StartWorker starts the user's worker, `ben10 internal work`, in the
// background, unless one runs already (WorkerRunning): that one runs the
// jobs queued before this call.
func (e *Env) StartWorker() error {
	if WorkerRunning(e.HomeDir()) {
		return nil
	}
	spawn := e.Spawn
	if spawn == nil {
		spawn = func(args ...string) error {
			bin := e.Bin
			if bin == "" {
				var err error
				if bin, err = os.Executable(); err != nil {
					return err
				}
			}
			return spawnDetached(bin, args...)
		}
	}
	if err := spawn("internal", "work"); err != nil {
		return fmt.Errorf("starting the background worker: %w (the job stays queued; the next hook or command starts it)", err)
	}
	return nil
}

// WorkDir is the user's worker directory: its lock (WorkerLockName) and
// the registry of the projects whose queues the worker looks at (one file
// per project, named by its hash, holding its directory).
func WorkDir(home string) string { return filepath.Join(home, ".claude-code", "work") }

// RegisterProject records that project has queued jobs. A registration
// stays while the project queues jobs (the worker removes it a week after
// it was written, once nothing waits), so a hook usually only reads it.
func RegisterProject(home, project string) error {
	dir := filepath.Join(WorkDir(home), "projects")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	p := filepath.Join(dir, store.DirHash(project))
	if old, err := store.ReadFileBounded(p, 4096); err == nil && string(old) == project {
		return nil
	}
	return store.WriteFileAtomic(p, []byte(project))
}

// QueuedProjects lists the registered projects: registry file → project.
func QueuedProjects(home string) map[string]string {
	dir := filepath.Join(WorkDir(home), "projects")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := store.ReadFileBounded(p, 4096)
		if err != nil || !filepath.IsAbs(string(data)) {
			_ = os.Remove(p)
			continue
		}
		out[p] = string(data)
	}
	return out
}
