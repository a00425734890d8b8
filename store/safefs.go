package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUnsafePath: a path of the store, or a file Ben10 reads from it, is
// not what Ben10 itself creates there — a symbolic link, a FIFO, a device,
// a directory where a file belongs, a file owned by someone else, or a
// file larger than its limit. Everything in a project directory comes with
// the repository, so Ben10 never follows such a path: it refuses it with
// this error (and a store inside the project then falls back to the store
// under ~/.claude-code).
var ErrUnsafePath = errors.New("store: unsafe path")

// Size limits of the small files Ben10 reads from a store.
const (
	MaxMetaBytes      = 1 << 20 // current.ctx.meta
	MaxSmallFileBytes = 4 << 20 // other bookkeeping files
	maxGitignoreBytes = 4 << 20
)

// ReadFileBounded reads the regular file at path, at most limit bytes. It
// never follows a symbolic link at path and never blocks on a FIFO or a
// device: the file is opened non-blocking without following links, then
// checked with fstat before a byte is read. A link, a non-regular file or
// a larger file is ErrUnsafePath; a missing file wraps fs.ErrNotExist.
func ReadFileBounded(path string, limit int64) ([]byte, error) {
	f, err := OpenFileRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d this file may hold", ErrUnsafePath, path, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("store: reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s grew past %d bytes while read", ErrUnsafePath, path, limit)
	}
	return data, nil
}

// OpenFileRegular opens path for reading without following a symbolic
// link at path and without blocking (a FIFO or device is refused after
// the open, before any read), and returns it only when it is a regular
// file. Errors wrap ErrUnsafePath or the open's error (fs.ErrNotExist for
// a missing file).
func OpenFileRegular(path string) (*os.File, error) {
	return openRegular(path, os.O_RDONLY|oNoFollow, 0)
}

// openRegular opens path with flag and perm, and returns it only when it
// is a regular file. It opens non-blocking (cleared again once the file is
// known to be regular), so that a FIFO or a device never blocks; with
// oNoFollow in flag, a symbolic link at path is refused.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|oNonBlock, perm)
	if err != nil {
		if isLinkErr(err) {
			return nil, fmt.Errorf("%w: %s is a symbolic link (not followed)", ErrUnsafePath, path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is not a regular file (%s)", ErrUnsafePath, path, fi.Mode().Type())
	} else if err == nil {
		err = clearNonBlock(f)
	}
	if err != nil {
		f.Close()
		if !errors.Is(err, ErrUnsafePath) {
			err = fmt.Errorf("store: %s: %w", path, err)
		}
		return nil, err
	}
	return f, nil
}

// CreateExclusive creates path for writing, failing when anything (a
// file, a dangling or live symbolic link) is already there: O_CREATE |
// O_EXCL never follows a link.
func CreateExclusive(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
	if err != nil {
		return nil, fmt.Errorf("store: creating %s: %w", path, err)
	}
	return f, nil
}

// OpenLockFile opens (creating it 0600) a lock file without following a
// symbolic link, and only when it is a regular file.
func OpenLockFile(path string) (*os.File, error) {
	return openRegular(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
}

// CheckDir reports ErrUnsafePath unless dir is missing or a real
// directory (not a symbolic link) owned by this user.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, _ := os.Readlink(dir)
		return fmt.Errorf("%w: %s is a symbolic link to %s (Ben10 never creates links in a store and does not follow them)", ErrUnsafePath, dir, t)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (%s)", ErrUnsafePath, dir, fi.Mode().Type())
	}
	if !ownedByMe(fi) {
		return fmt.Errorf("%w: %s is owned by another user", ErrUnsafePath, dir)
	}
	return nil
}

// checkStorePath checks, for a store root inside project, every directory
// from the project down to root and root's subdirectories: each must be
// missing or a real directory owned by this user.
func checkStorePath(project, root string, subdirs []string) error {
	rel, err := filepath.Rel(project, root)
	if err != nil {
		return err
	}
	p := project
	if rel != "." {
		for _, part := range splitPath(rel) {
			p = filepath.Join(p, part)
			if err := CheckDir(p); err != nil {
				return err
			}
		}
	}
	for _, d := range subdirs {
		if err := CheckDir(d); err != nil {
			return err
		}
	}
	if subdirs == nil {
		return nil
	}
	// The store's own files (current.ctx, its meta, the locks, the hook
	// state): Ben10 creates regular files only.
	des, err := os.ReadDir(root)
	if err != nil {
		return nil // missing, or reported when it is used
	}
	for _, d := range des {
		if t := d.Type(); t&(fs.ModeSymlink|fs.ModeNamedPipe|fs.ModeDevice|fs.ModeSocket|fs.ModeCharDevice) != 0 {
			return fmt.Errorf("%w: %s is %s (Ben10 creates only regular files and directories in a store)", ErrUnsafePath, filepath.Join(root, d.Name()), describeType(t))
		}
	}
	return nil
}

func describeType(t fs.FileMode) string {
	switch {
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a device"
}

func splitPath(rel string) []string {
	var parts []string
	for rel != "." && rel != "" && rel != string(filepath.Separator) {
		dir, base := filepath.Split(rel)
		parts = append([]string{base}, parts...)
		rel = filepath.Clean(dir)
		if dir == "" {
			break
		}
	}
	return parts
}
