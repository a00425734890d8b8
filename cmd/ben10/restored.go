package main

import (
	"fmt"
	"os"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// restoreResumable is snapshot.RestoreResumable for the commands: the
// transcript written is recorded as Ben10's copy (a warning on stderr
// when it cannot be).
func restoreResumable(a *archive.Archive, source string, opts archive.RestoreOptions) (*archive.RestoreResult, error) {
	home, err := store.HomeDir()
	if err != nil {
		return nil, err
	}
	res, warn, err := snapshot.RestoreResumable(a, home, source, opts)
	if warn != nil && !globalFlags.quiet {
		fmt.Fprintf(os.Stderr, "ben10: warning: %v\n", warn)
	}
	return res, err
}
