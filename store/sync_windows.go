//go:build windows

package store

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// SyncDir is a no-op on Windows: directories cannot be opened for
// FlushFileBuffers there, and NTFS journals the rename made by
// MoveFileEx(MOVEFILE_REPLACE_EXISTING), which os.Rename uses.
func SyncDir(dir string) error { return nil }

// renameReplace renames oldpath over newpath with os.Rename
// (MoveFileEx with MOVEFILE_REPLACE_EXISTING). A reader holding newpath
// open without FILE_SHARE_DELETE makes the rename fail with a sharing
// violation or access denied for a moment, so it retries for up to a
// second.
func renameReplace(oldpath, newpath string) error {
	var err error
	for i := 0; i < 20; i++ {
		err = os.Rename(oldpath, newpath)
		if err == nil {
			return nil
		}
		if !errors.Is(err, windows.ERROR_SHARING_VIOLATION) && !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}
