package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// due reports whether a registered project has a job a worker would run
// now.
func (h *Handler) due() bool {
	now := h.now()
	for _, project := range hooknote.QueuedProjects(h.home()) {
		st, err := store.Open(project, store.Options{Home: h.home(), ReadOnly: true})
		if err != nil {
			continue
		}
		jobs, _ := st.Jobs()
		for _, j := range jobs {
			if !j.Failed && !j.NextTry.After(now) {
				return true
			}
		}
	}
	return false
}

// maxWorkRounds bounds how often a worker takes its lock again for jobs
// queued while it held it.
const maxWorkRounds = 100

// workerWait is how long a worker waits for a job whose retry is due
// soon; a later retry is left to the next worker.
const workerWait = time.Minute

// Work runs the queued jobs of every project of the user, then returns.
// One worker runs per user: when another holds the lock, Work returns at
// once (that one finds the new jobs). A job that fails is retried with
// backoff (up to store.MaxJobAttempts, then kept as failed); a job whose
// retry is not due within a minute is left to the next worker, which the
// next hook or command starts. It returns the projects whose jobs it ran
// (for the caller to index what they wrote).
func (h *Handler) Work(ctx context.Context) ([]string, error) { return h.work(ctx, true) }

// work is Work; a caller that is not the detached worker (a command
// resuming the queue in sync mode) passes wait false: it runs what is due
// and never waits for a retry.
func (h *Handler) work(ctx context.Context, wait bool) ([]string, error) {
	lock := filepath.Join(hooknote.WorkDir(h.home()), hooknote.WorkerLockName)
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", filepath.Dir(lock), err)
	}
	var errs []error
	done := map[string]bool{}
	for round := 1; ; round++ {
		unlock, err := store.LockFile(lock, 0)
		if errors.Is(err, store.ErrFileLockTimeout) {
			break // another worker runs
		}
		if err != nil {
			return nil, err
		}
		err = h.drain(ctx, done, wait)
		unlock()
		if err != nil {
			errs = append(errs, err)
		}
		// A hook may have queued a job after the last look and found the
		// lock held, so it started no worker (hooknote.WorkerRunning):
		// look again now that it is free — after a failed job too (its
		// retry is not due yet, so it is not run again at once; a bounded
		// number of rounds guards against one that keeps failing at once).
		if ctx.Err() != nil || round >= maxWorkRounds || !h.due() {
			break
		}
	}
	projects := make([]string, 0, len(done))
	for p := range done {
		projects = append(projects, p)
	}
	sort.Strings(projects)
	return projects, errors.Join(errs...)
}

// drain runs the due jobs of every registered project until none is due
// (waiting for a retry due within workerWait), adding the projects whose
// jobs it ran to done.
func (h *Handler) drain(ctx context.Context, done map[string]bool, mayWait bool) error {
	var errs []error
	waited := false
	for {
		if ctx.Err() != nil {
			return errors.Join(append(errs, ctx.Err())...)
		}
		ran, next := false, time.Time{}
		for reg, project := range hooknote.QueuedProjects(h.home()) {
			r, n, err := h.runProject(ctx, reg, project)
			if err != nil {
				errs = append(errs, err)
			}
			if r {
				ran, done[project] = true, true
			}
			if !n.IsZero() && (next.IsZero() || n.Before(next)) {
				next = n
			}
		}
		if ran {
			waited = false
			continue
		}
		// Nothing was due: wait once for a retry due soon (not with an
		// injected clock, which would not move meanwhile).
		wait := next.Sub(h.now())
		if !mayWait || next.IsZero() || waited || wait > workerWait || h.Now != nil {
			return errors.Join(errs...)
		}
		waited = true
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// registryTTL is how long a project stays registered (see
// hooknote.RegisterProject) with no job waiting: while it is, a hook that
// queues a job there only reads its registration, and writes (and syncs)
// nothing more than the job.
const registryTTL = 7 * 24 * time.Hour

// runProject runs the due jobs of one project. next is the earliest retry
// time of its jobs not yet due (zero: none waits). A project is looked at
// read-only first: one with no live job costs a listing of its queue, and
// leaves the registry once its registration is older than registryTTL.
func (h *Handler) runProject(ctx context.Context, reg, project string) (ran bool, next time.Time, err error) {
	opts := store.Options{Home: h.home(), Now: h.Now, ReadOnly: true}
	st, err := store.Open(project, opts)
	var jobs []store.Job
	if err == nil {
		if jobs, err = st.Jobs(); err == nil && !anyLive(jobs) {
			h.forget(reg, st)
			return false, time.Time{}, nil
		}
	}
	if err == nil {
		opts.ReadOnly = false
		st, err = store.Open(project, opts)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(reg) // the project is gone
		}
		return false, time.Time{}, fmt.Errorf("opening the store of %s: %w", project, err)
	}
	if jobs, err = st.Jobs(); err != nil {
		return false, time.Time{}, err
	}
	var errs []error
	waiting := false
	for _, j := range jobs {
		if j.Failed {
			continue
		}
		if now := h.now(); j.NextTry.After(now) {
			waiting = true
			if next.IsZero() || j.NextTry.Before(next) {
				next = j.NextTry
			}
			continue
		}
		ran = true
		if err := h.runJob(ctx, st, j); err != nil {
			errs = append(errs, err)
			waiting = true
		}
		if ctx.Err() != nil {
			break
		}
	}
	if !waiting && ctx.Err() == nil {
		h.forget(reg, st)
	}
	return ran, next, errors.Join(errs...)
}

// forget removes reg, the registration of st's project, when it is older
// than registryTTL. A job queued meanwhile keeps the project registered:
// its hook found the registration before it was removed (it looks after
// queueing the job), so the jobs listed after the removal include it.
func (h *Handler) forget(reg string, st *store.Store) {
	if fi, err := os.Stat(reg); err != nil || time.Since(fi.ModTime()) < registryTTL {
		return
	}
	_ = os.Remove(reg)
	if js, err := st.Jobs(); err == nil && anyLive(js) {
		_ = hooknote.RegisterProject(h.home(), st.ProjectDir())
	}
}

func anyLive(js []store.Job) bool {
	for _, j := range js {
		if !j.Failed {
			return true
		}
	}
	return false
}

// backoff is the wait before the n-th retry of a job.
func backoff(n int) time.Duration { return min(time.Duration(1<<min(n, 10))*5*time.Second, time.Hour) }

// runJob does one job and removes it from the queue; a failure is
// recorded in the job (attempts, error, next try) and returned.
func (h *Handler) runJob(ctx context.Context, st *store.Store, j store.Job) error {
	err := h.doJob(ctx, st, j)
	if err == nil {
		return st.FinishJob(j)
	}
	if ctx.Err() != nil {
		return err // cancelled: not the job's failure
	}
	j.Attempts++
	j.LastError = err.Error()
	j.NextTry = h.now().Add(backoff(j.Attempts))
	j.Failed = j.Attempts >= store.MaxJobAttempts
	if uerr := st.UpdateJob(j); uerr != nil {
		err = errors.Join(err, uerr)
	}
	return fmt.Errorf("%s job of session %s (attempt %d): %w", j.Event, j.Session, j.Attempts, err)
}

// doJob does the work of j. A job file comes from the project directory
// (untrusted): its transcript must pass the same checks as a hook's.
func (h *Handler) doJob(ctx context.Context, st *store.Store, j store.Job) error {
	if j.Session == "" || j.Transcript == "" || j.Size < 0 {
		return fmt.Errorf("%w: job %s names no session or transcript", ErrBadInput, filepath.Base(j.Path))
	}
	if err := h.env().CheckTranscriptPath(j.Transcript); err != nil {
		return err
	}
	cfg := st.Config()
	limit := j.Size
	if fi, err := os.Stat(j.Transcript); err == nil && fi.Size() < j.Size {
		// Rewritten since the event: what it held then is gone; save
		// what it holds now.
		limit = 0
	} else if hh, err := hooknote.HeadHash(j.Transcript, j.Size); err == nil && j.Head != "" && hh != j.Head {
		limit = 0
	}
	switch j.Event {
	case hooknote.JobSessionEnd:
		return h.finalSave(ctx, st, cfg, j)
	case hooknote.JobPreCompact:
		return h.compactSnapshot(ctx, st, cfg, j, limit)
	case hooknote.JobCheckpoint:
		return h.checkpointJob(ctx, st, cfg, j)
	}
	return fmt.Errorf("%w: job %s: unknown event %q", ErrBadInput, filepath.Base(j.Path), j.Event)
}

// finalSave is SessionEnd's job: the session into current.ctx, offered to
// the project's next session.
func (h *Handler) finalSave(ctx context.Context, st *store.Store, cfg *store.Config, j store.Job) error {
	if !cfg.AutoSave {
		return nil
	}
	res, err := snapshot.SaveCurrent(ctx, st, cfg, snapshot.SaveRequest{Transcript: j.Transcript, Harness: archive.HarnessClaude,
		SessionID: j.Session, Source: "hook", Now: h.now})
	if errors.Is(err, snapshot.ErrNoConversation) {
		return nil // nothing to save; current.ctx stays as it is
	}
	if err != nil {
		return fmt.Errorf("final save: %w", err)
	}
	// The next SessionStart(startup|clear) decides from the records
	// without opening an archive (the light hook). Without them, `ben10
	// hook` reads the archives: a failure here costs time, not data.
	_ = prepareStartup(st, cfg, h.now())
	return hooknote.UpdateState(st.Root(), st.ProjectDir(), h.now(), func(s *State) error {
		key := contextKey(res.Meta)
		s.AddRecovery(Recovery{
			ID: "rc-" + strings.TrimPrefix(key, "ctx:"), Kind: KindHandoff, State: RecoveryActive,
			SourceSession: j.Session, Path: res.Path, Key: key, Created: h.now(), CreatedBy: os.Getpid(),
		})
		return nil
	})
}

// checkpointJob is a checkpoint's job (UserPromptSubmit, PostToolUse):
// the session as it is now into checkpoints/, built on its newest saved
// archive; the outcome is recorded in the session's hook state.
func (h *Handler) checkpointJob(ctx context.Context, st *store.Store, cfg *store.Config, j store.Job) error {
	_, cerr := h.checkpoint(ctx, st, cfg, &Input{SessionID: j.Session, TranscriptPath: j.Transcript, Cwd: j.Cwd})
	if cerr == nil {
		_ = prepareStartup(st, cfg, h.now()) // as after a final save
	}
	if errors.Is(cerr, ErrNoConversation) {
		return nil // nothing to checkpoint yet; the next interval tries again
	}
	err := hooknote.UpdateState(st.Root(), st.ProjectDir(), h.now(), func(s *State) error {
		ss := s.Session(j.Session)
		if cerr != nil {
			ss.LastCheckpointErr = cerr.Error()
			return nil
		}
		ss.LastCheckpointErr = ""
		ss.Checkpoints++
		return nil
	})
	return errors.Join(cerr, err)
}

// compactSnapshot is PreCompact's job: the transcript's first limit bytes
// (what preceded the compaction; 0 = all) as a snapshot at the configured
// level, then the recovery SessionStart(compact) injects unless it has
// already built its digest from the transcript.
func (h *Handler) compactSnapshot(ctx context.Context, st *store.Store, cfg *store.Config, j store.Job, limit int64) error {
	f := h.Snapshots
	if f == nil {
		f = DefaultSnapshots
	}
	if f == nil {
		return errors.New("hook: no snapshot layer configured")
	}
	sn := f(st, cfg)
	trigger := j.Trigger
	if trigger != "manual" {
		trigger = "auto"
	}
	info, err := sn.Create(SnapshotRequest{Context: ctx, TranscriptPath: j.Transcript, SessionID: j.Session, Trigger: trigger,
		Level: ctxfmt.LevelFromZstd(cfg.CompactionSnapshots.CompressionLevel), Now: j.Time, Limit: limit})
	if err != nil {
		return fmt.Errorf("snapshot before compaction: %w", err)
	}
	if info.ID == "" {
		return nil // parked: the next locked operation merges it; SessionStart finds it through LatestForSession
	}
	// SessionStart(compact) renders the prepared recall without opening
	// the snapshot (the light hook). Without it, `ben10 hook` reads the
	// archive: a failure here costs time, not data. An encrypted snapshot's
	// recall is not written in clear.
	if !cfg.Encryption.Enabled {
		_ = prepare(st, sn, j.Session, info.ID, h.now())
	}
	consumed := false
	err = hooknote.UpdateState(st.Root(), st.ProjectDir(), h.now(), func(s *State) error {
		ss := s.Sessions[j.Session]
		if ss == nil || ss.PreCompactSize != j.Size || ss.PreCompactTranscript != j.Transcript {
			// SessionStart(compact) came first and digested the
			// transcript: this snapshot is not injected again.
			consumed = true
			now := h.now()
			s.Recoveries = append(s.Recoveries, Recovery{
				ID: "rc-" + info.ID, Kind: KindCompact, State: RecoveryConsumed,
				SourceSession: j.Session, TargetSession: j.Session, Snapshot: info.ID, Key: "snapshot:" + info.ID,
				Created: now, CreatedBy: os.Getpid(), ConsumedAt: now, ConsumedBy: j.Session, ConsumedPID: os.Getpid(),
			})
			return nil
		}
		s.AddRecovery(Recovery{
			ID: "rc-" + info.ID, Kind: KindCompact, State: RecoveryActive,
			SourceSession: j.Session, TargetSession: j.Session,
			Snapshot: info.ID, Key: "snapshot:" + info.ID, Created: h.now(), CreatedBy: os.Getpid(),
		})
		return nil
	})
	if consumed || err != nil {
		hookstart.RemovePrepared(st, info.ID)
	}
	return err
}

// prepare writes the recall of snapshot id of session as the store's
// prepared recall (internal/hookstart.WritePrepared).
func prepare(st *store.Store, sn Snapshotter, session, id string, now time.Time) error {
	a, closer, err := sn.OpenArchive(id)
	if err != nil {
		return err
	}
	defer closer.Close()
	r, ok, err := a.Recall()
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("snapshot %s holds no recall", id)
	}
	return hookstart.WritePrepared(st, session, id, recall.Recall(r), now)
}

// maxDigestRead bounds what SessionStart(compact) reads of a transcript
// to build a digest without a snapshot: the last maxDigestRead bytes
// before the compaction (from the first line starting in them).
const maxDigestRead = 64 << 20

// recallBefore builds the recall of the transcript's lines before size
// (its size when PreCompact fired), from at most maxDigestRead bytes.
// ok is false when they hold no conversation.
func recallBefore(path string, size int64, project string) (archive.Recall, bool, error) {
	f, err := store.OpenFileRegular(path)
	if err != nil {
		return archive.Recall{}, false, fmt.Errorf("reading the transcript for the compaction digest: %w", err)
	}
	defer f.Close()
	from := max(size-maxDigestRead, 0)
	data := make([]byte, size-from)
	n, err := f.ReadAt(data, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return archive.Recall{}, false, fmt.Errorf("reading %s: %w", path, err)
	}
	data = data[:n]
	if from > 0 {
		// Start at the first complete line.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	st, err := claude.ImportFiles([]archive.RawFile{{Name: filepath.Base(path), Data: data}}, archive.ImportOptions{ProjectDir: project, NoSubagents: true})
	if err != nil {
		return archive.Recall{}, false, fmt.Errorf("importing %s for the compaction digest: %w", path, err)
	}
	if len(st.Messages) == 0 {
		return archive.Recall{}, false, nil
	}
	return archive.BuildRecall(st), true, nil
}

// Resume gets the queued jobs of st done when it holds any that are due
// (a worker killed or never started, a reboot): it starts the worker as
// the work mode says. Commands that open a store call it.
func (h *Handler) Resume(ctx context.Context, st *store.Store) error {
	jobs, err := st.Jobs()
	if err != nil || !anyLive(jobs) {
		return err
	}
	mode, err := h.env().WorkMode()
	if err != nil || mode == WorkDefer {
		return err
	}
	if err := hooknote.RegisterProject(h.home(), st.ProjectDir()); err != nil {
		return err
	}
	if mode == WorkSync {
		_, err := h.work(ctx, false)
		return err
	}
	return h.env().StartWorker()
}
