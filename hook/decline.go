package hook

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// Declined is one saved context DeclineStored marked.
type Declined struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // store.KindCurrent | KindCheckpoint | KindHistory
	Session string `json:"session"`
}

// DeclineStored records a fresh start in the project store st: the newest
// saved state of every session in current.ctx, checkpoints/ and history/
// is marked declined in the hook state, so the next SessionStart(startup
// or clear) injects none of them. The files are kept. Context saved later
// (a new checkpoint or final save) is offered again as usual. Files that
// do not open are skipped (the hook never injects them either).
func DeclineStored(st *store.Store, now time.Time) ([]Declined, error) {
	oo := snapshot.OpenOptions(st.Config())
	var out []Declined
	err := hooknote.UpdateState(st.Root(), st.ProjectDir(), now, func(s *State) error {
		seen := map[string]bool{}
		for _, cand := range hookstart.Candidates(st) {
			a, err := archive.OpenFile(cand.Path, oo)
			if err != nil {
				continue
			}
			m := a.Meta()
			a.Close()
			if seen[m.SessionID] {
				continue
			}
			seen[m.SessionID] = true
			key := contextKey(m)
			if s.ConsumedKey(key) != nil {
				continue
			}
			found := false
			for i := range s.Recoveries {
				r := &s.Recoveries[i]
				if r.Key == key && r.State == RecoveryActive {
					r.State, r.Note, found = RecoveryDeclined, "fresh start chosen", true
					r.ConsumedAt, r.ConsumedPID = now, os.Getpid()
				}
			}
			if !found {
				s.Recoveries = append(s.Recoveries, Recovery{
					ID: "rc-" + strings.TrimPrefix(key, "ctx:"), Kind: KindHandoff, State: RecoveryDeclined,
					SourceSession: m.SessionID, Path: cand.Path, Key: key, Created: now, CreatedBy: os.Getpid(),
					ConsumedAt: now, ConsumedPID: os.Getpid(), Note: "fresh start chosen",
				})
			}
			out = append(out, Declined{Path: cand.Path, Kind: cand.Kind, Session: m.SessionID})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recording the fresh start: %w", err)
	}
	return out, nil
}
