// Package hooknote is the part of Ben10's Claude Code hooks that only
// takes note, shared by `ben10 hook` (package hook) and the light
// ben10-hook binary (cmd/ben10-hook), so that both run one implementation.
//
// Claude Code's transcript is append-only, so a hook need not copy the
// session while Claude Code waits: Call.Note reads the bounded hook JSON
// (ParseInput), resolves the project's store, updates the session's hook
// state (State, under its own lock), and for a save that is due — a
// checkpoint (UserPromptSubmit, PostToolUse), PreCompact, SessionEnd —
// appends a job to the store's queue (store.QueueJob: the one write the
// hook syncs) and starts the user's worker, `ben10 internal work`,
// detached, unless one holds the worker lock (Env.StartWorker,
// WorkerRunning). A
// transcript found rewritten since an earlier job noted it has its job
// done before the hook returns (Env.SyncWork).
//
// The package links the standard library, package store and internal
// helpers only: no archive format, compressor, database or command-line
// framework, whose package initialisation would be most of a hook's time
// (see hook's TestHookPathLinksNoDatabase and cmd/ben10-hook's guard).
// What needs them — the digest SessionStart injects from archives, the
// worker's saves — stays in package hook; the summary PostCompact keeps
// and the digests SessionStart renders without an archive are
// internal/hookstart's.
package hooknote
