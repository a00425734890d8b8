package hookstart

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/store"
)

// startupDomain separates a startup record's MAC from every other use of
// the user's key (the prepared recall's, the summary's, archives').
const startupDomain = "ben10 startup record v1"

// startupSuffix ends the name of a startup record in the prepared/
// directory (a prepared recall's ends in ".recall").
const startupSuffix = ".start"

// FileID identifies one state of a saved context file: its path within
// the store root (slash-separated), size, modification time and, where
// the platform tells them, inode and change time. A startup record
// describes the file only while its identity is unchanged: a file
// rewritten, replaced or edited since has no record.
type FileID struct {
	File  string `json:"file"`
	Size  int64  `json:"size"`
	ModNs int64  `json:"mtime"`
	Ino   uint64 `json:"ino,omitempty"`
	CtNs  int64  `json:"ctime,omitempty"`
}

// StatSaved returns the identity of the saved context file at path, which
// must be a regular file (not a symbolic link) inside st's root.
func StatSaved(st *store.Store, path string) (FileID, error) {
	rel, err := filepath.Rel(st.Root(), path)
	if err != nil || !filepath.IsLocal(rel) {
		return FileID{}, fmt.Errorf("%w: %s is not inside the store %s", ErrNotPrepared, path, st.Root())
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return FileID{}, fmt.Errorf("%w: %w", ErrNotPrepared, err)
	}
	if !fi.Mode().IsRegular() {
		return FileID{}, fmt.Errorf("%w: %s is not a regular file (%s)", ErrNotPrepared, path, fi.Mode().Type())
	}
	id := hookfast.StatFile(path)
	if !id.Exists || id.Size != fi.Size() || id.ModNs != fi.ModTime().UnixNano() {
		return FileID{}, fmt.Errorf("%w: %s changed while looked at", ErrNotPrepared, path)
	}
	return FileID{File: filepath.ToSlash(rel), Size: id.Size, ModNs: id.ModNs, Ino: id.Ino, CtNs: id.CtNs}, nil
}

// startupRecordPath is the startup record of the file named rel (within
// the store root).
func startupRecordPath(root, rel string) (string, error) {
	name := strings.ReplaceAll(rel, "/", "-")
	if !safeID(name) {
		return "", fmt.Errorf("%w: %q cannot name a startup record", ErrNotPrepared, rel)
	}
	return filepath.Join(root, PreparedDir, name+startupSuffix), nil
}

// startupBody is what a startup record holds after its tag line.
type startupBody struct {
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	File    FileID    `json:"file"`
	Saved   Saved     `json:"saved"`
}

// WriteStartupRecord writes the startup record of the saved context file
// whose identity id was taken (StatSaved) before sv was read from it: a
// 0600 file in the store's prepared/ directory, written atomically and
// never through a symbolic link, whose first line is the hexadecimal MAC
// under the user's key of the project, the file's path within the store
// and the rest of the record (the file's identity and sv). The light hook
// then decides SessionStart(startup|clear) without opening the archive. A
// file that changed since id was taken gets no record.
func WriteStartupRecord(st *store.Store, id FileID, sv Saved, now time.Time) error {
	if sv.RecallErr != nil {
		return fmt.Errorf("recording %s for the next session start: %w", id.File, sv.RecallErr)
	}
	if sv.Authentic && sv.Recall == nil {
		return fmt.Errorf("recording %s for the next session start: no recall stored", id.File)
	}
	if !sv.Authentic {
		sv.Recall = nil // never injected: not kept
	}
	p, err := startupRecordPath(st.Root(), id.File)
	if err != nil {
		return err
	}
	body, err := json.Marshal(startupBody{Version: 1, Created: now, File: id, Saved: sv})
	if err != nil {
		return fmt.Errorf("recording %s for the next session start: %w", id.File, err)
	}
	if now, err := StatSaved(st, filepath.Join(st.Root(), filepath.FromSlash(id.File))); err != nil || now != id {
		return fmt.Errorf("recording %s for the next session start: the file changed while read", id.File)
	}
	return writeTagged(st, p, startupDomain, body, []byte(id.File))
}

// ReadStartupRecord returns what the startup record of candidate c says
// of it. Anything but a record WriteStartupRecord wrote under key for
// this project and this file, unchanged since — missing, a symbolic link,
// not a regular file, oversized, truncated, forged, another file's or
// another project's, or describing an earlier state of the file — is
// ErrNotPrepared, wrapped with the reason.
func ReadStartupRecord(st *store.Store, key []byte, c Candidate) (Saved, error) {
	id, err := StatSaved(st, c.Path)
	if err != nil {
		return Saved{}, err
	}
	p, err := startupRecordPath(st.Root(), id.File)
	if err != nil {
		return Saved{}, err
	}
	body, err := readTagged(st, key, p, startupDomain, []byte(id.File))
	if err != nil {
		return Saved{}, err
	}
	var b startupBody
	if err := json.Unmarshal(body, &b); err != nil {
		return Saved{}, fmt.Errorf("%w: %s: %w", ErrNotPrepared, p, err)
	}
	if b.Version != 1 {
		return Saved{}, fmt.Errorf("%w: %s is version %d", ErrNotPrepared, p, b.Version)
	}
	if b.File != id {
		return Saved{}, fmt.Errorf("%w: %s describes an earlier state of %s", ErrNotPrepared, p, id.File)
	}
	return b.Saved, nil
}

// Recorded are the light hook's startup sources: the startup records
// only. Any candidate without a valid record, or an assistant's
// checkpoint in digests/, hands the event to `ben10 hook`.
func Recorded(c *hooknote.Call) StartupSources {
	// The key is read (or created) at the first candidate only, as
	// `ben10 hook` does: a start with auto-restore off or nothing saved
	// creates nothing.
	key := sync.OnceValue(func() []byte { return AuthKey(c.St) })
	return StartupSources{Saved: func(cand Candidate) (Saved, error) { return ReadStartupRecord(c.St, key(), cand) }}
}

// SweepStartupRecords removes the startup records of files that are no
// longer among cands (rotated or removed by retention).
func SweepStartupRecords(st *store.Store, cands []Candidate) error {
	dir := filepath.Join(st.Root(), PreparedDir)
	if err := store.CheckDir(dir); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, c := range cands {
		if rel, err := filepath.Rel(st.Root(), c.Path); err == nil {
			if p, err := startupRecordPath(st.Root(), filepath.ToSlash(rel)); err == nil {
				keep[filepath.Base(p)] = true
			}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sweeping startup records: %w", err)
	}
	var errs []error
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, startupSuffix) && !keep[n] {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// writeTagged writes body to p in the store's prepared/ directory, its
// first line the hexadecimal MAC under the user's key, in domain, of the
// project, the fields and body.
func writeTagged(st *store.Store, p, domain string, body []byte, fields ...[]byte) error {
	key := AuthKey(st)
	if key == nil {
		return errors.New("preparing for SessionStart: the authentication key (~/.claude-code/auth.key) is unusable")
	}
	if len(body)+65 > MaxPreparedBytes {
		return fmt.Errorf("preparing %s: %d bytes, over the %d a prepared file may hold", filepath.Base(p), len(body), MaxPreparedBytes)
	}
	dir := filepath.Dir(p)
	if err := store.CheckDir(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("preparing for SessionStart: %w", err)
	}
	if err := store.CheckDir(dir); err != nil {
		return err
	}
	tag := hex.EncodeToString(tagOf(key, domain, st.ProjectDir(), body, fields))
	return store.WriteFileAtomic(p, append([]byte(tag+"\n"), body...))
}

// readTagged reads the file p that writeTagged wrote with the same domain
// and fields under key and returns its body; anything else is
// ErrNotPrepared.
func readTagged(st *store.Store, key []byte, p, domain string, fields ...[]byte) ([]byte, error) {
	if key == nil {
		return nil, fmt.Errorf("%w: the authentication key is unusable", ErrNotPrepared)
	}
	if err := store.CheckDir(filepath.Dir(p)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotPrepared, err)
	}
	data, err := store.ReadFileBounded(p, MaxPreparedBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotPrepared, err)
	}
	tagHex, body, ok := bytes.Cut(data, []byte("\n"))
	tag := make([]byte, sha256.Size)
	if !ok || len(tagHex) != 2*sha256.Size {
		return nil, fmt.Errorf("%w: %s has no tag line", ErrNotPrepared, p)
	}
	if _, err := hex.Decode(tag, tagHex); err != nil || !hmac.Equal(tag, tagOf(key, domain, st.ProjectDir(), body, fields)) {
		return nil, fmt.Errorf("%w: %s is not authenticated for this project", ErrNotPrepared, p)
	}
	return body, nil
}

// tagOf is the MAC of a prepared file: Sum over the project, the fields
// and the body.
func tagOf(key []byte, domain, project string, body []byte, fields [][]byte) []byte {
	all := append([][]byte{[]byte(project)}, fields...)
	return Sum(key, domain, append(all, body)...)
}
