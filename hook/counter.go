package hook

import (
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/store"
)

// The prompt counter, UserPromptSubmit's fast path, is implemented once in
// internal/hookfast, which the ben10-hook shim links too (see its doc).

func counterPath(root, sid string) string { return hookfast.CounterPath(root, sid) }

func readCounter(path string) (int, time.Time) { return hookfast.ReadCounter(path) }

func readCounterHeader(path string) (int, time.Time, hookfast.Header, bool) {
	return hookfast.ReadCounterHeader(path)
}

func writeCounter(path string, h hookfast.Header) error { return hookfast.WriteCounter(path, h) }

func removeCounter(root, sid string) { hookfast.RemoveCounter(root, sid) }

// pacing is the checkpoint pacing of a configuration.
func pacing(cfg *store.Config) hookfast.Pacing {
	return hookfast.Pacing{AutoSave: cfg.AutoSave, Interval: cfg.CheckpointInterval, Minutes: cfg.CheckpointMinutes}
}

// checkpointDueAt: every interval prompts, or minutes after ref (the last
// checkpoint or the session's start), whichever comes first.
func checkpointDueAt(cfg *store.Config, since int, ref, now time.Time) bool {
	return pacing(cfg).DueAt(since, ref, now)
}

// fastPrompt is UserPromptSubmit when nothing is due: it opens the store
// read-only (configuration and location only), appends to the session's
// counter and decides. done means the prompt is fully handled; otherwise
// the slow path runs, told by counted whether the prompt is already
// counted. It also leaves the project's ticket for the ben10-hook shim
// (see hookfast.Ticket) up to date.
func (h *Handler) fastPrompt(in *Input) (done, counted bool) {
	dir, err := h.projectDir(in)
	if err != nil {
		return false, false
	}
	home := h.home()
	cfgFiles := []string{store.UserConfigPath(home), store.ProjectConfigPath(dir)}
	before := hookfast.StatFiles(cfgFiles...)
	st, err := store.Open(dir, store.Options{Home: home, Session: in.SessionID, Now: h.Now, ReadOnly: true})
	if err != nil {
		return false, false
	}
	if !isDir(st.Root()) {
		// The session's first prompt: now there is something to save,
		// so the store is created (SessionStart does not create one).
		if st, err = store.Open(dir, store.Options{Home: home, Session: in.SessionID, Now: h.Now}); err != nil {
			return false, false
		}
	}
	h.refreshTicket(st, before)
	return hookfast.CountPrompt(st.Root(), in.SessionID, pacing(st.Config()), h.now())
}

// refreshTicket writes the shim's ticket of the read-only store st when
// the one on disk is missing or says something else. before is the
// identity of the configuration files taken before st's configuration was
// read: when a file changed meanwhile the ticket could pair the new
// identity with the old values, so none is written.
func (h *Handler) refreshTicket(st *store.Store, before []hookfast.FileID) {
	home := h.home()
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
