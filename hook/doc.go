// Package hook implements Claude Code's hook protocol and Ben10's handlers
// for it: `ben10 hook EVENT` reads the hook JSON on stdin (ReadInput),
// Handler.Run handles it and prints the hook output (Output), and always
// exits 0 — a failure is one line on stderr and one in the error log
// (internal/hookfast, shared with the ben10-hook shim), never a blocked
// compaction or prompt.
//
// Handlers take note, they do not save while Claude Code waits. Claude
// Code's transcript is append-only (a compaction appends its boundary and
// summary and keeps every earlier line), so PreCompact, SessionEnd and a
// due checkpoint (UserPromptSubmit, PostToolUse) record a small job in
// the project store's queue (store.Job: session, transcript, its size and
// the hash of its first bytes at the event; nothing of the conversation)
// and start the user's worker, `ben10 internal work` (Handler.Work), if
// none runs. That job is the only write the hook makes durable (fsync of
// the file and of its directory): the store is opened without a write
// probe or sweep of temporary files (store.Options.Quick), the project's
// registration in ~/.claude-code/work/projects/ stays while it queues jobs
// (only read by the hook; the worker drops it a week after it was written
// once nothing waits), and no worker is started while one holds the
// worker lock, because the worker looks at every queue again after it
// releases the lock, so no job queued before that is left waiting. The
// worker — one per user, under a lock in ~/.claude-code/work/ — snapshots exactly the transcript's bytes before
// the compaction at the configured level, writes final saves through
// snapshot.SaveCurrent and checkpoints, each verified; a job stays queued
// until done (retried with backoff, kept as failed after
// store.MaxJobAttempts), so a killed worker's job is done by the next
// one, which the next hook or any command that opens the store starts
// (Handler.Resume). A transcript found rewritten (shorter than, or with
// other first bytes than, an earlier queued job saw) is saved inside the
// hook. $BEN10_HOOK_WORK: background (default), sync (the hook does its
// job itself: tests, demos) or defer (queue only).
//
// SessionStart(compact) injects the recovery digest of the snapshot minus
// what the compaction summary already says; while the worker has not
// written it, the digest is built from the transcript's lines before the
// compaction. SessionStart(startup|clear) injects this project's previous
// session when recent. Both are implemented in internal/hookstart over
// their sources: this package reads the archives, the light shim reads
// what the worker prepared in the store's prepared/ directory — the
// recall of a compaction snapshot after it is verified
// (internal/hookstart.WritePrepared, authenticated under the user's key
// for this project, session and snapshot) and, after every final save or
// checkpoint, a startup record of each saved context file
// (hookstart.WriteStartupRecord: its metadata, whether it authenticates as
// this user's, and its recall, bound to the file's path and identity) —
// so both decide alike and render the same digest with the same code.
//
// State: a per-project State file (hook-state.json in the store directory)
// keeps prompt counts, checkpoint times and the recoveries offered, injected
// (once per target session) or declined by a fresh start (DeclineStored).
// It is replaced atomically under its own lock, never the store lock, and
// is not fsynced: it is bookkeeping, not user data. On Linux the previous
// version is kept as a spare (.ben10-tmp-hook-state.json) that the next
// update rewrites and exchanges with the state file, so an update
// allocates no inode (see writeState).
//
// One implementation: the events that only take note (UserPromptSubmit,
// PostToolUse, PreCompact, SessionEnd, Stop, SessionStart(resume)) are
// handled by internal/hooknote, and PostCompact, which keeps the redacted
// summary, by internal/hookstart; neither links archives or compressors:
// `ben10 hook` (Handler.Handle) and the light ben10-hook binary
// (cmd/ben10-hook) both run them, and the
// hook state types of this package are its types. Install registers the
// shim for every event when it sits next to ben10; the shim also handles
// SessionStart(compact) when the recall is prepared and
// SessionStart(startup|clear) when every saved context file has a valid
// startup record (or there is none), and hands to `ben10 hook` what reads
// archives (any other SessionStart of a new, cleared or compacted
// session), and a rewritten transcript's job to
// `ben10 internal work --once`.
//
// Fast path: a prompt with no checkpoint due touches only the session's
// append-only counter in <store>/hook-prompts/: no lock, no JSON state, no
// fsync. Losing a few counts on power loss only delays a checkpoint. The
// counter, the checkpoint pacing and the error log are implemented once in
// internal/hookfast, and the shim counts such a prompt in process with the
// code `ben10 hook` runs (internal/hooknote).
//
// Settings: Install, Uninstall and Status edit and read Claude Code's
// settings files, keeping every other setting and hook.
package hook
