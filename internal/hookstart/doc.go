// Package hookstart is what Ben10's Claude Code hooks give back at
// SessionStart, and keep at PostCompact for it, without decoding an
// archive, shared by `ben10 hook` (package hook) and the light ben10-hook
// binary (cmd/ben10-hook) so that both run one implementation.
//
//   - Compact renders the recovery digest SessionStart(compact) injects
//     from a snapshot's recall, minus what the compaction summary already
//     names. Its Sources say where the recall comes from: `ben10 hook`
//     reads the snapshot archive (or the transcript's lines before the
//     compaction); the shim reads only the recall the worker prepared
//     after the snapshot (WritePrepared, ReadPrepared: a file in the
//     store's prepared/ directory, authenticated under the user's key for
//     the project, session and snapshot). A source that has nothing valid
//     returns ErrNotPrepared and the shim hands the event to `ben10 hook`.
//   - Startup decides SessionStart(startup|clear) — which saved context
//     file (current.ctx, a checkpoint, history) of the project's previous
//     session it offers, if any — and renders its digest. Its
//     StartupSources say where each file's metadata and recall come from:
//     `ben10 hook` opens the archives (and adds the checkpoint an
//     assistant wrote itself); the shim reads only the startup records
//     (Recorded) the worker writes after every save (WriteStartupRecord,
//     ReadStartupRecord: a file in prepared/ per saved context file,
//     authenticated under the user's key for the project and the file's
//     path, bound to the file's size, modification time, inode and change
//     time, so that a file rewritten or replaced since has no record). A
//     file without a valid record, or anything in digests/, is
//     ErrNotPrepared and the shim hands the event to `ben10 hook`, which
//     records what it read for the next start.
//   - PostCompact keeps the compaction summary, redacted with the
//     project's rules and tagged (SummaryTag), for SessionStart(compact);
//     CompactSummary and CompactSummaryAfter read it from the transcript's
//     tail when none was kept.
//
// It links the standard library, package store, package redact and the
// light internal packages (hooknote, recall) only: see cmd/ben10-hook's
// TestShimLinksLight.
package hookstart
