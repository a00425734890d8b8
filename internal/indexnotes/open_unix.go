//go:build !windows

package indexnotes

import (
	"os"
	"syscall"
)

// openAppend opens path for appending, creating it 0600, never through a
// symbolic link.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
}
