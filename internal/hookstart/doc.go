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
//   - Startup handles SessionStart(startup|clear) in a store with nothing
//     to offer (Candidates is empty).
//   - PostCompact keeps the compaction summary, redacted with the
//     project's rules and tagged (SummaryTag), for SessionStart(compact);
//     CompactSummary and CompactSummaryAfter read it from the transcript's
//     tail when none was kept.
//
// It links the standard library, package store, package redact and the
// light internal packages (hooknote, recall) only: see cmd/ben10-hook's
// TestShimLinksLight.
package hookstart
