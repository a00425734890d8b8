package web

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// Kinds of saved sessions (Entry.Kind): those of snapshot.Archives.
const (
	KindCurrent    = store.KindCurrent
	KindCheckpoint = store.KindCheckpoint
	KindHistory    = store.KindHistory
	KindNamed      = store.KindNamed
	KindSnapshot   = snapshot.KindSnapshot
)

// ErrNotFound is returned when a project, saved session or snapshot does
// not exist.
var ErrNotFound = errors.New("web: not found")

// Project is one project's store, opened read-only.
type Project struct {
	// ID names the project in URLs: the hash that also names its
	// fallback store (store.DirHash of its canonical directory).
	ID string
	// Dir is the project directory.
	Dir string
	st  *store.Store
	mgr *snapshot.Manager

	mu   sync.Mutex
	meta map[string]cachedMeta // archive path → its metadata
}

type cachedMeta struct {
	mod   time.Time
	size  int64
	meta  archive.Metadata
	trust string
	err   string
}

// OpenProject opens dir's store read-only (nothing is created). home is
// the user's home directory ("" = $HOME).
func OpenProject(dir, home string) (*Project, error) {
	st, err := store.Open(dir, store.Options{ReadOnly: true, Home: home})
	if err != nil {
		return nil, fmt.Errorf("web: project %s: %w", dir, err)
	}
	return &Project{ID: store.DirHash(st.ProjectDir()), Dir: st.ProjectDir(), st: st,
		mgr: snapshot.NewManager(st, nil), meta: map[string]cachedMeta{}}, nil
}

// Store is the project's store.
func (p *Project) Store() *store.Store { return p.st }

// HasData reports whether the project's store directory exists.
func (p *Project) HasData() bool {
	fi, err := os.Stat(p.st.Root())
	return err == nil && fi.IsDir()
}

// Entry is one saved session of a project: the current context, a
// checkpoint, a history file, a named context or a compaction snapshot.
type Entry struct {
	Project   string    `json:"project"`
	Kind      string    `json:"kind"`
	Name      string    `json:"name"`
	SessionID string    `json:"session_id,omitempty"`
	Harness   string    `json:"assistant,omitempty"`
	Title     string    `json:"title,omitempty"`
	Model     string    `json:"model,omitempty"`
	SavedAt   time.Time `json:"saved_at"`
	SizeBytes int64     `json:"size_bytes"`
	Messages  int       `json:"messages"`
	Tools     int       `json:"tool_executions"`
	Trigger   string    `json:"trigger,omitempty"`
	Restore   string    `json:"restore_command"`
	Resume    string    `json:"resume_command,omitempty"`
	// Trust is whose the archive is (index.TrustUser: this user's key
	// authenticates it; index.TrustNoTag, … otherwise; "" when it cannot
	// be read). The pages mark an entry that is not this user's, since a
	// cloned repository can bring a store.
	Trust string `json:"trust,omitempty"`
	Error string `json:"error,omitempty"`
	path  string
}

// Path is the archive file of e.
func (e Entry) Path() string { return e.path }

// Entries lists the project's saved sessions, newest first. Archives are
// opened for their metadata segment only (and the result cached until the
// file changes).
func (p *Project) Entries() ([]Entry, error) {
	var out []Entry
	add := func(kind, name, path string, size int64, mod time.Time) {
		e := Entry{Project: p.ID, Kind: kind, Name: name, SavedAt: mod, SizeBytes: size, path: path}
		m, trust, merr := p.metaOf(path, mod, size)
		if merr != "" {
			e.Error = merr
		}
		e.Trust = trust
		e.SessionID, e.Harness, e.Title, e.Model = m.SessionID, string(m.Harness), m.Title, m.Model
		e.Messages, e.Tools = m.MessageCount, m.ToolCount
		out = append(out, e)
	}
	all, err := snapshot.Archives(p.st.Root())
	if err != nil {
		return nil, err
	}
	for _, a := range all {
		switch a.Kind {
		case snapshot.KindSnapshot:
			s := a.Snapshot
			e := Entry{Project: p.ID, Kind: KindSnapshot, Name: snapshot.ShortID(s.ID), SessionID: s.SessionID,
				SavedAt: s.CreatedAt, SizeBytes: s.CompressedBytes, Messages: s.PreCompaction.MessageCount,
				Tools: s.PreCompaction.ToolExecutionCount, Trigger: s.Trigger, path: a.Path}
			if a.Err != nil {
				e.Error = a.Err.Error()
			} else {
				m, trust, merr := p.metaOf(a.Path, a.ModTime, a.Size)
				e.Harness, e.Title, e.Model, e.Trust, e.Error = string(m.Harness), m.Title, m.Model, trust, merr
			}
			out = append(out, e)
		case KindCurrent:
			add(KindCurrent, KindCurrent, a.Path, a.Size, a.ModTime)
		default:
			add(a.Kind, a.Name, a.Path, a.Size, a.ModTime)
		}
	}
	for i := range out {
		out[i].Restore, out[i].Resume = p.commands(out[i])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SavedAt.After(out[j].SavedAt) })
	return out, nil
}

// Snapshots lists the project's compaction snapshots, newest first.
func (p *Project) Snapshots() ([]snapshot.Snapshot, error) {
	ix, err := p.mgr.Index()
	if err != nil {
		return nil, err
	}
	out := append([]snapshot.Snapshot(nil), ix.Snapshots...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// metaOf is the metadata and the trust (see Entry.Trust) of the archive
// at path, or why it cannot be read; cached until the file's time or size
// changes. (The view page checks the trust again on the archive it
// renders.)
func (p *Project) metaOf(path string, mod time.Time, size int64) (archive.Metadata, string, string) {
	p.mu.Lock()
	c, ok := p.meta[path]
	p.mu.Unlock()
	if ok && c.mod.Equal(mod) && c.size == size {
		return c.meta, c.trust, c.err
	}
	c = cachedMeta{mod: mod, size: size}
	a, err := archive.OpenFile(path, snapshot.OpenOptions(p.st.Config()))
	if err != nil {
		c.err = err.Error()
	} else {
		c.meta, c.trust = a.Meta(), index.TrustOf(a, snapshot.AuthKeyFor(p.st), false)
		a.Close()
	}
	p.mu.Lock()
	p.meta[path] = c
	p.mu.Unlock()
	return c.meta, c.trust, c.err
}

// commands are the shell commands that restore e into its project and,
// when the assistant has one, resume its session.
func (p *Project) commands(e Entry) (restore, resume string) {
	cd := "cd " + ShellQuote(p.Dir) + " && "
	switch e.Kind {
	case KindCurrent:
		restore = cd + "ben10 context restore"
	case KindCheckpoint:
		restore = cd + "ben10 context restore --checkpoint " + e.Name
	case KindHistory:
		restore = cd + "ben10 context restore --from " + ShellQuote(e.path)
	case KindNamed:
		restore = cd + "ben10 context restore --name " + ShellQuote(e.Name)
	case KindSnapshot:
		restore = cd + "ben10 context compaction restore " + e.Name
	}
	if e.SessionID != "" && e.Harness == string(archive.HarnessClaude) {
		resume = cd + "claude --resume " + ShellQuote(e.SessionID)
	}
	return restore, resume
}

// Find resolves what a user typed: a kind and name ("checkpoint 3" is
// written "checkpoint/3"), "current", a snapshot id or unique prefix, or a
// session id or prefix (the newest saved context of that session).
func (p *Project) Find(ref string) (Entry, error) {
	es, err := p.Entries()
	if err != nil {
		return Entry{}, err
	}
	if kind, name, ok := strings.Cut(ref, "/"); ok {
		for _, e := range es {
			if e.Kind == kind && e.Name == name {
				return e, nil
			}
		}
		return Entry{}, fmt.Errorf("%w: no %s %q in %s", ErrNotFound, kind, name, p.st.Root())
	}
	if ref == "" || ref == KindCurrent {
		for _, e := range es {
			if e.Kind != KindSnapshot {
				return e, nil
			}
		}
		return Entry{}, fmt.Errorf("%w: nothing saved in %s (ben10 context save)", ErrNotFound, p.st.Root())
	}
	if s, err := p.mgr.Get(ref); err == nil {
		for _, e := range es {
			if e.Kind == KindSnapshot && e.Name == snapshot.ShortID(s.ID) {
				return e, nil
			}
		}
	} else if errors.Is(err, snapshot.ErrAmbiguous) {
		return Entry{}, err
	}
	for _, e := range es { // newest first
		if e.SessionID != "" && strings.HasPrefix(e.SessionID, ref) {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("%w: no session or snapshot %q in %s", ErrNotFound, ref, p.st.Root())
}

// Load reads the whole session of e and its trust (see Entry.Trust),
// decided on the archive it reads: the file may have changed since it was
// listed.
func (p *Project) Load(e Entry) (*archive.State, string, error) {
	if e.path == "" {
		return nil, "", fmt.Errorf("web: %s %s of %s cannot be read: %s", e.Kind, e.Name, p.Dir, e.Error)
	}
	var trust string
	st, err := loadArchive(e.path, snapshot.OpenOptions(p.st.Config()), func(a *archive.Archive) {
		trust = index.TrustOf(a, snapshot.AuthKeyFor(p.st), false)
	})
	return st, trust, err
}

// LoadArchive reads the whole session of a .ctx file.
func LoadArchive(path string, oo archive.OpenOptions) (*archive.State, error) {
	return loadArchive(path, oo, func(*archive.Archive) {})
}

// loadArchive is LoadArchive, calling check on the open archive first.
func loadArchive(path string, oo archive.OpenOptions, check func(*archive.Archive)) (*archive.State, error) {
	a, err := archive.OpenFile(path, oo)
	if err != nil {
		return nil, fmt.Errorf("web: %s: %w", path, err)
	}
	defer a.Close()
	check(a)
	st, err := a.Load()
	if err != nil {
		return nil, fmt.Errorf("web: %s: %w", path, err)
	}
	return st, nil
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// KnownProjects lists the project directories Ben10 knows about in home:
// the owners of fallback stores (~/.claude-code/contexts/<hash>/project)
// and the directories of the audit log's saves (~/.claude-code/audit.log,
// its last maxAuditRead bytes). Only directories that still exist are
// returned, sorted.
func KnownProjects(home string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(dir string) {
		dir = strings.TrimSpace(dir)
		if dir == "" || seen[dir] || !filepath.IsAbs(dir) {
			return
		}
		seen[dir] = true
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			out = append(out, dir)
		}
	}
	for _, d := range index.FallbackProjects(home) {
		add(d)
	}
	for _, d := range auditDirs(store.AuditPath(home)) {
		add(d)
	}
	sort.Strings(out)
	return out
}

// maxAuditRead bounds how much of the audit log KnownProjects reads.
const maxAuditRead = 4 << 20

func auditDirs(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxAuditRead {
		if _, err := f.Seek(fi.Size()-maxAuditRead, io.SeekStart); err != nil {
			return nil
		}
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxAuditRead))
	sc.Buffer(make([]byte, 0, 4096), store.MaxAuditLine*2)
	for sc.Scan() {
		var e store.AuditEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Directory != "" {
			out = append(out, e.Directory)
		}
	}
	return out
}
