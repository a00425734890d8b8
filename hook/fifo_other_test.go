//go:build !unix

package hook

import "errors"

// mkfifo: the platform has no named pipes in its file system.
func mkfifo(string) error { return errors.ErrUnsupported }
