package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
)

// TempPrefix starts the name of every temporary file this package creates.
// Sweep removes old files with this prefix; nothing else ever does.
const TempPrefix = hookfast.TempPrefix

// SweepAge is how old a leftover temporary file must be before Open's sweep
// removes it. A writer holds its temporary file for milliseconds; an hour
// leaves a wide margin for slow disks and network file systems.
const SweepAge = time.Hour

// AtomicFile is a file that appears at its final path complete or not at
// all. Write to it like an *os.File, then Commit; on any error, Abort. It
// lives in the destination's directory under a TempPrefix name until Commit
// fsyncs it, renames it over the destination and fsyncs the directory.
type AtomicFile struct {
	f    *os.File
	path string
	tmp  string
	done bool
}

// CreateAtomic starts an atomic write of path with the given permission
// bits (0600 for user data). The directory must exist.
func CreateAtomic(path string, perm os.FileMode) (*AtomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, fmt.Errorf("store: temp name for %s: %w", path, err)
	}
	name := TempPrefix + base + "-" + hex.EncodeToString(rnd[:])
	if len(name) > 200 { // keep well inside NAME_MAX
		name = TempPrefix + hex.EncodeToString(rnd[:])
	}
	tmp := filepath.Join(dir, name)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, fmt.Errorf("store: creating temporary file for %s: %w", path, err)
	}
	// The umask may have narrowed perm; a wider umask cannot widen it.
	// Set it explicitly so a config file keeps e.g. 0644.
	if err := f.Chmod(perm); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("store: chmod %s: %w", tmp, err)
	}
	return &AtomicFile{f: f, path: path, tmp: tmp}, nil
}

// Name returns the final path.
func (a *AtomicFile) Name() string { return a.path }

// TempName returns the temporary file's path.
func (a *AtomicFile) TempName() string { return a.tmp }

// Write appends p to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) {
	if a.done {
		return 0, ErrAborted
	}
	return a.f.Write(p)
}

// Commit flushes the data to stable storage and renames the temporary file
// over the final path, then fsyncs the directory so the rename itself is
// durable. On failure the temporary file is removed and the previous
// content of the final path (if any) is untouched.
func (a *AtomicFile) Commit() error {
	if a.done {
		return ErrAborted
	}
	a.done = true
	if err := a.f.Sync(); err != nil {
		a.f.Close()
		os.Remove(a.tmp)
		return fmt.Errorf("store: fsync %s: %w", a.tmp, err)
	}
	if err := a.f.Close(); err != nil {
		os.Remove(a.tmp)
		return fmt.Errorf("store: close %s: %w", a.tmp, err)
	}
	if err := renameReplace(a.tmp, a.path); err != nil {
		os.Remove(a.tmp)
		return fmt.Errorf("store: rename into %s: %w", a.path, err)
	}
	if err := SyncDir(filepath.Dir(a.path)); err != nil {
		return fmt.Errorf("store: fsync directory of %s: %w", a.path, err)
	}
	return nil
}

// Abort discards the temporary file. It is safe to call after Commit (it
// then does nothing), so `defer f.Abort()` is the usual pattern.
func (a *AtomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	cerr := a.f.Close()
	rerr := os.Remove(a.tmp)
	if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		return fmt.Errorf("store: removing %s: %w", a.tmp, rerr)
	}
	if cerr != nil && !errors.Is(cerr, os.ErrClosed) {
		return fmt.Errorf("store: closing %s: %w", a.tmp, cerr)
	}
	return nil
}

// WriteFileAtomic replaces path with data atomically, creating it with mode
// 0600: a reader sees the old content or the new, never a mixture, and
// after a crash the file holds one of the two.
func WriteFileAtomic(path string, data []byte) error {
	return writeFileAtomicPerm(path, data, 0o600)
}

func writeFileAtomicPerm(path string, data []byte, perm os.FileMode) error {
	a, err := CreateAtomic(path, perm)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write(data); err != nil {
		return fmt.Errorf("store: writing %s: %w", a.tmp, err)
	}
	return a.Commit()
}

// Sweep removes temporary files left in dir by writers that crashed: only
// regular files whose name starts with TempPrefix and whose modification
// time is older than olderThan. It returns the paths it removed.
func Sweep(dir string, olderThan time.Duration, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("store: sweeping %s: %w", dir, err)
	}
	var removed []string
	var firstErr error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), TempPrefix) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // vanished meanwhile
		}
		if now.Sub(info.ModTime()) < olderThan {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if firstErr == nil {
				firstErr = fmt.Errorf("store: sweeping %s: %w", p, err)
			}
			continue
		}
		removed = append(removed, p)
	}
	return removed, firstErr
}
