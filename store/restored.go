package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// RestoredName is the per-user registry of the transcripts Ben10 wrote
// into an assistant's session folders (`context restore --resume`), under
// ~/.claude-code/.
const RestoredName = "restored.json"

// maxRestored bounds the registry: the oldest entries go first.
const maxRestored = 500

// RestoredFile is one transcript Ben10 wrote: while it still has the size
// it was written with, it is Ben10's copy of a saved session, not a live
// one, and the watcher and `context save` leave it alone. Once the
// assistant appends to it (the user resumed it), it is a live session.
type RestoredFile struct {
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	Written time.Time `json:"written"`
	Source  string    `json:"source,omitempty"` // the archive it came from
}

// RestoredPath is the registry's file under home.
func RestoredPath(home string) string {
	return filepath.Join(home, ".claude-code", RestoredName)
}

// Restored is the registry of restored transcripts.
type Restored struct {
	files map[string]RestoredFile
}

// LoadRestored reads the registry under home; a missing one is empty.
func LoadRestored(home string) (*Restored, error) {
	r := &Restored{files: map[string]RestoredFile{}}
	var list []RestoredFile
	if err := readSmallJSON(RestoredPath(home), &list); err != nil {
		return r, err
	}
	for _, f := range list {
		r.files[f.Path] = f
	}
	return r, nil
}

// Unchanged reports whether path is a transcript Ben10 wrote and that has
// not grown or shrunk since (size is its size now).
func (r *Restored) Unchanged(path string, size int64) bool {
	if r == nil {
		return false
	}
	f, ok := r.files[filepath.Clean(path)]
	return ok && f.Size == size
}

// IsRestoredCopy reports whether the file at path is a restored
// transcript Ben10 wrote and nobody changed since. A registry that
// cannot be read counts as empty.
func IsRestoredCopy(home, path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	r, _ := LoadRestored(home)
	return r.Unchanged(path, fi.Size())
}

// RecordRestored adds the files (as they are on disk now) to the registry
// under home, dropping entries whose file is gone and the oldest beyond
// the registry's bound. Concurrent writers are serialised by a lock file.
func RecordRestored(home, source string, paths []string) error {
	p := RestoredPath(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("store: creating %s: %w", filepath.Dir(p), err)
	}
	unlock, err := LockFile(p+".lock", 10*time.Second)
	if err != nil {
		return err
	}
	defer unlock()
	r, err := LoadRestored(home)
	if err != nil {
		r = &Restored{files: map[string]RestoredFile{}} // a damaged registry is replaced
	}
	now := time.Now().UTC()
	for _, f := range paths {
		fi, err := os.Stat(f)
		if err != nil {
			return fmt.Errorf("store: recording restored %s: %w", f, err)
		}
		c := filepath.Clean(f)
		r.files[c] = RestoredFile{Path: c, Size: fi.Size(), Written: now, Source: source}
	}
	list := make([]RestoredFile, 0, len(r.files))
	for _, f := range r.files {
		if _, err := os.Lstat(f.Path); err == nil {
			list = append(list, f)
		}
	}
	slices.SortFunc(list, func(a, b RestoredFile) int {
		return cmp.Or(b.Written.Compare(a.Written), cmp.Compare(a.Path, b.Path)) // newest first
	})
	if len(list) > maxRestored {
		list = list[:maxRestored]
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("store: encoding %s: %w", p, err)
	}
	return WriteFileAtomic(p, append(data, '\n'))
}
