//go:build !linux

package hooknote

import "os"

// rewriteSpare is the in-place exchange of the Linux build; elsewhere the
// caller replaces the file the ordinary way.
func rewriteSpare(spare, dst string, data []byte) bool { return false }

// replaceKeepingSpare renames spare over dst.
func replaceKeepingSpare(spare, dst string) error { return os.Rename(spare, dst) }
