package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
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
	// PromptCounted: the ben10-hook shim already counted this
	// UserPromptSubmit in the session's counter (and found a checkpoint
	// due, or could not decide), so the handler goes straight to the slow
	// path without counting it again.
	PromptCounted bool
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

// startupHeader heads the digest of a previous session's saved context.
func startupHeader(sid, kind string) string {
	return fmt.Sprintf("[Ben10] Context of this project's previous session %s (%s). Use it if the user continues that work.\n\n", shortID(sid), kindName(kind))
}

// kindName says what a saved context file is, for people.
func kindName(kind string) string {
	switch kind {
	case store.KindCurrent:
		return "its final save"
	case store.KindCheckpoint:
		return "its latest checkpoint"
	default:
		return "from history"
	}
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
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

func (c *call) atStartup() (*Output, error) {
	if !c.Cfg.AutoRestore {
		return nil, c.Touch()
	}
	maxAge := c.HandoffMaxAge()
	budget := c.Cfg.Recovery.StartupDigestChars
	if budget <= 0 {
		budget = archive.DefaultDigestBudget
	}
	oo := snapshot.OpenOptions(c.Cfg)
	var out *Output
	err := c.Update(func(s *State, ss *SessionState) error {
		seen := map[string]bool{}
		var problems []error
		// An assistant's own checkpoint (session_digest) is offered beside
		// the saved context, in at most half the budget.
		ad, adKey, adBlock, adOK := c.agentDigest(s, maxAge, budget/2)
		ctxBudget := budget
		if adOK {
			ctxBudget -= archive.DigestLen(adBlock)
		}
		for _, cand := range hookstart.Candidates(c.St) {
			a, err := archive.OpenFile(cand.Path, oo)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", filepath.Base(cand.Path), err))
				continue
			}
			text, msg, key, ok, err := c.startupDigest(s, a, cand, seen, ctxBudget, maxAge)
			a.Close()
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", filepath.Base(cand.Path), err))
				continue
			}
			if !ok {
				continue
			}
			out = &Output{SystemMessage: msg, HookSpecificOutput: &SpecificOutput{HookEventName: SessionStart, AdditionalContext: text}}
			hookstart.Consume(c.Call, s, Recovery{ID: "rc-" + strings.TrimPrefix(key, "ctx:"), Kind: KindHandoff, SourceSession: a.Meta().SessionID, Path: cand.Path, Key: key, Chars: archive.DigestLen(text)})
			break
		}
		if adOK {
			out = withAgentDigest(out, ad, adBlock)
			hookstart.Consume(c.Call, s, Recovery{ID: "rc-" + adKey, Kind: KindHandoff, SourceSession: ad.Session, Path: ad.Path, Key: adKey, Chars: archive.DigestLen(adBlock)})
		}
		if out == nil && len(problems) > 0 {
			return fmt.Errorf("no saved context could be read: %w", errors.Join(problems...))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out != nil {
		hookstart.Audit(c.Call, out, c.In.Source)
	}
	return out, nil
}

// promptedRecently: session sid has not ended and counted a prompt on the
// fast path (which does not touch the state file) within hooknote.LiveWindow.
func (c *call) promptedRecently(s *State, sid string) bool {
	ss := s.Sessions[sid]
	if ss == nil || !ss.Ended.IsZero() {
		return false
	}
	n, mod := hookfast.ReadCounter(hookfast.CounterPath(c.St.Root(), sid))
	return n > 0 && c.Now.Sub(mod) < hooknote.LiveWindow
}

// contextKey identifies one saved state of a session: its id and the time
// of its last activity (from the transcript, so it does not depend on when
// or how often the state was saved).
func contextKey(m archive.Metadata) string {
	return fmt.Sprintf("ctx:%s@%d", m.SessionID, m.LastActivity.UnixNano())
}

// startupDigest decides whether the archive a is this startup's recovery.
func (c *call) startupDigest(s *State, a *archive.Archive, cand hookstart.Candidate, seen map[string]bool, budget int, maxAge time.Duration) (text, msg, key string, ok bool, err error) {
	m := a.Meta()
	sid := m.SessionID
	if sid == c.In.SessionID || seen[sid] {
		return "", "", "", false, nil
	}
	seen[sid] = true // only a session's newest saved state is a candidate
	if c.sessionRunning(s, sid) {
		return "", "", "", false, nil // another session still running: never inject its context
	}
	if m.Harness != "" && m.Harness != archive.HarnessClaude {
		return "", "", "", false, nil
	}
	if !sameProject(m.DirectoryPath, c.St.ProjectDir()) {
		// Another project's context (a shared fallback store), or one that
		// does not say whose it is (an archive committed to a repository):
		// never injected automatically.
		return "", "", "", false, nil
	}
	saved := m.UpdatedAt
	if saved.IsZero() {
		saved = cand.Mod
	}
	if saved.After(c.Now.Add(maxClockSkew)) || m.LastActivity.After(c.Now.Add(maxClockSkew)) {
		return "", "", "", false, nil // saved "in the future": not an archive this user's hooks wrote
	}
	if c.Now.Sub(saved) > maxAge {
		return "", "", "", false, nil // too old to be the work being continued
	}
	if c.authenticated(a, "") != nil {
		// Not saved by this user's Ben10 (a repository's archive, a
		// teammate's export, one written before archives were tagged):
		// listed and restorable, never injected; `ben10 context status`
		// says why.
		return "", "", "", false, nil
	}
	key = contextKey(m)
	if s.ConsumedKey(key) != nil {
		return "", "", "", false, nil
	}
	r, has, err := a.Recall()
	if err != nil {
		return "", "", "", false, err
	}
	if !has {
		return "", "", "", false, errors.New("no recall stored (written by an older ben10)")
	}
	head := startupHeader(sid, cand.Kind)
	body := archive.Digest(r, archive.DigestOptions{Budget: budget - archive.DigestLen(head), Now: c.Now})
	text = head + body
	msg = fmt.Sprintf("Ben10: restored context of the previous session %s (%s, saved %s ago; %s characters)",
		shortID(sid), kindName(cand.Kind), store.FormatDuration(max(c.Now.Sub(saved), 0).Round(time.Minute)), hookstart.Thousands(archive.DigestLen(text)))
	return text, msg, key, true, nil
}

// maxClockSkew is how far in the future a saved context's times may lie
// (clock adjustments between machines sharing a home) before SessionStart
// refuses to inject it.
const maxClockSkew = 5 * time.Minute

// sameProject reports whether the saved directory path dir names the
// project (canonical). An empty path never matches.
func sameProject(dir, project string) bool {
	if dir == "" {
		return false
	}
	p := filepath.Clean(dir)
	if c, err := store.CanonicalDir(dir); err == nil {
		p = c
	}
	// A session started in a subdirectory saved into the enclosing
	// project's store (store.ResolveProject) is the project's.
	rel, err := filepath.Rel(project, p)
	return err == nil && filepath.IsLocal(rel)
}

// sessionRunning reports whether session sid may still be running in
// another terminal, so that its context must not be injected: it has not
// ended, and either its recorded process still runs, or (when that cannot
// be told) it had a hook event within liveWindow. A session whose process
// is gone crashed: its newest checkpoint is offered at once. A session
// recorded under this hook's own process has ended too (one assistant
// process runs one session at a time: /clear starts the next one).
func (c *call) sessionRunning(s *State, sid string) bool {
	ss := s.Sessions[sid]
	if ss == nil || !ss.Ended.IsZero() {
		return false
	}
	if ss.PID != 0 {
		rec := ProcessID{PID: ss.PID, Start: ss.PIDStart}
		if self, ok := c.Env.ProcessesOrSystem().Session(); ok && self == rec {
			return false
		}
		if running, known := c.Env.ProcessesOrSystem().Running(rec); known {
			return running
		}
	}
	return s.Live(sid, c.Now) || c.promptedRecently(s, sid)
}
