package watch

import (
	"os"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// restoredCopy reports whether t is a transcript Ben10 itself wrote
// (`context restore --resume`) that the assistant has not appended to
// since: Ben10's copy of a saved session, not a live one. It is neither
// saved nor snapshotted, and its turns are counted only from what the
// assistant appends once the user resumes it.
func (w *Watcher) restoredCopy(t *tracked, ss *SessionState, now time.Time) bool {
	if !store.IsRestoredCopy(w.home, t.Path) {
		return false
	}
	if fi, err := os.Stat(t.TurnFile); err == nil {
		ss.Offset = fi.Size()
	}
	ss.TurnsSince = 0
	w.emit(Event{Time: now, LLM: string(t.Harness), Session: t.ID, Path: t.Path,
		Action: "skipped", Detail: "a session Ben10 restored (context restore --resume), unchanged since: not a live session"})
	return true
}
