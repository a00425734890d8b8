package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/internal/indexnotes"
)

// NotesName is the file, beside the index database, where savers note the
// archives they wrote until the next Update indexes them.
const NotesName = indexnotes.Name

// NotesPath is the notes file for home directory home.
func NotesPath(home string) string { return indexnotes.Path(home) }

// NoteArchive records that the archive at path, in the store of project
// directory project, was written or removed. It does not touch the
// database: it appends one line to the notes file (internal/indexnotes,
// which the save paths and hooks call directly so as not to link the
// database). The next Update — the background worker's, `ben10 index
// update`'s, or the one a search runs before it answers — indexes the
// project's store, and the project is remembered from then on.
func NoteArchive(home, project, path string) error { return indexnotes.Append(home, project, path) }

// takeNotes moves the notes file aside (so that notes added meanwhile go
// to a new file) and returns the projects noted in it and in any file left
// aside by an Update that did not finish, with the files to remove once
// they are indexed.
func takeNotes(home string) (projects []string, taken []string) {
	if home == "" {
		return nil, nil
	}
	p := NotesPath(home)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		aside := p + ".taken-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		_ = os.Rename(p, aside)
	}
	files, _ := filepath.Glob(p + ".taken-*")
	seen := map[string]bool{}
	for _, f := range files {
		data, err := readSmall(f, indexnotes.MaxBytes+64<<10)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			taken = append(taken, f) // not a small regular file: drop it
			continue
		}
		taken = append(taken, f)
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			var n indexnotes.Note
			if len(l) == 0 || json.Unmarshal(l, &n) != nil {
				continue // a torn or foreign line: the next full scan covers it
			}
			if d := strings.TrimSpace(n.Project); filepath.IsAbs(d) && !seen[d] {
				seen[d] = true
				projects = append(projects, d)
			}
		}
	}
	return projects, taken
}
