//go:build windows

package store

import (
	"errors"

	"golang.org/x/sys/windows"
)

func isReadOnlyFS(err error) bool {
	return errors.Is(err, windows.ERROR_WRITE_PROTECT) || errors.Is(err, windows.ERROR_ACCESS_DENIED)
}
