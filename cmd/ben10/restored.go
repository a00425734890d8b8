package main

import (
	"fmt"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
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

// checkResume lets a (read from src) be restored as a session the user
// resumes, whose whole content the assistant then reads, only when this
// user's key authenticates it or the user opted in (optIn:
// --include-unauthenticated, or a FILE named on the command line); an
// unauthenticated archive restored on the opt-in gets a warning saying
// why it is not the user's own. The check runs on the archive the restore
// reads, not on a second open of its file.
func (g *globalOptions) checkResume(a *archive.Archive, src string, optIn bool) error {
	home, err := store.HomeDir()
	if err != nil {
		return err
	}
	k, _ := snapshot.UserAuthKey(home) // nil: nothing authenticates (TrustNoKey)
	return g.allowResume(src, index.TrustOf(a, k, false), optIn)
}

// allowResume is checkResume's rule for an archive (named what) of trust
// t (index.TrustUser, …): trusted content passes; other content is
// refused without optIn and passes with a warning with it.
func (g *globalOptions) allowResume(what, t string, optIn bool) error {
	if index.Trusted(t) {
		return nil
	}
	if !optIn {
		return fmt.Errorf("%s is not authenticated as yours (%s): a cloned repository or another program may have written it, so it is not restored as a session to resume; --include-unauthenticated restores it anyway", what, index.TrustReason(t))
	}
	if !g.quiet {
		fmt.Fprintf(g.io.ErrOut, "ben10: warning: %s is not authenticated as yours (%s): restoring it as you asked; read it before you resume it\n", what, index.TrustReason(t))
	}
	return nil
}
