//go:build unix

package snapshot

import (
	"os"
	"syscall"
)

func fileIdentity(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
