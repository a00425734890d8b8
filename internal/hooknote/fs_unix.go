//go:build !windows

package hooknote

import "golang.org/x/sys/unix"

// writableDir reports whether dir exists and this process may create files
// in it (one access(2) call; the light events skip the store's probe).
func writableDir(dir string) bool {
	return unix.Access(dir, unix.W_OK|unix.X_OK) == nil
}
