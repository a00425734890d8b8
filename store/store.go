package store

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
)

// Names inside a store directory (PRD FR-3.2 as amended by issue 5).
const (
	CurrentName     = "current.ctx"
	MetaName        = "current.ctx.meta"
	CheckpointsName = "checkpoints"
	HistoryName     = "history"
	NamedName       = "named"
	SnapshotsName   = "compaction-snapshots"
	IndexName       = "index.json"
	PinnedName      = ".pinned"
	ExportsName     = "exports"
	CorruptName     = "corrupt"
	PendingName     = "pending"
	LockName        = ".lock"
	// ProjectName is the file in a fallback store that records which
	// project directory it belongs to.
	ProjectName = "project"
)

// GitignoreEntry is the line Open adds to a project's .gitignore.
const GitignoreEntry = ".claude/context/"

// gitignoreComment precedes GitignoreEntry, as in the PRD.
const gitignoreComment = "# Claude Code Context (added automatically)"

// Options control Open. The zero value is ready to use.
type Options struct {
	// Home is the user's home directory; empty means $HOME (then the
	// platform's home directory).
	Home string
	// Config is the effective configuration; nil means LoadConfig(project,
	// Home, Flags).
	Config *Config
	// Flags are command-line configuration overrides (dotted keys) used
	// when Config is nil.
	Flags map[string]string
	// ReadOnly opens without creating, sweeping or changing anything; Lock
	// and every write then fail. For status and listing commands.
	ReadOnly bool
	// Quick opens an existing, writable store for a hook's small writes
	// (a queued job): the directory's permission is checked with access(2)
	// instead of creating and removing a probe file, and temporary files
	// are not swept (the next full open does it). A store that does not
	// exist or is not writable gets the full open.
	Quick bool
	// Session names the caller's assistant session; it is recorded in the
	// lock file while the lock is held.
	Session string
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// Store is one project's context directory.
type Store struct {
	project  string
	root     string
	primary  string
	fallback bool
	home     string
	cfg      *Config
	prov     Provenance
	readOnly bool

	lockTimeout time.Duration
	host        string
	session     string
	now         func() time.Time

	mu   chan struct{} // in-process lock, capacity 1
	held atomic.Bool

	wmu      sync.Mutex
	warnings []Warning
	holder   LockHolder // while held by this Store

	// authKey is the user's key (LoadOrCreateAuthKey), read (or
	// created) at its first use: a job queued or listed.
	authKey func() ([]byte, error)
}

// HomeDir returns $HOME when set, else the platform's home directory.
func HomeDir() (string, error) { return hookfast.HomeDir() }

// CanonicalDir returns the absolute, symlink-free form of dir, which must
// be an existing directory.
func CanonicalDir(dir string) (string, error) { return hookfast.CanonicalDir(dir) }

// DirHash names a project's fallback store: the first 16 hexadecimal
// digits of the SHA-256 of its canonical path (see CanonicalDir), with the
// path lower-cased on Windows, whose file names are case-insensitive.
func DirHash(canonical string) string { return hookfast.DirHash(canonical) }

// FallbackDir is the store used when the project directory is not
// writable: ~/.claude-code/contexts/<DirHash>.
func FallbackDir(home, canonical string) string {
	return filepath.Join(home, ".claude-code", "contexts", DirHash(canonical))
}

// Open resolves the store of projectDir: that of the nearest enclosing
// project with a store (see ResolveProject), else projectDir's own. The
// store lives in
// <project>/.claude/context/ (or context.storage_location: relative to the
// project, absolute, or starting with ~/). When that directory cannot be
// created or written, Open uses FallbackDir instead; once a fallback store
// exists and the primary does not, Open keeps using the fallback so a
// project's data is never split. Subdirectories are created (0700) when
// first written. Unless ReadOnly, Open creates the store directory,
// removes temporary files older than SweepAge left by crashed writers, and
// when it creates the store inside the project adds GitignoreEntry to the
// project's .gitignore (see EnsureGitignore).
func Open(projectDir string, opts Options) (*Store, error) {
	home := opts.Home
	if home == "" {
		var err error
		if home, err = HomeDir(); err != nil {
			return nil, err
		}
	}
	project, err := ResolveProject(projectDir, home)
	if err != nil {
		return nil, err
	}
	s := &Store{
		project:  project,
		home:     home,
		readOnly: opts.ReadOnly,
		session:  opts.Session,
		now:      opts.Now,
		mu:       make(chan struct{}, 1),
	}
	s.authKey = sync.OnceValues(func() ([]byte, error) { return LoadOrCreateAuthKey(home) })
	if s.now == nil {
		s.now = time.Now
	}
	s.host, _ = os.Hostname()
	s.cfg = opts.Config
	if s.cfg == nil {
		cfg, prov, warns, err := LoadConfig(project, home, opts.Flags)
		if err != nil {
			return nil, err
		}
		s.cfg, s.prov, s.warnings = cfg, prov, warns
	}
	s.lockTimeout = s.cfg.LockTimeout
	if s.lockTimeout <= 0 {
		s.lockTimeout = DefaultLockTimeout
	}

	primary := cmp.Or(s.cfg.StorageLocation, DefaultStorageLocation)
	if rest, ok := strings.CutPrefix(primary, "~/"); ok {
		primary = filepath.Join(home, rest)
	} else if !filepath.IsAbs(primary) {
		primary = filepath.Join(project, filepath.FromSlash(primary))
	}
	primary = filepath.Clean(primary)
	s.primary = primary
	fallback := FallbackDir(home, project)

	created := false
	unsafe := false
	if within(project, primary) {
		// Everything in the project comes with the repository: a link
		// or a foreign directory anywhere on the way to the store, or
		// among its directories, is refused, and the store under
		// ~/.claude-code used instead.
		var subs []string
		for _, d := range storeSubdirs {
			subs = append(subs, filepath.Join(primary, d))
		}
		if err := checkStorePath(project, primary, subs); err != nil {
			unsafe = true
			s.addWarning(Warning{File: primary, Message: fmt.Sprintf("%v; using the store %s instead", err, fallback)})
		}
	}
	switch {
	case unsafe:
		s.root, s.fallback = fallback, true
	case isDir(primary) && s.readOnly && !writableDir(primary) && isDir(fallback):
		// Where a full open (a hook) would write: the project's store
		// cannot be written, so its saves are in the fallback.
		s.root, s.fallback = fallback, true
	case isDir(primary):
		s.root = primary
		if !s.readOnly && !(opts.Quick && writableDir(primary)) {
			if err := probeWritable(primary); err != nil {
				if !isPermission(err) {
					return nil, fmt.Errorf("store: %s: %w", primary, err)
				}
				s.root, s.fallback = fallback, true
			}
		}
	case isDir(fallback):
		s.root, s.fallback = fallback, true
	case s.readOnly:
		s.root = primary
	default:
		err := os.MkdirAll(primary, 0o700)
		if err == nil {
			err = probeWritable(primary)
		}
		switch {
		case err == nil:
			s.root, created = primary, true
		case isPermission(err):
			s.root, s.fallback = fallback, true
		default:
			return nil, fmt.Errorf("store: creating %s: %w", primary, err)
		}
	}
	if s.readOnly {
		return s, nil
	}
	if err := s.EnsureDir(s.root); err != nil {
		return nil, err
	}
	if s.fallback {
		if err := s.recordProject(); err != nil {
			return nil, err
		}
	}
	if created && within(project, s.root) {
		rel, _ := filepath.Rel(project, s.root)
		if _, err := EnsureGitignore(project, filepath.ToSlash(rel)+"/"); err != nil {
			s.addWarning(Warning{File: filepath.Join(project, ".gitignore"), Message: err.Error()})
		}
	}
	if opts.Quick {
		return s, nil
	}
	now := s.now()
	for _, d := range []string{s.root, s.CheckpointsDir(), s.HistoryDir(), s.SnapshotDir(),
		s.ExportsDir(), s.PendingDir(), s.CorruptDir()} {
		if _, err := Sweep(d, SweepAge, now); err != nil {
			s.addWarning(Warning{File: d, Message: err.Error()})
		}
	}
	return s, nil
}

// recordProject writes the project path into a fallback store so a human
// (or a later lookup after the project moved) can tell whose store it is.
func (s *Store) recordProject() error {
	p := filepath.Join(s.root, ProjectName)
	want := []byte(s.project + "\n")
	if have, err := ReadFileBounded(p, MaxSmallFileBytes); err == nil && bytes.Equal(have, want) {
		return nil
	}
	return WriteFileAtomic(p, want)
}

// EnsureDir creates dir (and missing parents) with mode 0700. Writers call
// it before writing into a subdirectory of the store.
func (s *Store) EnsureDir(dir string) error {
	if s.readOnly {
		return fmt.Errorf("store: %s was opened read-only", s.root)
	}
	if within(s.project, dir) {
		if err := checkStorePath(s.project, dir, nil); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: creating %s: %w", dir, err)
	}
	return nil
}

// storeSubdirs are the directories of a store.
var storeSubdirs = []string{CheckpointsName, HistoryName, SnapshotsName, ExportsName, PendingName, CorruptName, hookfast.CounterDirName}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// isPermission reports whether err means the directory cannot be used
// for storage by us: permission denied, a read-only file system, or a
// non-directory in the way (e.g. a file named .claude).
func isPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission) || isReadOnlyFS(err) || errors.Is(err, syscall.ENOTDIR)
}

// probeWritable creates and removes a temporary file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, TempPrefix+"probe-")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// within reports whether p is inside dir (or dir itself).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Root is the store directory.
func (s *Store) Root() string { return s.root }

// ProjectDir is the canonical project directory.
func (s *Store) ProjectDir() string { return s.project }

// Home is the home directory the store was opened with.
func (s *Store) Home() string { return s.home }

// PrimaryDir is the store directory the configuration names (the
// project's own, context.storage_location), whether or not Root is it.
func (s *Store) PrimaryDir() string { return s.primary }

// IsFallback reports whether the store lives under
// ~/.claude-code/contexts/ because the project directory is not writable.
func (s *Store) IsFallback() bool { return s.fallback }

// ReadOnly reports whether the store was opened with Options.ReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Config is the effective configuration.
func (s *Store) Config() *Config { return s.cfg }

// Provenance tells where each configuration value came from (nil when the
// configuration was passed in Options).
func (s *Store) Provenance() Provenance { return s.prov }

// Warnings returns the warnings collected so far: configuration warnings,
// sweep failures, broken stale locks.
func (s *Store) Warnings() []Warning {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return append([]Warning(nil), s.warnings...)
}

func (s *Store) addWarning(w Warning) {
	s.wmu.Lock()
	s.warnings = append(s.warnings, w)
	s.wmu.Unlock()
}

// Path accessors. None of them creates anything.

func (s *Store) CurrentPath() string    { return filepath.Join(s.root, CurrentName) }
func (s *Store) MetaPath() string       { return filepath.Join(s.root, MetaName) }
func (s *Store) CheckpointsDir() string { return filepath.Join(s.root, CheckpointsName) }
func (s *Store) HistoryDir() string     { return filepath.Join(s.root, HistoryName) }
func (s *Store) SnapshotDir() string    { return filepath.Join(s.root, SnapshotsName) }
func (s *Store) IndexPath() string      { return filepath.Join(s.SnapshotDir(), IndexName) }
func (s *Store) PinnedPath() string     { return filepath.Join(s.SnapshotDir(), PinnedName) }
func (s *Store) ExportsDir() string     { return filepath.Join(s.root, ExportsName) }
func (s *Store) CorruptDir() string     { return filepath.Join(s.root, CorruptName) }
func (s *Store) PendingDir() string     { return filepath.Join(s.root, PendingName) }
func (s *Store) LockPath() string       { return filepath.Join(s.root, LockName) }

// CheckpointPath is checkpoints/cp-NNN.ctx (at least three digits).
func (s *Store) CheckpointPath(n int) string {
	return filepath.Join(s.CheckpointsDir(), fmt.Sprintf("cp-%03d.ctx", n))
}

// HistoryPath is history/session-<YYYYMMDD-HHMMSS>.ctx for t in UTC.
func (s *Store) HistoryPath(t time.Time) string {
	return filepath.Join(s.HistoryDir(), "session-"+t.UTC().Format("20060102-150405")+".ctx")
}

// EnsureGitignore adds entry (e.g. ".claude/context/") to
// <project>/.gitignore, creating the file if needed, and reports whether it
// changed the file. It does nothing unless the project looks like a git
// work tree (has a .git directory or file) or already has a .gitignore. It
// never duplicates: a line that already ignores the entry or one of its
// parent directories (with or without leading or trailing slash, e.g.
// ".claude", "/.claude/context") counts, and a negation of it ("!…")
// means the user wants it tracked, so nothing is added. CRLF files get a
// CRLF line; a missing final newline is supplied first. An existing file
// keeps its permissions (a new one is 0644: it is a project file meant to
// be committed). A .gitignore that is a symbolic link, a FIFO or a device
// is never followed or written: ErrUnsafePath.
func EnsureGitignore(project, entry string) (bool, error) {
	gi := filepath.Join(project, ".gitignore")
	_, gitErr := os.Lstat(filepath.Join(project, ".git"))
	data, err := ReadFileBounded(gi, maxGitignoreBytes)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		if gitErr != nil {
			return false, nil
		}
		data = nil
	default:
		return false, fmt.Errorf("store: reading %s: %w", gi, err)
	}
	want := normGitignore(entry)
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n := normGitignore(strings.TrimPrefix(line, "!"))
		if gitignoreCovers(n, want) {
			// Either already ignored, or explicitly re-included by
			// the user: leave the file alone in both cases.
			return false, nil
		}
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString(nl)
	}
	b.WriteString(gitignoreComment + nl + entry + nl)

	perm := os.FileMode(0o644)
	if fi, err := os.Lstat(gi); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := writeFileAtomicPerm(gi, b.Bytes(), perm); err != nil {
		return false, err
	}
	return true, nil
}

// gitignoreCovers reports whether normalized pattern n ignores the
// normalized directory want: the same path, a parent directory, or a
// slash-free name matching any path component (git matches such patterns
// at every level).
func gitignoreCovers(n, want string) bool {
	if n == "" {
		return false
	}
	if n == want || strings.HasPrefix(want, n+"/") {
		return true
	}
	return !strings.Contains(n, "/") && slices.Contains(strings.Split(want, "/"), n)
}

// normGitignore reduces a simple gitignore pattern to a slash-free-ended,
// root-relative form: "/.claude/context/" and ".claude/context/**" both
// become ".claude/context".
func normGitignore(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/**")
	p = strings.TrimSuffix(p, "/*")
	return strings.TrimSuffix(p, "/")
}
