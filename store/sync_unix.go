//go:build !windows

package store

import "os"

// SyncDir fsyncs a directory so that a rename or create inside it is
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// renameReplace renames oldpath over newpath; rename(2) replaces
// atomically.
func renameReplace(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
