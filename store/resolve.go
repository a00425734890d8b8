package store

import (
	"os"
	"path/filepath"
	"strings"
)

// ResolveProject returns the project whose store serves a session started
// in dir: the nearest of dir and its parent directories (the longest path)
// that has a store, else dir itself. Nested projects thus share the store
// of the project they are in instead of each starting an empty one. The
// hooks, the commands and the watcher all resolve through it (Open calls
// it), so they never disagree about where a project's context is.
//
// A directory has a store when its .claude/context is a real directory
// (not a link) owned by this user, or when its fallback store
// (FallbackDir) exists. The home directory and the directories above it
// are never taken for another directory: a store in ~ serves only
// sessions started in ~. dir is returned canonical (see CanonicalDir).
func ResolveProject(dir, home string) (string, error) {
	c, err := CanonicalDir(dir)
	if err != nil {
		return "", err
	}
	h := ""
	if home != "" {
		if h, err = CanonicalDir(home); err != nil {
			h = filepath.Clean(home)
		}
	}
	for p := c; ; {
		if p != c && h != "" && within(p, h) {
			break // home or above it
		}
		if hasStore(p, home) {
			return p, nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	return c, nil
}

// hasStore reports whether project p has a store: its own
// .claude/context (a real directory owned by this user, every directory
// on the way too), or its fallback store under home.
func hasStore(p, home string) bool {
	primary := filepath.Join(p, filepath.FromSlash(DefaultStorageLocation))
	if fi, err := os.Lstat(primary); err == nil && fi.IsDir() && checkStorePath(p, primary, nil) == nil {
		return true
	}
	return home != "" && isDir(FallbackDir(home, p))
}

// SameProject reports whether recorded, the project directory an archive
// was saved in (possibly written "~/…" by an export), names project (a
// canonical directory) or a directory inside it. An empty recorded
// directory is not known to be another project: true.
func SameProject(recorded, project, home string) bool {
	if recorded == "" {
		return true
	}
	if rest, ok := strings.CutPrefix(recorded, "~/"); ok && home != "" {
		recorded = filepath.Join(home, rest)
	} else if recorded == "~" && home != "" {
		recorded = home
	}
	p := filepath.Clean(recorded)
	if c, err := CanonicalDir(p); err == nil {
		p = c
	}
	return within(project, p)
}
