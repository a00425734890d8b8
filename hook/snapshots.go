package hook

import (
	"context"
	"io"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

// Snapshotter is what the handlers need of the snapshot layer. The default
// (see Handler.Snapshots) is package snapshot's Manager; tests substitute
// their own to inject failures.
type Snapshotter interface {
	// Create takes a snapshot of the session's transcript.
	Create(SnapshotRequest) (SnapshotInfo, error)
	// LatestForSession returns the newest snapshot of a session.
	LatestForSession(sessionID string) (SnapshotInfo, bool, error)
	// OpenArchive opens a snapshot's archive; close the Closer when done.
	OpenArchive(id string) (*archive.Archive, io.Closer, error)
}

// SnapshotRequest asks for one pre-compaction snapshot.
type SnapshotRequest struct {
	TranscriptPath string
	SessionID      string
	Trigger        string // auto | manual
	Level          ctxfmt.Level
	Now            time.Time
	// Limit, when positive, snapshots the transcript's first Limit bytes
	// only: its size when PreCompact fired.
	Limit int64
	// Context cancels the snapshot (nil = never).
	Context context.Context
}

// SnapshotInfo describes a snapshot.
type SnapshotInfo struct {
	ID        string
	SessionID string
	CreatedAt time.Time
	Path      string
	Level     string
	Bytes     int64
	Pending   bool   // written to pending/ because the store lock was busy
	Replaced  string // an earlier snapshot of the session replaced (debounce)
}

// SnapshotFactory returns the Snapshotter of a store.
type SnapshotFactory func(st *store.Store, cfg *store.Config) Snapshotter
