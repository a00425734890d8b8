//go:build !linux && !darwin

package hookfast

import "os"

// sysID: size and modification time alone identify a file elsewhere (a
// replacement of the same size with its modification time preserved goes
// unnoticed there).
func sysID(os.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
