package watch

import (
	"context"
	"time"
)

// Preserver performs an export: an incremental archive of the session
// and, when asked, a pre-compaction snapshot.
type Preserver interface {
	Preserve(req Request) (Result, error)
}

// Request asks a Preserver to export one session.
type Request struct {
	Session *Session
	// Snapshot asks for a pre-compaction snapshot too (the context is in
	// the export band).
	Snapshot bool
	// Cooldown is the session's cooldown: no snapshot is taken when the
	// session already has one (from a hook, the CLI or the watcher) that
	// is younger.
	Cooldown      time.Duration
	ContextTokens int64
	Percent       float64
	Now           time.Time
	// Context cancels the import and the snapshot; nil means never.
	Context context.Context
}

// Result is what an export did.
type Result struct {
	Project      string // the project directory of the session's store
	Store        string // the store directory
	Archive      string // the incremental archive written (current.ctx)
	ArchiveBytes int64
	CopiedBytes  int64 // raw bytes reused from the previous archive
	// Snapshot is the snapshot taken, if any.
	Snapshot *SnapshotInfo
	// SkippedSnapshot says why a requested snapshot was not taken.
	SkippedSnapshot string
	// SkippedArchive says why current.ctx was not written (the project
	// turned auto_save off); Archive is then empty.
	SkippedArchive string
	// LastSnapshot is the session's newest snapshot (taken now or before),
	// and LastSnapshotSource who took it.
	LastSnapshot       time.Time
	LastSnapshotSource string
	LastSnapshotID     string
}

// SnapshotInfo describes a snapshot the watcher took (verified by
// snapshot.Manager.Create before it was moved into place).
type SnapshotInfo struct {
	ID        string
	Path      string
	CreatedAt time.Time
	Replaced  string // a debounced snapshot it replaced
	Pending   bool   // parked in pending/ because the store was locked
}
