package hookstart

import (
	"fmt"
	"os"
	"time"

	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/store"
)

// RecallToolsLine ends the digest injected after a compaction: it tells
// the assistant that Ben10's MCP tools can look up what the digest left out.
const RecallToolsLine = "\nEverything before this compaction is kept: look it up with the ben10 MCP tools (mcp__ben10__search, mcp__ben10__show, mcp__ben10__recall_file).\n"

// compactHeaderTranscript heads the digest SessionStart(compact) builds
// from the transcript when the snapshot is not written yet.
const compactHeaderTranscript = "[Ben10] Context from before the compaction (from the session's transcript; its snapshot is being written: `ben10 context compaction list`). The summary above may have dropped some of it.\n\n"

// compactHeader heads the digest of compaction snapshot id.
func compactHeader(id string) string {
	return fmt.Sprintf("[Ben10] Context from before the compaction (snapshot %s). The summary above may have dropped some of it; the full transcript is kept: `ben10 context compaction show %s`.\n\n", id, id)
}

// Sources is where SessionStart reads saved recalls. `ben10 hook` reads
// the archives (and the transcript); the light ben10-hook reads only the
// recalls the worker prepared (ReadPrepared) and leaves the other
// sources nil: a nil source, or one that returns ErrNotPrepared, makes
// the handler return ErrNotPrepared without changing the hook state, and
// the event goes to `ben10 hook`.
type Sources struct {
	// Snapshot returns the recall of compaction snapshot id, authenticated
	// as this user's, of this session or at least this project.
	Snapshot func(id string) (recall.Recall, error)
	// Latest returns the newest snapshot of session.
	Latest func(session string) (id string, created time.Time, ok bool, err error)
	// Before returns the recall of the transcript's first size bytes (its
	// size when PreCompact fired); ok is false when they hold no
	// conversation.
	Before func(path string, size int64) (r recall.Recall, ok bool, err error)
}

// Prepared are the light hook's sources: the prepared recalls only.
func Prepared(c *hooknote.Call) Sources {
	key := AuthKey(c.St)
	return Sources{Snapshot: func(id string) (recall.Recall, error) {
		return ReadPrepared(c.St, key, c.In.SessionID, id)
	}}
}

// Compact is SessionStart(compact): it injects the digest of the
// session's snapshot before the compaction, minus what the compaction
// summary already names, once; while the worker has not written the
// snapshot, the digest comes from the transcript's lines before the
// compaction.
func Compact(c *hooknote.Call, src Sources) (*hooknote.Output, error) {
	if !c.Cfg.AutoRestore {
		return nil, c.Touch()
	}
	authKey := AuthKey(c.St)
	var out *hooknote.Output
	injected := ""
	err := c.Update(func(s *hooknote.State, ss *hooknote.SessionState) error {
		id := ""
		for i := len(s.Recoveries) - 1; i >= 0; i-- {
			r := s.Recoveries[i]
			if r.Kind == hooknote.KindCompact && r.TargetSession == c.In.SessionID && r.State == hooknote.RecoveryActive {
				id = r.Snapshot
				break
			}
		}
		var r recall.Recall
		head := ""
		key := ""
		switch {
		case id == "" && ss.PreCompactSize > 0 && ss.PreCompactTranscript == c.In.TranscriptPath:
			// PreCompact took note and its snapshot is not ready: the
			// digest comes from the transcript's lines before the
			// compaction.
			if src.Before == nil {
				return ErrNotPrepared
			}
			var ok bool
			var err error
			if r, ok, err = src.Before(c.In.TranscriptPath, ss.PreCompactSize); err != nil || !ok {
				return err
			}
			key = fmt.Sprintf("transcript:%s@%d", c.In.SessionID, ss.PreCompactSize)
			if s.ConsumedKey(key) != nil {
				return nil
			}
			head = compactHeaderTranscript
			id = "transcript"
		default:
			if id == "" {
				if src.Latest == nil {
					return ErrNotPrepared
				}
				latest, created, ok, err := src.Latest(c.In.SessionID)
				if err != nil {
					return err
				}
				if !ok || c.Now.Sub(created) > hooknote.CompactLookback {
					return nil // no snapshot of this session: nothing to restore
				}
				id = latest
			}
			key = "snapshot:" + id
			if s.ConsumedKey(key) != nil {
				return nil // already injected: a re-fired event
			}
			if src.Snapshot == nil {
				return ErrNotPrepared
			}
			var err error
			if r, err = src.Snapshot(id); err != nil {
				return err
			}
			head = compactHeader(id)
			injected = id
		}
		summary := trustedSummary(authKey, c.St.ProjectDir(), c.In.SessionID, ss)
		if summary == "" {
			summary = c.In.CompactSummary
		}
		if summary == "" && c.In.TranscriptPath != "" {
			var off int64
			if ss.PreCompactTranscript == c.In.TranscriptPath {
				off = ss.PreCompactSize
			}
			summary, _ = CompactSummaryAfter(c.In.TranscriptPath, off) // unreadable: digest everything
		}
		budget := min(c.Cfg.Recovery.CompactDigestChars, recall.RecoveryDigestBudget)
		if budget <= 0 {
			budget = recall.RecoveryDigestBudget
		}
		body := recall.Digest(r, recall.DigestOptions{Budget: budget - recall.DigestLen(head) - recall.DigestLen(RecallToolsLine), Summary: summary, Now: c.Now})
		text := head + body + RecallToolsLine
		from := "snapshot " + id
		if id == "transcript" {
			from = "the transcript (its snapshot is being written)"
		}
		msg := fmt.Sprintf("Ben10: context restored after compaction from %s (%d files, %d commands, %d errors; %s characters)",
			from, len(r.Files), len(r.Commands), len(r.Errors), Thousands(recall.DigestLen(text)))
		out = &hooknote.Output{SystemMessage: msg, HookSpecificOutput: &hooknote.SpecificOutput{HookEventName: hooknote.SessionStart, AdditionalContext: text}}
		rc := hooknote.Recovery{ID: "rc-" + id, Kind: hooknote.KindCompact, SourceSession: c.In.SessionID, Snapshot: id, Key: key, Chars: recall.DigestLen(text)}
		if id == "transcript" {
			rc.ID, rc.Snapshot = "rc-"+key, ""
		}
		Consume(c, s, rc)
		ss.CompactSummary = ""
		ss.PreCompactSize, ss.PreCompactTranscript = 0, ""
		return nil
	})
	if err != nil {
		return nil, err
	}
	if injected != "" {
		RemovePrepared(c.St, injected)
	}
	if out != nil {
		Audit(c, out, "compact")
	}
	return out, nil
}

// Consume marks the active recovery with r's key consumed by this
// session (adding r when there is none).
func Consume(c *hooknote.Call, s *hooknote.State, r hooknote.Recovery) {
	for i := range s.Recoveries {
		o := &s.Recoveries[i]
		if o.Key == r.Key && o.State == hooknote.RecoveryActive {
			o.State, o.ConsumedAt, o.ConsumedBy, o.ConsumedPID, o.Chars = hooknote.RecoveryConsumed, c.Now, c.In.SessionID, os.Getpid(), r.Chars
			o.TargetSession = c.In.SessionID
			return
		}
	}
	// A recovery found without an active record (e.g. a checkpoint of a
	// session that crashed): created and consumed now.
	r.State, r.Created, r.ConsumedAt, r.ConsumedBy, r.ConsumedPID = hooknote.RecoveryConsumed, c.Now, c.Now, c.In.SessionID, os.Getpid()
	r.TargetSession = c.In.SessionID
	s.Recoveries = append(s.Recoveries, r)
}

// Audit records the injection out in the store's audit log.
func Audit(c *hooknote.Call, out *hooknote.Output, kind string) {
	_ = c.St.Audit(store.AuditEntry{
		Timestamp: c.Now, Action: store.ActionRestore, Session: c.In.SessionID,
		Detail: "hook SessionStart(" + kind + "): " + out.SystemMessage,
	})
}

// Thousands formats n with comma separators.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
