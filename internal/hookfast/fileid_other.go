//go:build !linux

package hookfast

import "os"

// sysID: size and modification time identify a file elsewhere.
func sysID(os.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
