package archive

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// safeRelName checks that an archive-supplied file name stays inside its
// target directory: relative, slash-separated, no "..", no empty or dot
// components, no NUL.
func safeRelName(name string) error {
	if name == "" || strings.ContainsRune(name, 0) || strings.Contains(name, "\\") ||
		path.IsAbs(name) || filepath.IsAbs(name) || path.Clean(name) != name {
		return fmt.Errorf("archive: unsafe file name %q in archive", name)
	}
	for _, c := range strings.Split(name, "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("archive: unsafe file name %q in archive", name)
		}
	}
	return nil
}

// writeNew writes data to p atomically and never replaces an existing
// file: the bytes go to a temporary file in the same directory, which is
// synced and then hard-linked to p (the link fails if p exists), and the
// directory is synced. Directories are created with mode 0700, the file
// with 0600.
func writeNew(p string, data []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if _, err := os.Lstat(p); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, p)
	}
	f, err := os.CreateTemp(dir, ".ben10-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w: %s", ErrExists, p)
		}
		// Filesystems without hard links: rename after a fresh check.
		if _, serr := os.Lstat(p); serr == nil {
			return fmt.Errorf("%w: %s", ErrExists, p)
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
