package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/internal/indexnotes"
	"github.com/ben10ctx/ben10/store"
)

// NotePulled is indexnotes.Append for an archive `ben10 remote pull` wrote into
// the store of project: a teammate's content, deliberately untagged (a
// session start never injects it). The note carries the SHA-256 of the
// archive's bytes, read now, so that the index serves that archive, and
// no other untagged one, as team content (TrustTeam). The note is kept
// in the user's data directory, which a project cannot write.
func NotePulled(home, project, path string) error {
	sum, err := fileHash(path)
	if err != nil {
		return fmt.Errorf("index: note %s: %w", path, err)
	}
	return indexnotes.Add(home, indexnotes.Note{Project: project, Path: path, Pulled: sum})
}

// takeNotes moves the notes file aside (so that notes added meanwhile go
// to a new file) and returns the projects noted in it and in any file left
// aside by an Update that did not finish, the SHA-256 of the archives
// noted as pulled, and the files to remove once they are indexed.
func takeNotes(home string) (projects, pulled, taken []string) {
	if home == "" {
		return nil, nil, nil
	}
	p := indexnotes.Path(home)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		aside := p + ".taken-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		_ = os.Rename(p, aside)
	}
	files, _ := filepath.Glob(p + ".taken-*")
	seen := map[string]bool{}
	for _, f := range files {
		data, err := store.ReadFileBounded(f, indexnotes.MaxBytes+64<<10)
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
			if len(n.Pulled) == 64 && strings.Trim(n.Pulled, "0123456789abcdef") == "" {
				pulled = append(pulled, n.Pulled)
			}
			if d := strings.TrimSpace(n.Project); filepath.IsAbs(d) && !seen[d] {
				seen[d] = true
				projects = append(projects, d)
			}
		}
	}
	return projects, pulled, taken
}
