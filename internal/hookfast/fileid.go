package hookfast

import (
	"errors"
	"io/fs"
	"os"
)

// FileID identifies one state of a file: absent, or its size,
// modification time and (on Linux) inode and change time.
type FileID struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Size   int64  `json:"size,omitempty"`
	ModNs  int64  `json:"mtime,omitempty"`
	Ino    uint64 `json:"ino,omitempty"`
	CtNs   int64  `json:"ctime,omitempty"`
}

// StatFile returns the identity of path now. A file that cannot be
// stat'ed for another reason than not existing is reported as existing
// with no identity, which no later stat matches.
func StatFile(path string) FileID {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return FileID{Path: path}
		}
		return FileID{Path: path, Exists: true, Size: -1}
	}
	id := FileID{Path: path, Exists: true, Size: fi.Size(), ModNs: fi.ModTime().UnixNano()}
	id.Ino, id.CtNs = sysID(fi)
	return id
}
