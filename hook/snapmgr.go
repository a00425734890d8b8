package hook

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

func init() {
	DefaultSnapshots = func(st *store.Store, cfg *store.Config) Snapshotter {
		return managerAdapter{m: snapshot.NewManager(st, cfg), cfg: cfg}
	}
}

// managerAdapter is package snapshot's Manager seen as a Snapshotter.
type managerAdapter struct {
	m   *snapshot.Manager
	cfg *store.Config
}

func info(s snapshot.Snapshot, path string) SnapshotInfo {
	return SnapshotInfo{ID: s.ID, SessionID: s.SessionID, CreatedAt: s.CreatedAt, Path: path, Level: s.Level, Bytes: s.CompressedBytes}
}

func (a managerAdapter) Create(r SnapshotRequest) (SnapshotInfo, error) {
	res, err := a.m.Create(snapshot.CreateOptions{
		TranscriptPath: r.TranscriptPath, Harness: archive.HarnessClaude, SessionID: r.SessionID,
		Trigger: r.Trigger, Source: "hook", Level: r.Level, Now: r.Now, Limit: r.Limit, Context: r.Context,
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

// OpenArchive opens the snapshot id. A snapshot's file is named after its
// full id (snapshot.Snapshot.File), and the hook always has the full id,
// so the file is opened directly, without reading index.json; the index
// is consulted only when that fails (an id prefix, a file named otherwise).
func (a managerAdapter) OpenArchive(id string) (*archive.Archive, io.Closer, error) {
	if id != "" && id != "." && id != ".." && filepath.Base(id) == id && !strings.ContainsAny(id, `/\`) {
		if ar, err := archive.OpenFile(a.m.Path(snapshot.Snapshot{ID: id, File: id + ".ctx"}), snapshot.OpenOptions(a.cfg)); err == nil {
			return ar, ar, nil
		}
	}
	ar, _, err := a.m.OpenArchive(id)
	if err != nil {
		return nil, nil, err
	}
	return ar, ar, nil
}
