package hook

import "context"

// Unsupervised reports whether event ev with input in may run in the
// hook's own process, with no supervisor process around it
// (internal/hookentry): the handler only takes note. It reads the bounded
// hook JSON, the store's configuration, hook state and job queue (each
// read with a size cap), writes the state, appends a job and starts the
// worker; it decodes no archive (hooknote.Env.InProcess). SessionStart of
// a new, cleared or compacted session and BEN10_HOOK_WORK=sync decode the
// store's archives: those run in a supervised child. A rewritten
// transcript's job, which is done before the hook returns, runs through
// SyncWork when it is set.
func (h *Handler) Unsupervised(ev Event, in *Input) bool { return h.env().InProcess(ev, in) }

// WorkDue runs the queued jobs of every project of the user that are due
// now, under the worker lock, and returns without waiting for a retry
// (`ben10 internal work --once`, which a hook running unsupervised starts
// as a child for a job it must see done: see Handler.SyncWork). It
// returns the projects whose jobs it ran.
func (h *Handler) WorkDue(ctx context.Context) ([]string, error) { return h.work(ctx, false) }
