//go:build !unix

package archive

import "os"

// grownMapped is for tests (see grown_mmap_unix.go).
var grownMapped func()

// readMapped never maps off unix: ReadGrown streams the prefix.
func readMapped(f *os.File, from int, h *chunkHasher, scan func(b []byte, off int), last *byte) (mapped, shrank bool, err error) {
	return false, false, nil
}
