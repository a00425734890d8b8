//go:build unix

package watch

import "golang.org/x/sys/unix"

// ProcessAlive reports whether a process with pid exists (it may belong
// to another user).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}
