package hooknote

import (
	"os"

	"golang.org/x/sys/unix"
)

// rewriteSpare replaces the file at dst with data through spare, a file
// beside it that holds dst's previous version: spare is truncated and
// rewritten in place, then the two names are exchanged atomically
// (renameat2 RENAME_EXCHANGE). No inode is allocated or freed, which on
// ext4 costs more than the rest of a small atomic replace (the allocator
// scans for an inode that was not recently deleted). ok is false when
// spare or dst does not exist, or the file system cannot exchange; the
// caller then replaces dst the ordinary way, and that leaves a spare for
// the next time.
func rewriteSpare(spare, dst string, data []byte) (ok bool) {
	f, err := os.OpenFile(spare, os.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || f.Truncate(0) != nil {
		f.Close()
		return false
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return false
	}
	return unix.Renameat2(unix.AT_FDCWD, spare, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE) == nil
}

// replaceKeepingSpare puts the new file at spare in dst's place. When dst
// exists the names are exchanged, which leaves dst's previous version at
// spare for rewriteSpare to reuse; otherwise it is a rename.
func replaceKeepingSpare(spare, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		if unix.Renameat2(unix.AT_FDCWD, spare, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE) == nil {
			return nil
		}
	}
	return os.Rename(spare, dst)
}
