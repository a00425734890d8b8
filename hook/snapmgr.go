package hook

import (
	"io"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

func init() {
	DefaultSnapshots = func(st *store.Store, cfg *store.Config) Snapshotter {
		return managerAdapter{snapshot.NewManager(st, cfg)}
	}
}

// managerAdapter is package snapshot's Manager seen as a Snapshotter.
type managerAdapter struct{ m *snapshot.Manager }

func info(s snapshot.Snapshot, path string) SnapshotInfo {
	return SnapshotInfo{ID: s.ID, SessionID: s.SessionID, CreatedAt: s.CreatedAt, Path: path, Level: s.Level, Bytes: s.CompressedBytes}
}

func (a managerAdapter) Create(r SnapshotRequest) (SnapshotInfo, error) {
	res, err := a.m.Create(snapshot.CreateOptions{
		TranscriptPath: r.TranscriptPath, Harness: archive.HarnessClaude, SessionID: r.SessionID,
		Trigger: r.Trigger, Source: "hook", Level: r.Level, Now: r.Now, QuickVerify: r.QuickVerify,
	})
	if err != nil {
		return SnapshotInfo{}, err
	}
	in := info(res.Snapshot, res.Path)
	in.Pending, in.Replaced = res.Pending, res.Replaced
	if res.Pending {
		in.ID = ""
	}
	return in, nil
}

func (a managerAdapter) LatestForSession(id string) (SnapshotInfo, bool, error) {
	s, ok, err := a.m.LatestForSession(id)
	if err != nil || !ok {
		return SnapshotInfo{}, ok, err
	}
	return info(s, a.m.Path(s)), true, nil
}

func (a managerAdapter) OpenArchive(id string) (*archive.Archive, io.Closer, error) {
	ar, c, _, err := a.m.OpenArchive(id)
	return ar, c, err
}

func (a managerAdapter) Recompress(id string, level ctxfmt.Level) error {
	return a.m.Recompress(id, level)
}
