package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ben10ctx/ben10/store"
)

// KindSnapshot is the Kind of a compaction snapshot in Archives.
const KindSnapshot = "snapshot"

// An Archive is one saved context of a store directory.
type Archive struct {
	// Kind is store.KindCurrent, KindCheckpoint, KindHistory, KindNamed
	// or KindSnapshot; Path, ModTime and Size are the file's.
	store.Entry
	// Name is what users call it: current.ctx, the checkpoint's number,
	// the history file's or named save's name without .ctx, the
	// snapshot's id.
	Name string
	// Snapshot is a snapshot's entry in index.json.
	Snapshot *Snapshot
	// Err says why a snapshot index.json lists has no usable file (Path,
	// ModTime and Size are then zero): its name leads elsewhere, it is
	// missing, or it is not a regular file.
	Err error
}

// Archives lists every saved context of the store directory root (any
// store directory of a project: its own, the fallback one): the files
// store.Archives lists, then the compaction snapshots index.json lists,
// in its order. index.json is project data: a snapshot whose recorded
// file name is not a plain name inside compaction-snapshots/, or whose
// file is missing or not a regular file, is listed with Err set and no
// Path. An unreadable directory or index.json is an error, returned with
// what the rest lists.
func Archives(root string) ([]Archive, error) {
	es, err := store.Archives(root)
	out := make([]Archive, 0, len(es))
	for _, e := range es {
		a := Archive{Entry: e, Name: strings.TrimSuffix(filepath.Base(e.Path), ".ctx")}
		switch e.Kind {
		case store.KindCurrent:
			a.Name = store.CurrentName
		case store.KindCheckpoint:
			a.Name = strconv.Itoa(e.N)
		}
		out = append(out, a)
	}
	dir := filepath.Join(root, store.SnapshotsName)
	indexPath := filepath.Join(dir, store.IndexName)
	data, rerr := store.ReadFileBounded(indexPath, MaxIndexBytes)
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return out, errors.Join(err, fmt.Errorf("snapshot: reading %s: %w", indexPath, rerr))
	}
	ix, perr := ParseIndex(data)
	if perr != nil {
		return out, errors.Join(err, fmt.Errorf("snapshot: %s: %w", indexPath, perr))
	}
	for i := range ix.Snapshots {
		s := &ix.Snapshots[i]
		a := Archive{Entry: store.Entry{Kind: KindSnapshot}, Name: s.ID, Snapshot: s}
		p := filepath.Join(dir, s.File)
		fi, lerr := os.Lstat(p)
		switch {
		case s.File == "" || filepath.Base(s.File) != s.File || strings.HasPrefix(s.File, "."):
			a.Err = fmt.Errorf("index.json names the file %q, outside %s", s.File, dir)
		case lerr != nil:
			a.Err = lerr
		case !fi.Mode().IsRegular():
			a.Err = fmt.Errorf("%s is not a regular file", p)
		default:
			a.Path, a.ModTime, a.Size = p, fi.ModTime(), fi.Size()
		}
		out = append(out, a)
	}
	return out, err
}
