package snapshot

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/redact"
)

// FileChange is one difference between an archive's file registry and the
// working tree (PRD FR-2.4).
type FileChange struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // modified | deleted | new
	Added   int    `json:"added_lines,omitempty"`
	Removed int    `json:"removed_lines,omitempty"`
	// Counted is false when the saved content is not in the archive, so
	// the line counts are unknown.
	Counted bool   `json:"lines_counted"`
	Hash    string `json:"hash,omitempty"` // current SHA-256 (modified and new files)
}

// ReconcileResult is the outcome of Reconcile.
type ReconcileResult struct {
	Modified  []FileChange `json:"modified"`
	Deleted   []FileChange `json:"deleted"`
	New       []FileChange `json:"new"`
	Unchanged int          `json:"unchanged"`
	// Unknown counts tracked files without a recorded hash (their content
	// was not captured), which cannot be compared.
	Unknown int `json:"unknown"`
	// Hashes are the current hashes of every tracked file that exists,
	// of the new files, and Gone for tracked files that do not: what
	// --reconcile records as the new baseline, after which none of
	// today's changes is listed again.
	Hashes map[string]string `json:"-"`
}

// Changed reports whether anything differs.
func (r *ReconcileResult) Changed() bool {
	return len(r.Modified)+len(r.Deleted)+len(r.New) > 0
}

// Gone is the baseline value (ReconcileResult.Hashes) of a tracked file
// that did not exist when the changes were reconciled: its deletion is
// acknowledged, and it is not listed as deleted again.
const Gone = "-"

// MaxReconcileFile bounds the size of a file Reconcile hashes and
// line-counts; larger files are compared by hash only.
const MaxReconcileFile = 32 << 20

// Reconcile compares a file registry (paths relative to project) with the
// working tree: tracked files whose SHA-256 differs from the recorded one
// (baseline[path] when set, else the registry's hash) are modified, with
// +/− line counts against the captured content when the archive holds it
// (lines are compared as multisets: a moved line counts as unchanged);
// tracked files that are gone are deleted; files in a tracked file's
// directory (not below it) that the registry lacks are new, except hidden
// files and those matching exclude. A baseline (an earlier result's
// Hashes) acknowledges that result's changes: a file it marks Gone is not
// listed as deleted, a new file it holds is compared with its hash.
func Reconcile(project string, files []archive.FileRecord, contents []archive.FileContent, baseline map[string]string, exclude []string) (*ReconcileResult, error) {
	res := &ReconcileResult{Hashes: map[string]string{}}
	saved := map[string][]byte{}
	for _, c := range contents {
		saved[c.Path] = c.Data
	}
	tracked := map[string]bool{}
	dirs := map[string]bool{}
	for _, f := range files {
		rel := filepath.FromSlash(f.Path)
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // outside the project
		}
		tracked[filepath.ToSlash(filepath.Clean(rel))] = true
		dirs[filepath.Dir(rel)] = true
		p := filepath.Join(project, rel)
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			res.Hashes[f.Path] = Gone
			if baseline[f.Path] != Gone {
				res.Deleted = append(res.Deleted, FileChange{Path: f.Path, Status: "deleted"})
			}
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			res.Unknown++
			continue
		}
		data, h, err := readHash(p, fi.Size())
		if err != nil {
			res.Unknown++
			continue
		}
		res.Hashes[f.Path] = h
		want := baseline[f.Path]
		if want == "" || want == Gone {
			want = f.Hash
		}
		if want == "" {
			res.Unknown++
			continue
		}
		if want == h {
			res.Unchanged++
			continue
		}
		c := FileChange{Path: f.Path, Status: "modified", Hash: h}
		if old, ok := saved[f.Path]; ok && data != nil && baseline[f.Path] == "" {
			c.Added, c.Removed = lineDelta(old, data)
			c.Counted = true
		}
		res.Modified = append(res.Modified, c)
	}
	for d := range dirs {
		entries, err := os.ReadDir(filepath.Join(project, d))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			rel := filepath.ToSlash(filepath.Join(d, e.Name()))
			if tracked[rel] || redact.Excluded(rel, exclude) {
				continue
			}
			fi, err := e.Info()
			h := ""
			if err == nil {
				_, h, err = readHash(filepath.Join(project, filepath.FromSlash(rel)), fi.Size())
			}
			if err == nil {
				res.Hashes[rel] = h
			}
			want, ok := baseline[rel]
			switch {
			case !ok || want == Gone:
				res.New = append(res.New, FileChange{Path: rel, Status: "new", Hash: h})
			case err != nil:
				// Reconciled as new before, but unreadable now.
				res.Unknown++
			case h == want:
				// Reconciled as new before: compared with its hash then.
				res.Unchanged++
			default:
				res.Modified = append(res.Modified, FileChange{Path: rel, Status: "modified", Hash: h})
			}
		}
	}
	for _, l := range [][]FileChange{res.Modified, res.Deleted, res.New} {
		sort.Slice(l, func(i, j int) bool { return l[i].Path < l[j].Path })
	}
	return res, nil
}

func readHash(p string, size int64) ([]byte, string, error) {
	if size > MaxReconcileFile {
		h, err := fileHash(p)
		return nil, h, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// lineDelta counts lines added and removed between old and cur, compared
// as multisets of lines.
func lineDelta(old, cur []byte) (added, removed int) {
	count := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(old))
	sc.Buffer(make([]byte, 64<<10), MaxReconcileFile)
	for sc.Scan() {
		count[sc.Text()]++
	}
	sc = bufio.NewScanner(bytes.NewReader(cur))
	sc.Buffer(make([]byte, 64<<10), MaxReconcileFile)
	for sc.Scan() {
		if count[sc.Text()] > 0 {
			count[sc.Text()]--
		} else {
			added++
		}
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}
