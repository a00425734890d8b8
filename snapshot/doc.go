// Package snapshot manages a project's pre-compaction snapshots: the full
// context saved right before an assistant compacts it, so that nothing the
// compaction summarized away is lost.
//
// # Files
//
// Snapshots live in the store's compaction-snapshots/ directory (package
// store) as pre-compact-<YYYYMMDD-HHMMSS>-<session prefix>.ctx archives
// (package archive), described by index.json (the PRD's
// CompactionSnapshotIndex; one snapshot per line after a summary head, see
// ReadSummary) and .pinned (the pinned ids, one per line, kept in sync with
// the index's pinned flags and used to restore them if index.json is ever
// rebuilt).
//
// # Creating
//
// Manager.Create imports a transcript (any harness package transcript
// knows), redacts it (context.sensitive_redaction and context.redaction.*;
// file contents matching context.exclude_patterns are never captured),
// encodes it at compaction_snapshots.compression_level (or the level the
// caller asks for), encrypts it when
// context.encryption is enabled, and writes it to a temporary file that is
// fsynced and verified deeply before it is moved into place. Only then is
// the store lock taken: pending snapshots are merged, index.json is checked
// against the directory (entries without a file are dropped, unlisted
// snapshot files are verified and adopted, damaged ones moved to corrupt/),
// the debounce applied (a second snapshot of a session within
// snapshot_debounce replaces the first unless forced), retention applied,
// and index.json and .pinned written atomically. A writer that cannot get
// the lock within lock_timeout parks its finished file and writes a pending
// record (store.WritePending); the next locked operation files it, so no
// requested snapshot is lost.
//
// # Retention
//
// PlanPrune deletes unpinned snapshots older than retention_days, then the
// oldest unpinned until retention_count and max_storage_mb hold. Pinned
// snapshots are never pruned; when they alone exceed a limit a warning says
// so, and a new snapshot that cannot fit beside them is refused with a
// *store.StorageLimitError. One snapshot archive is at most MaxSnapshotBytes.
//
// # Reading
//
// Index, Get and ReadSummary read index.json only (NewListTable lays out
// `compaction list` from the Index). OpenArchive opens one snapshot
// lazily. Diff compares a snapshot with the current context (the
// live transcript, or current.ctx) and lists the lost detail: conversation
// spans, tool outputs and file contents the snapshot holds that are now only
// summarized or absent. Search streams matches over every snapshot, one
// archive open at a time. Extract writes messages (Markdown or JSONL), tool
// executions (JSONL) or captured files. Reconcile compares a file registry
// with the working tree (PRD FR-2.4). Stripper removes the home directory
// and user name from portable exports.
//
// Short ids work wherever an id is asked for (Index.Resolve): any unique
// prefix of the YYYYMMDD-HHMMSS-<session> part, or the session suffix.
package snapshot
