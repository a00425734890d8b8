package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// Only what this user's Ben10 wrote is injected: every archive a session
// start injects must authenticate under the user's key
// (archive.Archive.Authenticate), and so must the compaction summary kept
// in hook-state.json between PostCompact and SessionStart(compact) and the
// recall the worker prepares for it (package internal/hookstart).

// errNoKey: the user's authentication key could not be read or created,
// so nothing can be authenticated (and nothing is injected).
var errNoKey = errors.New("the authentication key (~/.claude-code/auth.key) is unusable")

// authKey is the user's key (nil when unusable: see errNoKey).
func (c *call) authKey() *archive.AuthKey { return snapshot.AuthKeyFor(c.St) }

// authenticated checks that a was saved by this user's Ben10 and, when
// session is set, for that session or at least for this project: the
// session id the tag binds is the transcript's, which need not be the
// hook's (a transcript continued from another session keeps its lines'
// ids), and the snapshot was chosen for the hook's session already.
func (c *call) authenticated(a *archive.Archive, session string) error {
	k := c.authKey()
	if k == nil {
		return errNoKey
	}
	info, err := a.Authenticate(k)
	if err != nil {
		return err
	}
	if session != "" && info.Session != session && !hookstart.SameProject(info.Project, c.St.ProjectDir()) {
		return fmt.Errorf("%w: the tag is another session's, of another project (%s)", archive.ErrBadTag, info.Project)
	}
	return nil
}

// agentDigest is the checkpoint an assistant wrote itself (the MCP tool
// session_digest) that this startup offers: the newest one this user's
// key authenticates, of another session that is not running, saved
// within maxAge and not in the future, not offered before. Its text is
// the block as injected, at most limit characters.
func (c *call) agentDigest(s *State, maxAge time.Duration, limit int) (hookstart.AgentBlock, bool) {
	k := c.authKey()
	if k == nil {
		return hookstart.AgentBlock{}, false
	}
	good, _ := snapshot.AgentDigests(c.St, k)
	for _, d := range good {
		if d.Session == c.In.SessionID || d.Saved.After(c.Now.Add(hookstart.MaxClockSkew)) {
			continue
		}
		if c.Now.Sub(d.Saved) > maxAge {
			break // the others are older
		}
		if d.Session != "" && (s.Live(d.Session, c.Now) || hookstart.PromptedRecently(c.Call, s, d.Session)) {
			continue
		}
		key := "digest:" + filepath.Base(d.Path)
		if s.ConsumedKey(key) != nil {
			return hookstart.AgentBlock{}, false // only the newest is offered, once
		}
		head := fmt.Sprintf("[Ben10] Checkpoint the assistant wrote itself in session %s (saved %s ago):\n\n",
			hookstart.SessionName(d.Session), store.FormatDuration(max(c.Now.Sub(d.Saved), 0).Round(time.Minute)))
		return hookstart.AgentBlock{Session: d.Session, Path: d.Path, Key: key, Text: head + clipChars(d.Text, limit-archive.DigestLen(head))}, true
	}
	return hookstart.AgentBlock{}, false
}

// clipChars cuts s to at most n characters (archive.DigestLen), marking
// the cut.
func clipChars(s string, n int) string {
	if archive.DigestLen(s) <= n {
		return s
	}
	const mark = "\n[… cut]"
	r := []rune(s)
	keep := max(n-archive.DigestLen(mark), 0)
	if keep > len(r) {
		keep = len(r)
	}
	return string(r[:keep]) + mark
}
