// Package indexnotes is the notes file of the recall index: savers append
// one line per archive they wrote (Append), and the index's next update
// reads them (Note, Path) to know which projects to look at. It links only
// the standard library, so a save path or a hook that notes an archive
// does not link the index's database.
package indexnotes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Name is the file, beside the index database, where savers note the
// archives they wrote until the next update indexes them.
const Name = "index-notes"

// MaxBytes bounds the notes file: past it, a note is dropped and the next
// update scans every known project instead (nothing is lost: the project
// is already known, or its note is older and kept).
const MaxBytes = 1 << 20

// Note is one line of the notes file.
type Note struct {
	Project string `json:"project"`
	Path    string `json:"path,omitempty"`
	Time    int64  `json:"t"`
	// Pulled is the SHA-256 (hex) of an archive `remote pull` wrote into
	// the project's store (index.NotePulled).
	Pulled string `json:"pulled,omitempty"`
}

// Path is the notes file for home directory home.
func Path(home string) string {
	return filepath.Join(home, ".claude-code", Name)
}

// Append records that the archive at path, in the store of project
// directory project, was written or removed: one line appended to the
// notes file (0600, never through a symbolic link), cheap enough for a
// hook's synchronous path.
func Append(home, project, path string) error {
	return Add(home, Note{Project: project, Path: path})
}

// Add appends note n (its Time set to now) to the notes file of home.
func Add(home string, n Note) error {
	project, path := n.Project, n.Path
	if home == "" || project == "" {
		return fmt.Errorf("index: note %s: no home or project directory", path)
	}
	p := Path(home)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("index: note %s: %w", path, err)
	}
	if fi, err := os.Lstat(p); err == nil && fi.Size() > MaxBytes {
		return fmt.Errorf("index: note %s: %s is over %d bytes (run ben10 index update)", path, p, MaxBytes)
	}
	n.Time = time.Now().Unix()
	line, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("index: note %s: %w", path, err)
	}
	f, err := openAppend(p)
	if err != nil {
		return fmt.Errorf("index: note %s: %w", path, err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("index: note %s: %w", path, werr)
	}
	return nil
}
