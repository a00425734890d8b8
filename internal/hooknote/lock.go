package hooknote

import (
	"errors"
	"fmt"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// ErrStateBusy: the state lock could not be taken in time.
var ErrStateBusy = errors.New("hook: state file is locked by another hook")

// lockFile takes the hook state's own OS lock (store.LockFile), waiting at
// most wait.
func lockFile(path string, wait time.Duration) (func(), error) {
	unlock, err := store.LockFile(path, wait)
	if errors.Is(err, store.ErrFileLockTimeout) {
		return nil, fmt.Errorf("%w (%s, waited %s)", ErrStateBusy, path, wait)
	}
	return unlock, err
}
