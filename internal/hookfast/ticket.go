package hookfast

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// A Ticket is what the fast path of UserPromptSubmit needs of a project:
// where its store is and when a prompt checkpoints. Resolving that takes
// the YAML configuration (~/.claude-code/config.yaml and
// <project>/.claude/config.yaml) and the store's location rules, which the
// `ben10-hook` shim does not link; so the full `ben10 hook` writes the
// result into a ticket whenever it resolves them on that path, with the
// identity of every configuration file it read, and the shim uses the
// ticket only while every one of those files is unchanged (see Valid).
// Anything else — no ticket, a changed or new configuration file, a moved
// store — sends the prompt to the full binary, which writes a new ticket.
//
// A ticket is a cache, never user data: it lives in
// ~/.claude-code/hook-fast/<DirHash of the project>.json, written
// atomically (temporary file + rename, 0600), not fsynced; a torn or
// damaged one is ignored.
type Ticket struct {
	Version int    `json:"v"`
	Project string `json:"project"` // canonical project directory
	Root    string `json:"root"`    // the store directory
	// Primary is set when Root is the fallback store: the project's own
	// store location, which must still not be a directory (once it is,
	// the store resolves to it).
	Primary string   `json:"primary,omitempty"`
	Pacing  Pacing   `json:"pacing"`
	Files   []FileID `json:"files"` // the configuration files, present or not
}

// TicketVersion is the current ticket layout.
const TicketVersion = 1

// maxTicketBytes bounds what LoadTicket reads.
const maxTicketBytes = 64 << 10

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

// StatFiles returns the identities of paths.
func StatFiles(paths ...string) []FileID {
	ids := make([]FileID, len(paths))
	for i, p := range paths {
		ids[i] = StatFile(p)
	}
	return ids
}

// SameFiles reports whether two identity lists describe the same files in
// the same states. An unreadable file (Size -1) matches nothing.
func SameFiles(a, b []FileID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] || a[i].Size < 0 {
			return false
		}
	}
	return true
}

// TicketPath is the ticket of the canonical project directory.
func TicketPath(home, project string) string {
	return filepath.Join(home, ".claude-code", "hook-fast", DirHash(project)+".json")
}

// LoadTicket reads the ticket of project and returns it when it is still
// valid (see Valid).
func LoadTicket(home, project string) (*Ticket, bool) {
	f, err := os.Open(TicketPath(home, project))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTicketBytes+1))
	if err != nil || len(data) == 0 || len(data) > maxTicketBytes {
		return nil, false
	}
	var t Ticket
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, false
	}
	if t.Project != project || !t.Valid() {
		return nil, false
	}
	return &t, true
}

// Valid reports whether the ticket still describes its project: its
// layout is current, it names a store and at least one configuration
// file, every configuration file is in the state it was read in, and a
// fallback store's primary location is still not a directory.
func (t *Ticket) Valid() bool {
	if t.Version != TicketVersion || t.Project == "" || !filepath.IsAbs(t.Root) || len(t.Files) == 0 {
		return false
	}
	for _, f := range t.Files {
		if f.Size < 0 || StatFile(f.Path) != f {
			return false
		}
	}
	if t.Primary != "" {
		if fi, err := os.Stat(t.Primary); err == nil && fi.IsDir() {
			return false
		}
	}
	return true
}

// Same reports whether two tickets say the same thing.
func (t *Ticket) Same(o *Ticket) bool {
	return t.Version == o.Version && t.Project == o.Project && t.Root == o.Root &&
		t.Primary == o.Primary && t.Pacing == o.Pacing && SameFiles(t.Files, o.Files)
}

// WriteTicket replaces the ticket of t.Project under home atomically.
func WriteTicket(home string, t *Ticket) error {
	t.Version = TicketVersion
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	p := TicketPath(home, t.Project)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, TempPrefix+strconv.Itoa(os.Getpid())+"-"+filepath.Base(p))
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
