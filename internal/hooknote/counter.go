package hooknote

import (
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// The prompt counter, UserPromptSubmit's fast path, is implemented once in
// internal/hookfast.

// pacing is the checkpoint pacing of a configuration.
func pacing(cfg *store.Config) hookfast.Pacing {
	return hookfast.Pacing{AutoSave: cfg.AutoSave, Interval: cfg.CheckpointInterval, Minutes: cfg.CheckpointMinutes}
}

// fastPrompt is UserPromptSubmit when nothing is due: it opens the store
// read-only (configuration and location only), appends to the session's
// counter and decides. done means the prompt is fully handled; otherwise
// the slow path runs, told by counted whether the prompt is already
// counted.
func (e *Env) fastPrompt(in *Input) (done, counted bool) {
	dir, err := e.projectDir(in)
	if err != nil {
		return false, false
	}
	home := e.HomeDir()
	st, err := store.Open(dir, store.Options{Home: home, Session: in.SessionID, Now: e.Now, ReadOnly: true})
	if err != nil {
		return false, false
	}
	if !isDir(st.Root()) {
		// The session's first prompt: now there is something to save,
		// so the store is created (SessionStart does not create one).
		if st, err = store.Open(dir, store.Options{Home: home, Session: in.SessionID, Now: e.Now}); err != nil {
			return false, false
		}
	}
	return hookfast.CountPrompt(st.Root(), in.SessionID, pacing(st.Config()), e.Clock())
}
