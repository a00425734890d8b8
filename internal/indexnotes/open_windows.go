//go:build windows

package indexnotes

import (
	"fmt"
	"os"
)

// openAppend opens path for appending, creating it 0600; a symbolic link
// is refused.
func openAppend(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link (not followed)", path)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
}
