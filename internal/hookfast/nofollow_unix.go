//go:build unix

package hookfast

import "syscall"

// Open flags for files in a project's store: never follow a symbolic link,
// never block on a FIFO or device.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)
