package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// DefaultLockTimeout is how long Lock waits when the configuration does not
// say otherwise (context.lock_timeout).
const DefaultLockTimeout = 2 * time.Second

// LockHolder is what a lock holder records in the lock file while it holds
// the lock. The record is advisory (for messages and stale-lock detection);
// the OS lock is what excludes.
type LockHolder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Since   time.Time `json:"since"`
	Session string    `json:"session,omitempty"`
}

// stale reports whether the recorded holder is a process on this host that
// no longer exists.
func (h LockHolder) stale(host string) bool {
	return h.PID > 0 && h.Host == host && h.PID != os.Getpid() && !ProcessAlive(h.PID)
}

func readHolder(path string) LockHolder {
	var h LockHolder
	data, err := ReadFileBounded(path, 4096)
	if err != nil || len(data) == 0 {
		return LockHolder{}
	}
	if json.Unmarshal(data, &h) != nil {
		return LockHolder{}
	}
	return h
}

// Lock takes the store's exclusive lock: first within this process (one
// holder per Store), then across processes with an OS file lock on
// <root>/.lock (flock on Unix, LockFileEx on Windows). It waits at most the
// configured lock timeout (context.lock_timeout, default 2 s) or until
// ctx's deadline, whichever comes first, and then returns a
// *LockTimeoutError (errors.Is ErrLockTimeout); a cancelled ctx returns
// ctx.Err(). The returned unlock function releases the
// lock; calling it more than once is harmless.
//
// Stale locks: the OS releases a file lock when its holder exits or is
// killed, so a crashed writer never leaves the store locked. While holding
// the lock, the holder writes its pid, host, start time and session into
// the lock file and empties it before unlocking. A lock can therefore only
// outlive its recorded holder when a descendant process inherited the
// locked descriptor. When Lock times out and the record names a process on
// this host that no longer exists, Lock treats the lock as stale: it
// removes the lock file and tries once more on a fresh one (a holder that
// locked the old, now unlinked file notices it on its next Lock because
// Lock checks that the locked descriptor is still the file at the lock
// path). Holders on other hosts are never considered stale.
func (s *Store) Lock(ctx context.Context) (unlock func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := s.lockTimeout
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	start := time.Now()
	// gaveUp is the error of a wait that ended without the lock: ctx's
	// when it was cancelled, else a timeout naming the holder h.
	gaveUp := func(h LockHolder) error {
		if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return &LockTimeoutError{Path: s.LockPath(), Holder: h,
			Waited: time.Since(start).Round(time.Millisecond).String()}
	}

	// In-process exclusion first: flock would let two descriptors of this
	// process conflict correctly, but the Store's held state is shared.
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	select {
	case s.mu <- struct{}{}:
	case <-wctx.Done():
		return nil, gaveUp(s.holderRecord())
	}
	release := func() { <-s.mu }

	if err := s.EnsureDir(s.root); err != nil {
		release()
		return nil, err
	}
	path := s.LockPath()
	delay := 2 * time.Millisecond
	broke := false
	for {
		f, err := OpenLockFile(path)
		if err != nil {
			release()
			return nil, fmt.Errorf("store: opening lock file: %w", err)
		}
		ok, err := tryLockFile(f)
		if err != nil {
			f.Close()
			release()
			return nil, fmt.Errorf("store: locking %s: %w", path, err)
		}
		if ok {
			if !lockedFileIsCurrent(f, path) {
				// A stale-lock breaker replaced the file after we
				// opened it: the lock we hold protects nothing.
				unlockFile(f)
				f.Close()
				continue
			}
			h := LockHolder{PID: os.Getpid(), Host: s.host, Since: time.Now().UTC(), Session: s.session}
			if data, err := json.Marshal(h); err == nil {
				// Advisory record; a failure here does not weaken the lock.
				if f.Truncate(0) == nil {
					f.WriteAt(data, 0)
				}
			}
			s.setHolder(h)
			s.held.Store(true)
			var once sync.Once
			var uerr error
			return func() error {
				once.Do(func() {
					s.held.Store(false)
					s.setHolder(LockHolder{})
					f.Truncate(0)
					uerr = unlockFile(f)
					if cerr := f.Close(); uerr == nil {
						uerr = cerr
					}
					release()
				})
				return uerr
			}, nil
		}
		f.Close()
		if !time.Now().Before(deadline) {
			h := readHolder(path)
			if !broke && h.stale(s.host) && s.stillStale(path, h) {
				broke = true
				if err := os.Remove(path); err == nil || errors.Is(err, fs.ErrNotExist) {
					s.addWarning(Warning{File: path, Message: fmt.Sprintf(
						"broke stale lock recorded for pid %d on %s (process no longer exists)", h.PID, h.Host)})
					deadline = time.Now().Add(timeout)
					continue
				}
			}
			release()
			return nil, gaveUp(h)
		}
		select {
		case <-ctx.Done():
			release()
			return nil, gaveUp(readHolder(path))
		case <-time.After(min(delay, time.Until(deadline))):
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

// stillStale re-checks a stale-looking holder record after a pause: a new
// holder that has just taken the lock released by a killed process rewrites
// the record within microseconds, so a record that is unchanged and still
// names a dead process while the lock is still held is truly stale.
func (s *Store) stillStale(path string, h LockHolder) bool {
	time.Sleep(20 * time.Millisecond)
	again := readHolder(path)
	if again != h || !again.stale(s.host) {
		return false
	}
	f, err := OpenFileRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLockFile(f)
	if err != nil {
		return false
	}
	if ok {
		// Free after all: let the normal loop take it.
		unlockFile(f)
		return false
	}
	return true
}

// lockedFileIsCurrent reports whether f is still the file at path.
func lockedFileIsCurrent(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	if err != nil {
		return false
	}
	return os.SameFile(fi, pi)
}

func (s *Store) setHolder(h LockHolder) {
	s.wmu.Lock()
	s.holder = h
	s.wmu.Unlock()
}

func (s *Store) holderRecord() LockHolder {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.holder
}

// Locked reports whether this Store currently holds its lock.
func (s *Store) Locked() bool { return s.held.Load() }

// LockTimeout is the timeout Lock applies.
func (s *Store) LockTimeout() time.Duration { return s.lockTimeout }

// WithLock runs fn while holding the store lock.
func (s *Store) WithLock(ctx context.Context, fn func() error) error {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return err
	}
	ferr := fn()
	return cmp.Or(ferr, unlock())
}

func (s *Store) requireLock(op string) error {
	if !s.held.Load() {
		return fmt.Errorf("%s: %w", op, ErrNotLocked)
	}
	return nil
}
