package store

import (
	"errors"
	"fmt"
	"time"
)

// ErrFileLockTimeout: LockFile could not take the lock in time.
var ErrFileLockTimeout = errors.New("store: file is locked by another process")

// LockFile takes an exclusive OS lock (flock on Unix, LockFileEx on
// Windows) on path, created 0600, waiting at most wait. The OS releases
// it if the process dies. It is the bare primitive under (*Store).Lock,
// for small side files (such as the hook state) that have their own
// lock: no holder record, no stale-lock breaking, no pending files.
func LockFile(path string, wait time.Duration) (unlock func(), err error) {
	f, err := OpenLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: opening lock %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for sleep := time.Millisecond; ; sleep = min(sleep*2, 50*time.Millisecond) {
		ok, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("store: locking %s: %w", path, err)
		}
		if ok {
			return func() { _ = unlockFile(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s, waited %s)", ErrFileLockTimeout, path, wait)
		}
		time.Sleep(sleep)
	}
}
