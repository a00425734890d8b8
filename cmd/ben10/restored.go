package main

import (
	"fmt"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// restoreResumable is snapshot.RestoreResumable for the commands: the
// transcript written is recorded as Ben10's copy (a warning on stderr
// when it cannot be).
func (g *globalOptions) restoreResumable(a *archive.Archive, source string, opts archive.RestoreOptions) (*archive.RestoreResult, error) {
	home, err := store.HomeDir()
	if err != nil {
		return nil, err
	}
	res, warn, err := snapshot.RestoreResumable(a, home, source, opts)
	if warn != nil && !g.quiet {
		fmt.Fprintf(g.io.ErrOut, "ben10: warning: %v\n", warn)
	}
	return res, err
}

// checkForeignIn refuses to restore an archive saved in another project
// than the one dir belongs to unless --force is given; with it, it warns
// (the session's working directory is mapped to the project by
// archive.Restore).
func (g *globalOptions) checkForeignIn(a *archive.Archive, src, dir string, force bool) error {
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	project, err := store.ResolveProject(dir, home)
	if err != nil {
		return err
	}
	rec := a.Meta().DirectoryPath
	if store.SameProject(rec, project, home) {
		return nil
	}
	if !force {
		return fmt.Errorf("%s was saved in another project (%s), not %s: pass --force to restore it here (its working directory is then mapped to this project)", src, rec, project)
	}
	if !g.quiet {
		fmt.Fprintf(g.io.ErrOut, "ben10: warning: %s was saved in another project (%s); restoring into %s with its working directory mapped\n", src, rec, project)
	}
	return nil
}
