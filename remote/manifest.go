package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// Entry kinds: what an entry was in the pusher's store.
const (
	KindCurrent  = "current"
	KindHistory  = "history"
	KindSnapshot = "snapshot"
)

// Entry is one pushed archive: the session's redacted, stripped raw
// transcript files as chunk lists, and what the pulling side needs to
// rebuild the archive.
type Entry struct {
	// ID is a keyed hash of the session and the files' contents: the same
	// content pushed twice (or by two teammates) is one entry.
	ID      string    `json:"id"`
	Project string    `json:"project"`
	Kind    string    `json:"kind"`
	Name    string    `json:"name"`
	Session string    `json:"session"`
	Harness string    `json:"harness"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Pushed  time.Time `json:"pushed"`
	// Trigger is a snapshot's trigger ("threshold", "manual", …).
	Trigger string `json:"trigger,omitempty"`
	// ArchiveBytes is the size of the archive in the pusher's store.
	ArchiveBytes int64  `json:"archive_bytes"`
	Files        []File `json:"files"`
}

// File is one raw transcript file of an entry.
type File struct {
	// Name is the archive's relative name ("<session>.jsonl",
	// "<session>/subagents/agent-….jsonl").
	Name   string     `json:"name"`
	Size   int64      `json:"size"`
	SHA256 string     `json:"sha256"`
	Chunks []ChunkRef `json:"chunks"`
}

// ChunkRef is one chunk of a file: its id and plaintext size.
type ChunkRef struct {
	ID   string `json:"id"`
	Size int    `json:"size"`
}

// Size is the sum of the entry's file sizes.
func (e *Entry) Size() int64 {
	var n int64
	for _, f := range e.Files {
		n += f.Size
	}
	return n
}

// entryID computes e.ID from the session and the files.
func (k *Key) entryID(e *Entry) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "entry\x00%s\x00%s\x00", e.Harness, e.Session)
	for _, f := range e.Files {
		fmt.Fprintf(&b, "%s\x00%s\x00", f.Name, f.SHA256)
	}
	return k.mac(b.Bytes())[:32]
}

// manifest is the payload of one manifest object: the entries one push
// added. Manifest objects are never rewritten; readers merge them all.
type manifest struct {
	Version int     `json:"version"`
	Project string  `json:"project"`
	Entries []Entry `json:"entries"`
}

// maxManifest caps a manifest's decoded size.
const maxManifest = 64 << 20

// validate checks what pull relies on: names that stay inside the target
// directory, sizes that add up, well-formed ids.
func (e *Entry) validate() error {
	if !hexRe.MatchString(e.ID) || len(e.ID) != 32 {
		return fmt.Errorf("entry id %q", e.ID)
	}
	if len(e.Files) == 0 {
		return fmt.Errorf("entry %s has no files", e.ID)
	}
	for _, f := range e.Files {
		if err := safeRel(f.Name); err != nil {
			return fmt.Errorf("entry %s: %w", e.ID, err)
		}
		var n int64
		for _, c := range f.Chunks {
			if !hexRe.MatchString(c.ID) || len(c.ID) != 64 || c.Size <= 0 || c.Size > MaxChunk {
				return fmt.Errorf("entry %s: file %s: bad chunk %q (%d bytes)", e.ID, f.Name, c.ID, c.Size)
			}
			n += int64(c.Size)
		}
		if n != f.Size {
			return fmt.Errorf("entry %s: file %s: chunks add up to %d bytes, not %d", e.ID, f.Name, n, f.Size)
		}
	}
	return nil
}

var hexRe = regexp.MustCompile(`^[0-9a-f]+$`)

// safeRel accepts a relative slash-separated name without . or ..
// elements.
func safeRel(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || strings.ContainsRune(name, 0) || len(name) > 512 {
		return fmt.Errorf("unsafe file name %q", name)
	}
	for _, p := range strings.Split(name, "/") {
		if p == "" || p == "." || p == ".." {
			return fmt.Errorf("unsafe file name %q", name)
		}
	}
	return nil
}

// mergeEntries merges manifests: one entry per id (the earliest pushed),
// sorted by update time.
func mergeEntries(ms []manifest) []Entry {
	byID := map[string]Entry{}
	for _, m := range ms {
		for _, e := range m.Entries {
			if old, ok := byID[e.ID]; !ok || e.Pushed.Before(old.Pushed) {
				byID[e.ID] = e
			}
		}
	}
	out := make([]Entry, 0, len(byID))
	for _, e := range byID {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.Before(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func decodeManifest(b []byte) (manifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: manifest: %w", ErrCorrupt, err)
	}
	if m.Version != 1 {
		return m, fmt.Errorf("%w: manifest version %d (this Ben10 reads 1)", ErrCorrupt, m.Version)
	}
	for i := range m.Entries {
		if err := m.Entries[i].validate(); err != nil {
			return m, fmt.Errorf("%w: manifest: %w", ErrCorrupt, err)
		}
	}
	return m, nil
}

// ProjectKey names a project the same way on every teammate's machine:
// the normalized URL of its git "origin" remote (host/path, without
// scheme, user, port or ".git"), else the directory's base name.
func ProjectKey(dir string) string {
	if u := gitOrigin(dir); u != "" {
		return u
	}
	return filepath.Base(dir)
}

// gitOrigin reads remote "origin"'s url from dir/.git/config.
func gitOrigin(dir string) string {
	b, err := store.ReadFileBounded(filepath.Join(dir, ".git", "config"), 1<<20)
	if err != nil {
		return ""
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			in = strings.ReplaceAll(l, " ", "") == `[remote"origin"]`
			continue
		}
		if k, v, ok := strings.Cut(l, "="); in && ok && strings.TrimSpace(k) == "url" {
			return normalizeGitURL(strings.TrimSpace(v))
		}
	}
	return ""
}

var scpRe = regexp.MustCompile(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// normalizeGitURL maps https://github.com/a/b.git, git@github.com:a/b,
// ssh://git@github.com:22/a/b.git to github.com/a/b.
func normalizeGitURL(u string) string {
	u = strings.TrimSuffix(strings.TrimRight(u, "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if at := strings.LastIndex(strings.SplitN(u, "/", 2)[0], "@"); at >= 0 {
			u = u[at+1:]
		}
		host, path, _ := strings.Cut(u, "/")
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h
		}
		return strings.ToLower(host) + "/" + path
	}
	if m := scpRe.FindStringSubmatch(u); m != nil {
		return strings.ToLower(m[1]) + "/" + strings.TrimPrefix(m[2], "/")
	}
	if filepath.IsAbs(u) {
		if fi, err := os.Stat(u); err == nil && fi.IsDir() {
			return filepath.Base(u)
		}
	}
	return u
}
