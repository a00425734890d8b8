//go:build windows

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

func isReadOnlyFS(err error) bool {
	return errors.Is(err, windows.ERROR_WRITE_PROTECT) || errors.Is(err, windows.ERROR_ACCESS_DENIED)
}

const (
	oNoFollow = 0
	oNonBlock = 0
)

func isLinkErr(error) bool { return false }

func clearNonBlock(*os.File) error { return nil }

func ownedByMe(os.FileInfo) bool { return true }

// writableDir: Windows has no cheap access check; a full open's probe
// decides.
func writableDir(string) bool { return true }
