package hooknote

import (
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// The prompt counter, UserPromptSubmit's fast path, is implemented once in
// internal/hookfast, which the ben10-hook shim's own fast path (through
// the ticket, without opening the store) uses too.

// pacing is the checkpoint pacing of a configuration.
func pacing(cfg *store.Config) hookfast.Pacing {
	return hookfast.Pacing{AutoSave: cfg.AutoSave, Interval: cfg.CheckpointInterval, Minutes: cfg.CheckpointMinutes}
}

// fastPrompt is UserPromptSubmit when nothing is due: it opens the store
// read-only (configuration and location only), appends to the session's
// counter and decides. done means the prompt is fully handled; otherwise
// the slow path runs, told by counted whether the prompt is already
// counted. It also leaves the project's ticket for the ben10-hook shim
// (see hookfast.Ticket) up to date.
func (e *Env) fastPrompt(in *Input) (done, counted bool) {
	dir, err := e.projectDir(in)
	if err != nil {
		return false, false
	}
	home := e.HomeDir()
	cfgFiles := []string{store.UserConfigPath(home), store.ProjectConfigPath(dir)}
	before := hookfast.StatFiles(cfgFiles...)
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
	e.refreshTicket(st, before)
	return hookfast.CountPrompt(st.Root(), in.SessionID, pacing(st.Config()), e.Clock())
}

// refreshTicket writes the shim's ticket of the read-only store st when
// the one on disk is missing or says something else. before is the
// identity of the configuration files taken before st's configuration was
// read: when a file changed meanwhile the ticket could pair the new
// identity with the old values, so none is written.
func (e *Env) refreshTicket(st *store.Store, before []hookfast.FileID) {
	home := e.HomeDir()
	if home == "" {
		return
	}
	t := &hookfast.Ticket{Version: hookfast.TicketVersion, Project: st.ProjectDir(), Root: st.Root(), Pacing: pacing(st.Config()), Files: before}
	if st.IsFallback() {
		t.Primary = st.PrimaryDir()
	}
	if old, ok := hookfast.LoadTicket(home, t.Project); ok && old.Same(t) {
		return
	}
	paths := make([]string, len(before))
	for i, f := range before {
		paths[i] = f.Path
	}
	if !hookfast.SameFiles(before, hookfast.StatFiles(paths...)) {
		return
	}
	// A ticket that cannot be written only keeps prompts on the full path.
	_ = hookfast.WriteTicket(home, t)
}
