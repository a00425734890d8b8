// Package store is one project's context directory: its layout,
// configuration, file locks, atomic writes, rotation, recovery and the
// audit log. It knows nothing about the archive format: callers pass bytes
// (or a streaming writer) and a verify function.
//
// # Layout
//
// Open resolves <project>/.claude/context/ for a project directory (made
// absolute and symlink-free first; context.storage_location may move it):
//
//	current.ctx, current.ctx.meta   the active context and its JSON description
//	checkpoints/cp-NNN.ctx          rolling checkpoints, newest has the highest N
//	history/session-<UTC time>.ctx  each ended session's final state (+ .meta)
//	compaction-snapshots/           index.json, .pinned and snapshots (package snapshot)
//	exports/                        portable exports
//	corrupt/                        damaged files, moved here, never deleted
//	pending/                        data from writers that could not get the lock
//	.lock                           the lock file
//
// When the project directory cannot be written (permission denied,
// read-only file system, or a file in the way), the store is
// ~/.claude-code/contexts/<hash>/, where <hash> is the first 16
// hexadecimal digits of the SHA-256 of the canonical project path
// (lower-cased on Windows); a file named "project" in it records the path.
// Directories are created 0700 when first needed, files 0600.
//
// A session started in a subdirectory of a project that has a store uses
// that store: Open first resolves the directory with ResolveProject, which
// takes the nearest enclosing directory (the longest path) whose store
// exists, never the home directory for another directory. Hooks, commands
// and the watcher all go through it.
//
// # Size limit
//
// context.max_storage_mb bounds everything outside compaction-snapshots/.
// Before a save would go over it, the oldest history files, then the
// oldest checkpoints (never the newest), are removed; a save that still
// does not fit is refused with a *StorageLimitError and recorded in
// refused.json (Refusals) until a save of the same area succeeds, so that
// status and doctor can show it.
//
// # Restored transcripts
//
// RecordRestored keeps, in ~/.claude-code/restored.json, the transcripts
// Ben10 wrote into an assistant's session folders; IsRestoredCopy tells
// them from live sessions until the assistant appends to them.
//
// # Gitignore
//
// When Open
// creates the store inside a git work tree (or a project with a
// .gitignore), it adds ".claude/context/" to the project's .gitignore
// once; see EnsureGitignore.
//
// # Durability
//
// Every file is written with AtomicFile or WriteFileAtomic: a temporary
// file (TempPrefix) in the same directory, fsync, rename over the target,
// fsync of the directory. Readers and crashes see the old bytes or the new,
// never a mixture. Open sweeps temporary files older than SweepAge.
// SaveCurrent with Rotate moves the previous current.ctx into history/
// before renaming the new one in place, so after a crash at any moment
// Recover finds either the previous or the new state (a test kills a saving
// process 200 times to prove it).
//
// # Locking
//
// Writers take Lock: an OS file lock on .lock (flock on Unix, LockFileEx
// on Windows) with a timeout (context.lock_timeout, default 2 s). A writer
// that times out (ErrLockTimeout) writes its data with WritePending; the
// next lock holder merges it with TakePending, ReadPending and DonePending,
// so no requested snapshot or checkpoint is lost. See Lock for how stale
// locks are treated.
//
// QueueJob queues a hook's Job in pending/ the same way, for the user's
// worker. Each job carries a MAC under the user's key (LoadOrCreateAuthKey)
// bound to the project; Jobs lists a job whose MAC does not verify as
// failed (ErrJobRefused), never to be run, so a repository cannot plant
// work for the worker.
//
// # Configuration
//
// LoadConfig reads ~/.claude-code/config.yaml and <project>/.claude/config.yaml
// (precedence: flags > project > user > defaults) into a Config with the
// provenance of every key. Keys live under `context:`; besides the PRD's
// keys, Ben10 reads recovery.{compact_digest_chars, startup_digest_chars,
// startup_max_age}, snapshot_debounce, lock_timeout, checkpoint_minutes and
// redaction.{disabled_rules, extra_rules, allowlist, allow_paths,
// replacement}; `encryption` is a mapping {enabled, key_source, env,
// passphrase_file, key_file} or, as in the PRD, a bare boolean. Keys lists
// them all. Unknown keys are warnings with file and line; invalid values
// are *ConfigError with file, line and the allowed values. SetConfigValue
// edits one key, keeping comments (an existing single-line scalar is
// replaced in place, byte for byte; structural changes re-encode the
// document, which keeps comments but may drop blank lines).
//
// # Audit log
//
// AppendAudit (and (*Store).Audit) add JSON lines to
// ~/.claude-code/audit.log for save, restore, export, delete and prune.
package store
