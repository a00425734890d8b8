package hook

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrStateBusy: the state lock could not be taken in time.
var ErrStateBusy = errors.New("hook: state file is locked by another hook")

// lockFile takes an exclusive OS lock on path (created 0600), waiting at
// most wait. The OS releases it if the process dies.
func lockFile(path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hook: opening lock %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for sleep := time.Millisecond; ; sleep = min(sleep*2, 50*time.Millisecond) {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("hook: locking %s: %w", path, err)
		}
		if ok {
			return func() { _ = unlock(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s, waited %s)", ErrStateBusy, path, wait)
		}
		time.Sleep(sleep)
	}
}
