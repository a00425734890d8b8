package hook

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
)

// Only what this user's Ben10 wrote is injected: every archive a session
// start injects must authenticate under the user's key
// (archive.Archive.Authenticate), and so must the compaction summary kept
// in hook-state.json between PostCompact and SessionStart(compact).

// errNoKey: the user's authentication key could not be read or created,
// so nothing can be authenticated (and nothing is injected).
var errNoKey = errors.New("the authentication key (~/.claude-code/auth.key) is unusable")

// authKey is the user's key (nil when unusable: see errNoKey).
func (c *call) authKey() *archive.AuthKey { return snapshot.AuthKeyFor(c.st) }

// authenticated checks that a was saved by this user's Ben10 and, when
// session is set, for that session.
func (c *call) authenticated(a *archive.Archive, session string) error {
	k := c.authKey()
	if k == nil {
		return errNoKey
	}
	info, err := a.Authenticate(k)
	if err != nil {
		return err
	}
	if session != "" && info.Session != session {
		return fmt.Errorf("%w: the tag is another session's", archive.ErrBadTag)
	}
	return nil
}

// summaryDomain separates the compaction summary's MAC from every other
// use of the key.
const summaryDomain = "ben10 compact summary v1"

// summaryTag authenticates the compaction summary sum kept for session
// in this project's state ("" without a key).
func (c *call) summaryTag(sum string) string {
	k := c.authKey()
	if k == nil || sum == "" {
		return ""
	}
	return hex.EncodeToString(k.Sum(summaryDomain, []byte(c.st.ProjectDir()), []byte(c.in.SessionID), []byte(sum)))
}

// trustedSummary returns the kept summary when its tag verifies, "" (use
// the transcript instead) otherwise.
func (c *call) trustedSummary(ss *SessionState) string {
	k := c.authKey()
	if k == nil || ss.CompactSummary == "" {
		return ""
	}
	tag, err := hex.DecodeString(ss.CompactSummaryTag)
	if err != nil || !k.Verify(tag, summaryDomain, []byte(c.st.ProjectDir()), []byte(c.in.SessionID), []byte(ss.CompactSummary)) {
		return ""
	}
	return ss.CompactSummary
}
