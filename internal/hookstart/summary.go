package hookstart

import (
	"fmt"

	"github.com/ben10ctx/ben10/internal/hooknote"
)

// MaxSummaryKeep bounds the PostCompact summary kept in the hook state: a
// longer one is not kept, and SessionStart(compact) reads the summary from
// the transcript's tail instead.
const MaxSummaryKeep = 64 << 10

// PostCompact handles PostCompact: it keeps the compaction summary of the
// hook input in the session's hook state until SessionStart(compact) uses
// it, to leave out of the digest what the summary already says (the
// transcript, written asynchronously, may not hold it yet then). The
// summary is redacted with the project's rules, like everything else the
// store holds, and tagged under the user's key (SummaryTag), so that a
// summary planted in the state file is never trusted. A PostCompact
// without a summary forgets a kept one.
func PostCompact(c *hooknote.Call) error {
	sum := c.In.CompactSummary
	if len(sum) > MaxSummaryKeep {
		sum = ""
	}
	if sum != "" {
		r, err := c.Cfg.Redactor()
		if err != nil {
			return fmt.Errorf("redacting the compaction summary: %w", err)
		}
		if r != nil {
			sum, _ = r.String(sum)
		}
	}
	tag := SummaryTag(c.St, c.In.SessionID, sum)
	return c.Update(func(_ *hooknote.State, ss *hooknote.SessionState) error {
		ss.CompactSummary, ss.CompactSummaryTag = sum, tag
		return nil
	})
}
