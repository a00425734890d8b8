package snapshot

import (
	"fmt"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
)

// RestoreResumable writes a's transcript into the assistant's session
// folder as a resumable session (see archive.Restore) and records the
// files written in the registry of restored transcripts under home (see
// store.RecordRestored): until the assistant appends to them, the watcher
// and `context save` know them for Ben10's copy of a saved session, not a
// live one. source names the archive. A registry that cannot be written
// is returned as a warning; the restore itself stands.
func RestoreResumable(a *archive.Archive, home, source string, opts archive.RestoreOptions) (res *archive.RestoreResult, warning error, err error) {
	res, err = a.Restore(opts)
	if err != nil {
		return res, nil, err
	}
	if err := store.RecordRestored(home, source, res.Files); err != nil {
		return res, fmt.Errorf("the restored session may be taken for a live one by the watcher: %w", err), nil
	}
	return res, nil, nil
}
