package hookfast

import (
	"os"
	"syscall"
)

// sysID: the inode and change time, which no editor can set back.
func sysID(fi os.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctimespec.Nano()
	}
	return 0, 0
}
