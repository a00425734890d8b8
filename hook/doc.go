// Package hook implements Claude Code's hook protocol and Ben10's handlers
// for it: `ben10 hook EVENT` reads the hook JSON on stdin (ReadInput),
// Handler.Run handles it and prints the hook output (Output), and always
// exits 0 — a failure is one line on stderr and one in the error log
// (AppendError), never a blocked compaction or prompt.
//
// Handlers: PreCompact snapshots the session: what must exist before
// compaction proceeds, the redacted raw transcript (main and subagent
// files) as a raw-only snapshot at the level this build writes fastest,
// verified; a detached recompression follows, which builds the model and
// replaces the snapshot atomically at the configured level (a snapshot it
// never completes stays valid: readers build the model from the raw
// transcript). BEN10_HOOK_RECOMPRESS=off writes a complete snapshot
// instead, BEN10_HOOK_RAWONLY=off a complete one with the recompression.
// SessionStart(compact) injects the
// recovery digest of that snapshot minus what the compaction summary
// already says, SessionStart(startup|clear) injects this project's previous
// session when recent, UserPromptSubmit and PostToolUse write incremental
// checkpoints, SessionEnd the final save into current.ctx.
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
// Fast path: a prompt with no checkpoint due touches only the session's
// append-only counter in <store>/hook-prompts/: no lock, no JSON state, no
// fsync. Losing a few counts on power loss only delays a checkpoint. The
// counter, the checkpoint pacing and the error log are implemented once in
// internal/hookfast, which the ben10-hook shim (cmd/ben10-hook) links too:
// the shim answers such a prompt without starting ben10, through the
// ticket (hookfast.Ticket) this package writes whenever it resolves a
// project's store and pacing for a prompt, and hands everything else to
// `ben10 hook` (Handler.PromptCounted when it already counted the prompt).
// Install registers the shim for ShimEvents when it sits next to ben10.
//
// Settings: Install, Uninstall and Status edit and read Claude Code's
// settings files, keeping every other setting and hook.
package hook
