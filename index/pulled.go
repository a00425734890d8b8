package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// ArchivePulled is the kind of an archive pulled from a team remote into
// the pull area (`ben10 remote pull --remote-project KEY` without a local
// checkout of the project).
const ArchivePulled = "pulled"

// PullArea is where `ben10 remote pull` puts a teammate's archives when
// the project has no local checkout: <home>/.claude-code/remote/<remote
// name>/<project key>/*.ctx. (Archives pulled into a local project's store
// are indexed with that project.)
func PullArea(home string) string {
	return filepath.Join(home, ".claude-code", "remote")
}

// inPullArea tells whether dir is inside home's pull area.
func inPullArea(home, dir string) bool {
	if home == "" {
		return false
	}
	rel, err := filepath.Rel(PullArea(home), dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// updatePulled indexes the archives of the pull area. Each pull directory
// is a project of the index (its path), and its archives carry the source
// "remote:<remote name>/<project key>". Pulled archives were authenticated
// with the team key and rebuilt, redacted, by this user's Ben10 when they
// were pulled, so they are indexed like the user's own; one that is
// encrypted (the local configuration encrypts archives) is counted, not
// indexed.
func (x *Index) updatePulled(ctx context.Context, seen map[string]bool, known map[string]archiveRow, st *Stats) error {
	area := PullArea(x.home)
	remotes, err := os.ReadDir(area)
	if err != nil {
		return nil // no pull area
	}
	for _, r := range remotes {
		if !r.IsDir() { // a link is not a directory entry here: never followed
			continue
		}
		keys, err := os.ReadDir(filepath.Join(area, r.Name()))
		if err != nil {
			continue
		}
		for _, k := range keys {
			if !k.IsDir() {
				continue
			}
			dir := filepath.Join(area, r.Name(), k.Name())
			files := ctxFiles(dir, ArchivePulled, "remote:"+r.Name()+"/"+k.Name())
			if err := x.indexProject(ctx, dir, files, seen, known, st); err != nil {
				return err
			}
		}
	}
	return nil
}
