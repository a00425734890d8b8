package hookstart

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/store"
)

// agentDigestDir is the directory of a store root that holds the
// checkpoints assistants write themselves (snapshot.AgentDigestDir).
const agentDigestDir = "digests"

// MaxClockSkew is how far in the future a saved context's times may lie
// (clock adjustments between machines sharing a home) before SessionStart
// refuses to inject it.
const MaxClockSkew = 5 * time.Minute

// harnessClaude is Claude Code's harness name in archive metadata
// (archive.HarnessClaude); a saved context of another assistant is not
// offered to a Claude Code session.
const harnessClaude = "claude"

// Candidate is one saved context file of a project that
// SessionStart(startup|clear) may offer.
type Candidate struct {
	Path, Kind string // Kind: store.KindCurrent, KindCheckpoint or KindHistory
	Mod        time.Time
}

// Candidates lists st's saved context files, newest first; current.ctx
// wins a tie.
func Candidates(st *store.Store) []Candidate {
	es, _ := store.Archives(st.Root())
	var cs []Candidate
	for _, e := range es {
		if e.Kind != store.KindNamed {
			cs = append(cs, Candidate{e.Path, e.Kind, e.ModTime})
		}
	}
	// Stable: current.ctx, listed first, stays first on a tie.
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Mod.After(cs[j].Mod) })
	return cs
}

// Saved is what SessionStart(startup|clear) needs of a saved context
// file: its archive's metadata, whether it is this user's, and its
// recall. It is also the content of a startup record (WriteStartupRecord).
type Saved struct {
	Session      string    `json:"session"`
	Harness      string    `json:"harness,omitempty"`
	Directory    string    `json:"directory,omitempty"` // the project directory the archive names
	Updated      time.Time `json:"updated"`             // when it was saved (zero: not recorded)
	LastActivity time.Time `json:"last_activity"`       // the conversation's last activity
	// Authentic: the archive authenticates under the user's key, as
	// saved by this user's Ben10 (for any session or project).
	Authentic bool `json:"authentic"`
	// Recall is the archive's recall; nil when it holds none (written by
	// an older ben10) or when it is not Authentic (never injected).
	Recall *recall.Recall `json:"recall,omitempty"`
	// RecallErr is why the recall could not be read (never recorded: a
	// file whose recall fails has no record).
	RecallErr error `json:"-"`
}

// Key identifies one saved state of a session: its id and the time of
// its last activity (from the transcript, so it does not depend on when
// or how often the state was saved). A recovery consumed under it is not
// offered again.
func (s *Saved) Key() string {
	return fmt.Sprintf("ctx:%s@%d", s.Session, s.LastActivity.UnixNano())
}

// AgentBlock is the checkpoint an assistant wrote itself (the MCP tool
// session_digest) that a startup offers beside the saved context.
type AgentBlock struct {
	Session, Path, Key string
	Text               string // as injected
}

// StartupSources is where SessionStart(startup|clear) reads saved
// context. `ben10 hook` opens the archives; the light ben10-hook reads the
// startup records the worker prepared (Recorded). A source that returns
// ErrNotPrepared, or a nil Agent when the store's digests/ directory holds
// anything, makes Startup return ErrNotPrepared without changing the hook
// state, and the event goes to `ben10 hook`.
type StartupSources struct {
	// Saved reads candidate c; any other error is a problem reported
	// when nothing is offered.
	Saved func(c Candidate) (Saved, error)
	// Agent returns the newest checkpoint an assistant wrote that this
	// startup offers, in at most limit characters (ok false: none).
	Agent func(s *hooknote.State, maxAge time.Duration, limit int) (b AgentBlock, ok bool)
}

// Startup is SessionStart(startup|clear): it offers the newest saved
// context of the project's previous session — current.ctx, a checkpoint
// or history, newest first, one candidate per session — that is not this
// session's nor another session's still running, is Claude Code's, names
// this project, is neither in the future nor older than the handoff
// maximum age, authenticates as this user's and was not offered before;
// beside it, in at most half the budget, the checkpoint an assistant wrote
// itself.
func Startup(c *hooknote.Call, src StartupSources) (*hooknote.Output, error) {
	if !c.Cfg.AutoRestore {
		return nil, c.Touch()
	}
	if src.Agent == nil && hasEntries(filepath.Join(c.St.Root(), agentDigestDir)) {
		return nil, ErrNotPrepared
	}
	maxAge := c.HandoffMaxAge()
	budget := c.Cfg.Recovery.StartupDigestChars
	if budget <= 0 {
		budget = recall.DefaultDigestBudget
	}
	var out *hooknote.Output
	err := c.Update(func(s *hooknote.State, ss *hooknote.SessionState) error {
		seen := map[string]bool{}
		var problems []error
		var ab AgentBlock
		abOK := false
		if src.Agent != nil {
			ab, abOK = src.Agent(s, maxAge, budget/2)
		}
		ctxBudget := budget
		if abOK {
			ctxBudget -= recall.DigestLen(ab.Text)
		}
		for _, cand := range Candidates(c.St) {
			sv, err := src.Saved(cand)
			if errors.Is(err, ErrNotPrepared) {
				return err
			}
			if err == nil {
				var ok bool
				if out, ok, err = startupDigest(c, s, sv, cand, seen, ctxBudget, maxAge); ok {
					key := sv.Key()
					Consume(c, s, hooknote.Recovery{ID: "rc-" + key[len("ctx:"):], Kind: hooknote.KindHandoff, SourceSession: sv.Session, Path: cand.Path, Key: key, Chars: recall.DigestLen(out.HookSpecificOutput.AdditionalContext)})
					break
				}
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", filepath.Base(cand.Path), err))
			}
		}
		if abOK {
			out = withAgentBlock(out, ab)
			Consume(c, s, hooknote.Recovery{ID: "rc-" + ab.Key, Kind: hooknote.KindHandoff, SourceSession: ab.Session, Path: ab.Path, Key: ab.Key, Chars: recall.DigestLen(ab.Text)})
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
		Audit(c, out, c.In.Source)
	}
	return out, nil
}

// startupDigest decides whether sv, read from cand, is this startup's
// recovery, and renders it.
func startupDigest(c *hooknote.Call, s *hooknote.State, sv Saved, cand Candidate, seen map[string]bool, budget int, maxAge time.Duration) (*hooknote.Output, bool, error) {
	sid := sv.Session
	if sid == c.In.SessionID || seen[sid] {
		return nil, false, nil
	}
	seen[sid] = true // only a session's newest saved state is a candidate
	if SessionRunning(c, s, sid) {
		return nil, false, nil // another session still running: never inject its context
	}
	if sv.Harness != "" && sv.Harness != harnessClaude {
		return nil, false, nil
	}
	if !SameProject(sv.Directory, c.St.ProjectDir()) {
		// Another project's context (a shared fallback store), or one that
		// does not say whose it is (an archive committed to a repository):
		// never injected automatically.
		return nil, false, nil
	}
	saved := sv.Updated
	if saved.IsZero() {
		saved = cand.Mod
	}
	if saved.After(c.Now.Add(MaxClockSkew)) || sv.LastActivity.After(c.Now.Add(MaxClockSkew)) {
		return nil, false, nil // saved "in the future": not an archive this user's hooks wrote
	}
	if c.Now.Sub(saved) > maxAge {
		return nil, false, nil // too old to be the work being continued
	}
	if !sv.Authentic {
		// Not saved by this user's Ben10 (a repository's archive, a
		// teammate's export, one written before archives were tagged):
		// listed and restorable, never injected; `ben10 context status`
		// says why.
		return nil, false, nil
	}
	if s.ConsumedKey(sv.Key()) != nil {
		return nil, false, nil
	}
	if sv.RecallErr != nil {
		return nil, false, sv.RecallErr
	}
	if sv.Recall == nil {
		return nil, false, errors.New("no recall stored (written by an older ben10)")
	}
	head := startupHeader(sid, cand.Kind)
	text := head + recall.Digest(*sv.Recall, recall.DigestOptions{Budget: budget - recall.DigestLen(head), Now: c.Now})
	msg := fmt.Sprintf("Ben10: restored context of the previous session %s (%s, saved %s ago; %s characters)",
		ShortID(sid), kindName(cand.Kind), store.FormatDuration(max(c.Now.Sub(saved), 0).Round(time.Minute)), Thousands(recall.DigestLen(text)))
	return &hooknote.Output{SystemMessage: msg, HookSpecificOutput: &hooknote.SpecificOutput{HookEventName: hooknote.SessionStart, AdditionalContext: text}}, true, nil
}

// startupHeader heads the digest of a previous session's saved context.
func startupHeader(sid, kind string) string {
	return fmt.Sprintf("[Ben10] Context of this project's previous session %s (%s). Use it if the user continues that work.\n\n", ShortID(sid), kindName(kind))
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

// ShortID is the first 8 characters of a session id.
func ShortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// SessionName names session id for people: its ShortID, or "(not
// named)".
func SessionName(id string) string {
	if id == "" {
		return "(not named)"
	}
	return ShortID(id)
}

// withAgentBlock adds the assistant's checkpoint block to the startup
// output out (nil: the block alone).
func withAgentBlock(out *hooknote.Output, b AgentBlock) *hooknote.Output {
	if out == nil {
		return &hooknote.Output{
			SystemMessage:      fmt.Sprintf("Ben10: offered the checkpoint the assistant of session %s wrote (%s characters)", SessionName(b.Session), Thousands(recall.DigestLen(b.Text))),
			HookSpecificOutput: &hooknote.SpecificOutput{HookEventName: hooknote.SessionStart, AdditionalContext: b.Text},
		}
	}
	out.SystemMessage += "; with the checkpoint its assistant wrote"
	out.HookSpecificOutput.AdditionalContext += "\n\n" + b.Text
	return out
}

// SameProject reports whether the saved directory path dir names the
// project (canonical). An empty path never matches.
func SameProject(dir, project string) bool {
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

// SessionRunning reports whether session sid may still be running in
// another terminal, so that its context must not be injected: it has not
// ended, and either its recorded process still runs, or (when that cannot
// be told) it had a hook event within hooknote.LiveWindow. A session whose
// process is gone crashed: its newest checkpoint is offered at once. A
// session recorded under this hook's own process has ended too (one
// assistant process runs one session at a time: /clear starts the next
// one).
func SessionRunning(c *hooknote.Call, s *hooknote.State, sid string) bool {
	ss := s.Sessions[sid]
	if ss == nil || !ss.Ended.IsZero() {
		return false
	}
	if ss.PID != 0 {
		rec := hooknote.ProcessID{PID: ss.PID, Start: ss.PIDStart}
		if self, ok := c.Env.ProcessesOrSystem().Session(); ok && self == rec {
			return false
		}
		if running, known := c.Env.ProcessesOrSystem().Running(rec); known {
			return running
		}
	}
	return s.Live(sid, c.Now) || PromptedRecently(c, s, sid)
}

// PromptedRecently: session sid has not ended and counted a prompt on the
// fast path (which does not touch the state file) within
// hooknote.LiveWindow.
func PromptedRecently(c *hooknote.Call, s *hooknote.State, sid string) bool {
	ss := s.Sessions[sid]
	if ss == nil || !ss.Ended.IsZero() {
		return false
	}
	n, mod := hookfast.ReadCounter(hookfast.CounterPath(c.St.Root(), sid))
	return n > 0 && c.Now.Sub(mod) < hooknote.LiveWindow
}

// hasEntries reports whether dir holds anything (a directory that cannot
// be read counts as holding something).
func hasEntries(dir string) bool {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) > 0 || (err != nil && !errors.Is(err, io.EOF))
}
