//go:build !windows

package store

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func isReadOnlyFS(err error) bool { return errors.Is(err, unix.EROFS) }

const (
	oNoFollow = unix.O_NOFOLLOW
	oNonBlock = unix.O_NONBLOCK
)

// isLinkErr: the open failed because of O_NOFOLLOW on a symbolic link.
func isLinkErr(err error) bool { return errors.Is(err, unix.ELOOP) }

// clearNonBlock puts a file opened O_NONBLOCK back into blocking mode.
func clearNonBlock(f *os.File) error {
	return unix.SetNonblock(int(f.Fd()), false)
}

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}

// writableDir reports whether this user may create files in dir.
func writableDir(dir string) bool {
	return unix.Access(dir, unix.W_OK|unix.X_OK) == nil
}
