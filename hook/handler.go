package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// Handler runs Ben10's Claude Code hook handlers. The zero value is ready
// to use; the fields replace the environment in tests.
type Handler struct {
	// Home is the user's home directory (default store.HomeDir()).
	Home string
	// Getenv replaces os.Getenv.
	Getenv func(string) string
	// Now replaces time.Now.
	Now func() time.Time
	// Snapshots gives the snapshot layer of a store (default: package
	// snapshot's Manager, set by DefaultSnapshots).
	Snapshots SnapshotFactory
	// Spawn starts a detached background process of this binary with args
	// (default: os.Executable, detached, stdio closed). Used to start the
	// worker (`ben10 internal work`) that does the jobs PreCompact and
	// SessionEnd queue.
	Spawn func(args ...string) error
	// Processes tells the assistant process of a session and whether it
	// still runs (default SystemProcesses).
	Processes Processes
	// SyncWork, when set, does the queued jobs a hook must see done
	// before it returns (a rewritten transcript's) instead of this
	// process: a hook running unsupervised (Unsupervised) sets it to a
	// supervised `ben10 internal work --once`, so that no archive is
	// decoded in a process no supervisor watches.
	SyncWork func(ctx context.Context) error
}

// DefaultSnapshots is the SnapshotFactory used when Handler.Snapshots is
// nil. Package hook sets it to package snapshot's Manager.
var DefaultSnapshots SnapshotFactory

func (h *Handler) now() time.Time { return (&hooknote.Env{Now: h.Now}).Clock() }

func (h *Handler) home() string { return (&hooknote.Env{Home: h.Home}).HomeDir() }

// Run is `ben10 hook [EVENT]`: it reads the hook input from stdin, handles
// it and prints the hook output on stdout. It never fails the hook: every
// error is one line on stderr and a line in the error log, and Run returns
// the exit code to use, which is always 0 (never a blocking 2).
func (h *Handler) Run(ctx context.Context, eventArg string, stdin io.Reader, stdout, stderr io.Writer) int {
	in, err := ReadInput(stdin)
	return h.RunInput(ctx, eventArg, in, err, stdout, stderr)
}

// RunInput is Run with the hook input already read: in and err are what
// ReadInput or ParseInput returned.
func (h *Handler) RunInput(ctx context.Context, eventArg string, in *Input, err error, stdout, stderr io.Writer) int {
	var ev Event
	if err == nil {
		name := eventArg
		if name == "" {
			name = in.HookEventName
		}
		if name == "" {
			err = fmt.Errorf("%w: no event given and hook_event_name is empty", ErrBadInput)
		} else {
			ev, err = ParseEvent(name)
		}
	}
	var out *Output
	if err == nil {
		out, err = h.Handle(ctx, ev, in)
	}
	if err != nil {
		h.fail(ev, in, err, stderr)
		return 0
	}
	if werr := out.Write(stdout); werr != nil {
		h.fail(ev, in, werr, stderr)
	}
	return 0
}

// fail reports err: one line on stderr, one in the error log.
func (h *Handler) fail(ev Event, in *Input, err error, stderr io.Writer) {
	sid, dir := "", ""
	if in != nil {
		sid, dir = in.SessionID, in.Cwd
	}
	hookfast.Fail(stderr, h.home(), string(ev), sid, dir, err, h.now())
}

// Handle runs the handler of ev. Events Ben10 does not act on return an
// empty output. The events that only take note are handled by package
// hooknote (Call.Note), which the ben10-hook shim runs too.
func (h *Handler) Handle(ctx context.Context, ev Event, in *Input) (*Output, error) {
	nc, err := h.env().Open(ctx, ev, in)
	if err != nil || nc == nil {
		return nil, err
	}
	c := &call{Call: nc, h: h}
	switch ev {
	case SessionStart:
		return c.sessionStart()
	case PostCompact:
		return nil, hookstart.PostCompact(nc)
	}
	return nil, nc.Note(ev)
}

// call is one hook invocation that reads saved context (SessionStart) or
// keeps the compaction summary (PostCompact).
type call struct {
	*hooknote.Call
	h *Handler
}

func (c *call) snapshots() (Snapshotter, error) {
	f := c.h.Snapshots
	if f == nil {
		f = DefaultSnapshots
	}
	if f == nil {
		return nil, errors.New("hook: no snapshot layer configured")
	}
	return f(c.St, c.Cfg), nil
}

// ---- SessionStart ----

func (c *call) sessionStart() (*Output, error) {
	switch c.In.Source {
	case "compact":
		return c.afterCompact()
	case "startup", "clear", "":
		return c.atStartup()
	default: // resume, fork, and unknown future sources: the transcript is loaded
		return nil, c.Touch()
	}
}

// afterCompact is SessionStart(compact) with every source: the
// snapshot's archive, or the transcript's lines before the compaction
// (the light hook uses the recall the worker prepared instead).
func (c *call) afterCompact() (*Output, error) {
	sn, err := c.snapshots()
	if err != nil {
		return nil, err
	}
	return hookstart.Compact(c.Call, hookstart.Sources{
		Snapshot: func(id string) (recall.Recall, error) { return c.snapshotRecall(sn, id) },
		Latest: func(session string) (string, time.Time, bool, error) {
			info, ok, err := sn.LatestForSession(session)
			return info.ID, info.CreatedAt, ok, err
		},
		Before: func(path string, size int64) (recall.Recall, bool, error) {
			r, ok, err := recallBefore(path, size, c.St.ProjectDir())
			return recall.Recall(r), ok, err
		},
	})
}

// snapshotRecall reads the recall of compaction snapshot id from its
// archive, which must authenticate as this user's, for this session or
// project.
func (c *call) snapshotRecall(sn Snapshotter, id string) (recall.Recall, error) {
	a, closer, err := sn.OpenArchive(id)
	if err != nil {
		return recall.Recall{}, fmt.Errorf("opening snapshot %s: %w", id, err)
	}
	defer closer.Close()
	if err := c.authenticated(a, c.In.SessionID); err != nil {
		return recall.Recall{}, fmt.Errorf("snapshot %s not injected: %w", id, err)
	}
	r, ok, err := a.Recall()
	if err != nil {
		return recall.Recall{}, fmt.Errorf("snapshot %s: %w", id, err)
	}
	if !ok {
		return recall.Recall{}, fmt.Errorf("snapshot %s holds no recall (written by an older ben10)", id)
	}
	return recall.Recall(r), nil
}

// atStartup is SessionStart(startup|clear) with every source: it opens
// the saved context files, and records what it read of each that had no
// valid startup record, for the light hook's next start
// (hookstart.WriteStartupRecord).
func (c *call) atStartup() (*Output, error) {
	type read struct {
		cand hookstart.Candidate
		id   hookstart.FileID
		sv   hookstart.Saved
	}
	var reads []read
	out, err := hookstart.Startup(c.Call, c.archiveSources(func(cand hookstart.Candidate, id hookstart.FileID, sv hookstart.Saved) {
		reads = append(reads, read{cand, id, sv})
	}))
	if len(reads) > 0 && !c.Cfg.Encryption.Enabled {
		key := hookstart.AuthKey(c.St)
		for _, r := range reads {
			if _, rerr := hookstart.ReadStartupRecord(c.St, key, r.cand); rerr != nil {
				_ = hookstart.WriteStartupRecord(c.St, r.id, r.sv, c.Now) // costs the next start time, not data
			}
		}
	}
	return out, err
}

// archiveSources are SessionStart(startup|clear)'s sources read from the
// archives, with the assistant's own checkpoints. Each saved context file
// read is passed to seen (when set) with its identity, taken before the
// read, so that a file changed meanwhile gets no record.
func (c *call) archiveSources(seen func(hookstart.Candidate, hookstart.FileID, hookstart.Saved)) hookstart.StartupSources {
	oo := snapshot.OpenOptions(c.Cfg)
	return hookstart.StartupSources{
		Saved: func(cand hookstart.Candidate) (hookstart.Saved, error) {
			id, idErr := hookstart.StatSaved(c.St, cand.Path)
			a, err := archive.OpenFile(cand.Path, oo)
			if err != nil {
				return hookstart.Saved{}, err
			}
			defer a.Close()
			sv := savedOf(a, c.authKey())
			if idErr == nil && seen != nil {
				seen(cand, id, sv)
			}
			return sv, nil
		},
		Agent: c.agentDigest,
	}
}

// savedOf is what SessionStart(startup|clear) needs of archive a: its
// metadata, whether it authenticates under k as this user's, and (then)
// its recall.
func savedOf(a *archive.Archive, k *archive.AuthKey) hookstart.Saved {
	m := a.Meta()
	sv := hookstart.Saved{Session: m.SessionID, Harness: string(m.Harness), Directory: m.DirectoryPath, Updated: m.UpdatedAt, LastActivity: m.LastActivity}
	if k == nil {
		return sv
	}
	if _, err := a.Authenticate(k); err != nil {
		return sv
	}
	sv.Authentic = true
	r, ok, err := a.Recall()
	switch {
	case err != nil:
		sv.RecallErr = err
	case ok:
		rc := recall.Recall(r)
		sv.Recall = &rc
	}
	return sv
}

// recordSaved writes the startup record of cand
// (hookstart.WriteStartupRecord) from its archive.
func recordSaved(st *store.Store, cand hookstart.Candidate, oo archive.OpenOptions, now time.Time) error {
	id, err := hookstart.StatSaved(st, cand.Path)
	if err != nil {
		return err
	}
	a, err := archive.OpenFile(cand.Path, oo)
	if err != nil {
		return err
	}
	defer a.Close()
	return hookstart.WriteStartupRecord(st, id, savedOf(a, snapshot.AuthKeyFor(st)), now)
}

// prepareStartup writes a startup record for every saved context file of
// st that has no valid one and removes the records of files gone, so that
// the light hook decides the project's next SessionStart(startup|clear)
// without opening an archive. The worker runs it after every save. A
// store whose archives are encrypted keeps no record (a record holds the
// recall in clear): its records are all removed, and `ben10 hook` reads
// the archives.
func prepareStartup(st *store.Store, cfg *store.Config, now time.Time) error {
	cands := hookstart.Candidates(st)
	if cfg.Encryption.Enabled {
		return hookstart.SweepStartupRecords(st, nil)
	}
	oo := snapshot.OpenOptions(cfg)
	key := hookstart.AuthKey(st)
	var errs []error
	for _, cand := range cands {
		if _, err := hookstart.ReadStartupRecord(st, key, cand); err == nil {
			continue
		}
		if err := recordSaved(st, cand, oo, now); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Base(cand.Path), err))
		}
	}
	errs = append(errs, hookstart.SweepStartupRecords(st, cands))
	return errors.Join(errs...)
}

// contextKey identifies one saved state of a session (hookstart.Saved.Key).
func contextKey(m archive.Metadata) string {
	sv := hookstart.Saved{Session: m.SessionID, LastActivity: m.LastActivity}
	return sv.Key()
}
