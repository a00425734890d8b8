//go:build unix

package archive_test

import "syscall"

type syscallStat struct{}

// diskBytes is the space the file at p takes on disk.
func (syscallStat) diskBytes(p string) (int64, bool) {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil {
		return 0, false
	}
	return st.Blocks * 512, true
}
