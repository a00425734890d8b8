package watch

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxGlobDepth bounds how deep "**" descends.
const maxGlobDepth = 12

// expandHome turns a leading "~/" into home.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// globResult is what one glob expansion found: the matching regular
// files and every directory it looked into (the directories to watch for
// new entries).
type globResult struct {
	files []string
	dirs  []string
}

// glob expands pattern: each path element is a doublestar pattern (*, ?,
// [class], {alt1,alt2}), and a "**" element stands for any number of
// directories. Unreadable or missing directories are skipped.
func glob(pattern string) globResult {
	var r globResult
	pattern = filepath.Clean(pattern)
	vol := filepath.VolumeName(pattern)
	rest := strings.TrimPrefix(filepath.ToSlash(pattern[len(vol):]), "/")
	segs := strings.Split(rest, "/")
	// The static prefix is walked directly.
	root := vol + string(filepath.Separator)
	i := 0
	for ; i < len(segs)-1 && !hasMeta(segs[i]); i++ {
		root = filepath.Join(root, segs[i])
	}
	seenDir := map[string]bool{}
	seenFile := map[string]bool{}
	var walk func(dir string, segs []string, depth int)
	walk = func(dir string, segs []string, depth int) {
		if len(segs) == 0 || depth > maxGlobDepth {
			return
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		if !seenDir[dir] {
			seenDir[dir] = true
			r.dirs = append(r.dirs, dir)
		}
		seg := segs[0]
		if seg == "**" {
			// Zero directories…
			walk(dir, segs[1:], depth)
			// …or one more.
			for _, e := range ents {
				if isDirEntry(dir, e) {
					walk(filepath.Join(dir, e.Name()), segs, depth+1)
				}
			}
			return
		}
		for _, e := range ents {
			if ok, _ := doublestar.Match(seg, e.Name()); !ok {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if len(segs) == 1 {
				if e.Type().IsRegular() && !seenFile[p] {
					seenFile[p] = true
					r.files = append(r.files, p)
				}
				continue
			}
			if isDirEntry(dir, e) {
				walk(p, segs[1:], depth+1)
			}
		}
	}
	walk(root, segs[i:], 0)
	sort.Strings(r.files)
	return r
}

func isDirEntry(dir string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink != 0 {
		st, err := os.Stat(filepath.Join(dir, e.Name()))
		return err == nil && st.IsDir()
	}
	return false
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[{\`) }

// matchGlob reports whether path matches pattern (same syntax as glob).
func matchGlob(pattern, path string) bool {
	ok, _ := doublestar.Match(filepath.ToSlash(filepath.Clean(pattern)), filepath.ToSlash(filepath.Clean(path)))
	return ok
}
