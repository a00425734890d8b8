//go:build windows

package hooknote

import "os"

// writableDir reports whether dir exists; Windows has no cheap
// permission check, so a failing write reports the problem instead.
func writableDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
