package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// CheckpointKeep is how many checkpoints are kept at most (PRD FR-3.2).
const CheckpointKeep = 3

// WarnStorageBytes is the context storage size at which saves report a
// warning (PRD FR-3.3).
const WarnStorageBytes = 50 << 20

// Kinds reported by Recover and in Entry.Kind.
const (
	KindCurrent    = "current"
	KindCheckpoint = "checkpoint"
	KindHistory    = "history"
	KindNamed      = "named" // named/<name>.ctx: `ben10 context save --name`
)

// Meta is current.ctx.meta: a small JSON description of current.ctx that
// status commands read instead of the archive. SaveCurrent fills SavedAt
// (when zero), SizeBytes and SHA256; the caller fills the rest.
type Meta struct {
	SavedAt    time.Time `json:"saved_at"`
	SessionID  string    `json:"session_id,omitempty"`
	SizeBytes  int64     `json:"size_bytes"`
	SHA256     string    `json:"sha256"`
	Assistant  string    `json:"assistant,omitempty"`
	Transcript string    `json:"transcript,omitempty"`
	Messages   int       `json:"messages,omitempty"`
	// ContextTokens is the size of the session's context at its last
	// request (that request's input and cache tokens): how full the
	// window was. TokensUsed is the sum over every request of the
	// session (input, cache and output): what it consumed.
	ContextTokens int64 `json:"context_tokens,omitempty"`
	TokensUsed    int64 `json:"tokens_used,omitempty"`
	// Tokens is what older versions wrote: one or the other of the two
	// above, depending on the writer. Read only.
	//
	// Deprecated: use ContextTokens or TokensUsed.
	Tokens         int64          `json:"tokens,omitempty"`
	Files          int            `json:"files,omitempty"`
	ToolExecutions int            `json:"tool_executions,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// ReadMeta reads current.ctx.meta. It returns an error wrapping
// fs.ErrNotExist when there is none (SaveCurrent removes it before
// replacing current.ctx, so a meta file never describes other content than
// the current.ctx it sits beside, except after a manual edit).
func (s *Store) ReadMeta() (Meta, error) {
	var m Meta
	data, err := ReadFileBounded(s.MetaPath(), MaxMetaBytes)
	if err != nil {
		return m, fmt.Errorf("store: reading %s: %w", s.MetaPath(), err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("store: %s: %w", s.MetaPath(), err)
	}
	return m, nil
}

// SaveOptions control SaveCurrent.
type SaveOptions struct {
	// Rotate moves the existing current.ctx (and its meta) into
	// history/session-<time of that save>.ctx before the new one is put
	// in place: use it when a new session starts saving, so the previous
	// session's final state is kept.
	Rotate bool
	// KeepHistory skips the history retention after a rotation: a
	// restore installs an older state as current.ctx and must not evict
	// real history to make place for the state it replaces.
	KeepHistory bool
}

// SaveResult describes what a save did.
type SaveResult struct {
	Path     string    // current.ctx
	Meta     Meta      // the meta written
	Rotated  string    // history file the previous current.ctx went to, if any
	Pruned   []string  // files removed by history_retention_count or to make room under max_storage_mb
	Warnings []Warning // e.g. storage above WarnStorageBytes
}

// SaveCurrent writes data as current.ctx (and meta as current.ctx.meta)
// atomically. It requires the lock.
func (s *Store) SaveCurrent(data []byte, meta Meta, opts SaveOptions) (SaveResult, error) {
	return s.SaveCurrentFunc(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, meta, opts)
}

// SaveCurrentFunc is SaveCurrent for a streaming writer (e.g. an archive
// encoder). write is called once; if it fails nothing changes.
//
// Order of effects, each durable before the next: the new content is
// written and fsynced to a temporary file; with Rotate, the storage limit
// is checked (*StorageLimitError, nothing changed) and the old current.ctx
// is renamed into history/; the old meta is removed; the temporary file is
// renamed over current.ctx; the new meta is written; history beyond
// history_retention_count is pruned. A crash at any point leaves either the
// old state (in current.ctx, or in the newest history file, where Recover
// finds it) or the new one.
func (s *Store) SaveCurrentFunc(write func(io.Writer) error, meta Meta, opts SaveOptions) (SaveResult, error) {
	var res SaveResult
	if err := s.requireLock("store: SaveCurrent"); err != nil {
		return res, err
	}
	if err := s.EnsureDir(s.root); err != nil {
		return res, err
	}
	a, err := CreateAtomic(s.CurrentPath(), 0o600)
	if err != nil {
		return res, err
	}
	defer a.Abort()
	hw := &hashWriter{w: a, h: sha256.New()}
	if err := write(hw); err != nil {
		return res, fmt.Errorf("store: writing %s: %w", s.CurrentPath(), err)
	}
	if meta.SavedAt.IsZero() {
		meta.SavedAt = s.now().UTC()
	}
	meta.SizeBytes = hw.n
	meta.SHA256 = hex.EncodeToString(hw.h.Sum(nil))

	oldInfo, oldErr := os.Stat(s.CurrentPath())
	hasOld := oldErr == nil && oldInfo.Mode().IsRegular()
	used, err := s.contextUsedAfter(hasOld && !opts.Rotate, oldInfo)
	if err != nil {
		return res, err
	}
	used -= hw.n // the temporary file, in the store already, is the new save
	if limit := int64(s.cfg.MaxStorageMB) << 20; limit > 0 {
		// Retention makes room (oldest history first, then old
		// checkpoints) before a save is refused; a refusal is recorded
		// for status and doctor.
		var removed []string
		used, removed, err = s.makeRoom(used, hw.n, limit)
		res.Pruned = append(res.Pruned, removed...)
		if err != nil {
			return res, err
		}
		if used+hw.n > limit {
			le := &StorageLimitError{Area: "context", UsedBytes: used, AddBytes: hw.n,
				LimitBytes: limit, Options: StorageLimitOptions}
			s.recordRefusal(le, s.CurrentPath(), meta.SessionID)
			return res, le
		}
	}
	if used+hw.n > WarnStorageBytes && opts.Rotate && hasOld {
		res.Warnings = append(res.Warnings, Warning{File: s.root, Message: fmt.Sprintf(
			"context storage is %s, above the %s warning level; consider `ben10 context prune`",
			FormatBytes(used+hw.n), FormatBytes(WarnStorageBytes))})
	}
	if opts.Rotate && hasOld {
		hp, err := s.moveToHistory(oldInfo.ModTime())
		if err != nil {
			return res, err
		}
		res.Rotated = hp
	} else if err := os.Remove(s.MetaPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("store: removing stale %s: %w", s.MetaPath(), err)
	}
	if err := a.Commit(); err != nil {
		return res, err
	}
	mdata, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return res, fmt.Errorf("store: encoding meta: %w", err)
	}
	if err := WriteFileAtomic(s.MetaPath(), append(mdata, '\n')); err != nil {
		return res, err
	}
	res.Path, res.Meta = s.CurrentPath(), meta
	s.clearRefusal("context")
	if res.Rotated != "" && !opts.KeepHistory {
		pruned, err := s.pruneHistory()
		res.Pruned = append(res.Pruned, pruned...)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// contextUsedAfter is the context area's size before a save adds its
// file: everything now, less the current.ctx (and meta) the save replaces
// when it does not rotate it into history.
func (s *Store) contextUsedAfter(replaces bool, old os.FileInfo) (int64, error) {
	u, err := s.Usage()
	if err != nil {
		return 0, err
	}
	used := u.Context
	if replaces {
		used -= old.Size()
		if fi, err := os.Lstat(s.MetaPath()); err == nil && fi.Mode().IsRegular() {
			used -= fi.Size()
		}
	}
	return used, nil
}

// ClearCurrent moves current.ctx, with its current.ctx.meta, into
// history/ as a rotation does (named by the save time the meta records,
// else the file's modification time), then applies the history retention.
// It returns the history path and the files pruned. It requires the lock;
// with no current.ctx it returns an error wrapping fs.ErrNotExist.
func (s *Store) ClearCurrent() (moved string, pruned []string, err error) {
	if err := s.requireLock("store: ClearCurrent"); err != nil {
		return "", nil, err
	}
	fi, err := os.Lstat(s.CurrentPath())
	if err != nil {
		return "", nil, fmt.Errorf("store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("store: %s is not a regular file", s.CurrentPath())
	}
	t := fi.ModTime()
	if m, err := s.ReadMeta(); err == nil && !m.SavedAt.IsZero() {
		t = m.SavedAt
	}
	hp, err := s.moveToHistory(t)
	if err != nil {
		return hp, nil, err
	}
	pruned, err = s.pruneHistory()
	return hp, pruned, err
}

// moveToHistory renames current.ctx and its meta into history/ (created
// if needed), named by the time t of that save, durably, and returns the
// history path (set as soon as current.ctx moved).
func (s *Store) moveToHistory(t time.Time) (string, error) {
	if err := s.EnsureDir(s.HistoryDir()); err != nil {
		return "", err
	}
	hp := s.uniqueHistoryPath(t)
	if err := os.Rename(s.CurrentPath(), hp); err != nil {
		return "", fmt.Errorf("store: moving %s to history: %w", s.CurrentPath(), err)
	}
	if err := os.Rename(s.MetaPath(), hp+".meta"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return hp, fmt.Errorf("store: moving %s to history: %w", s.MetaPath(), err)
	}
	if err := SyncDir(s.HistoryDir()); err != nil {
		return hp, fmt.Errorf("store: fsync %s: %w", s.HistoryDir(), err)
	}
	if err := SyncDir(s.root); err != nil {
		return hp, fmt.Errorf("store: fsync %s: %w", s.root, err)
	}
	return hp, nil
}

type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (h *hashWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

func (s *Store) uniqueHistoryPath(t time.Time) string {
	base := s.HistoryPath(t)
	p := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = strings.TrimSuffix(base, ".ctx") + "-" + strconv.Itoa(i) + ".ctx"
	}
}

// Entry is one saved context file.
type Entry struct {
	Kind    string    `json:"kind"` // KindCurrent, KindCheckpoint, KindHistory or KindNamed
	N       int       `json:"n,omitempty"`
	Path    string    `json:"path"`
	ModTime time.Time `json:"mod_time"`
	Size    int64     `json:"size"`
}

// Checkpoints lists checkpoints/cp-NNN.ctx, oldest (lowest N) first.
func (s *Store) Checkpoints() ([]Entry, error) { return checkpointsIn(s.CheckpointsDir()) }

// History lists history/session-*.ctx, oldest first.
func (s *Store) History() ([]Entry, error) { return historyIn(s.HistoryDir()) }

// Archives lists the saved context files of the store directory root
// (any store directory of a project: its own, the fallback one):
// current.ctx, the checkpoints (Checkpoints' order), the history
// (History's order) and the named saves (KindNamed, by name). Only
// regular files count: a symbolic link is never followed, a writer's
// temporary file never listed. A directory that cannot be read is an
// error, returned with what the others list.
func Archives(root string) ([]Entry, error) {
	var out []Entry
	cur := filepath.Join(root, CurrentName)
	if fi, err := os.Lstat(cur); err == nil && fi.Mode().IsRegular() {
		out = append(out, Entry{Kind: KindCurrent, Path: cur, ModTime: fi.ModTime(), Size: fi.Size()})
	}
	cps, err1 := checkpointsIn(filepath.Join(root, CheckpointsName))
	hs, err2 := historyIn(filepath.Join(root, HistoryName))
	named, err3 := listDir(filepath.Join(root, NamedName), KindNamed, func(name string) (int, bool) {
		return 0, strings.HasSuffix(name, ".ctx") && !strings.HasPrefix(name, TempPrefix)
	})
	out = append(append(append(out, cps...), hs...), named...)
	return out, errors.Join(err1, err2, err3)
}

func checkpointsIn(dir string) ([]Entry, error) {
	es, err := listDir(dir, KindCheckpoint, func(name string) (int, bool) {
		num, pre := strings.CutPrefix(name, "cp-")
		num, suf := strings.CutSuffix(num, ".ctx")
		n, err := strconv.Atoi(num)
		return n, pre && suf && err == nil && n > 0
	})
	sort.Slice(es, func(i, j int) bool { return es[i].N < es[j].N })
	return es, err
}

func historyIn(dir string) ([]Entry, error) {
	es, err := listDir(dir, KindHistory, func(name string) (int, bool) {
		return 0, strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".ctx")
	})
	slices.SortFunc(es, func(a, b Entry) int { return cmp.Or(a.ModTime.Compare(b.ModTime), cmp.Compare(a.Path, b.Path)) })
	return es, err
}

func listDir(dir, kind string, match func(string) (int, bool)) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("store: listing %s: %w", dir, err)
	}
	var out []Entry
	for _, d := range des {
		n, ok := match(d.Name())
		if !ok || !d.Type().IsRegular() {
			continue
		}
		info, err := d.Info()
		if err != nil {
			continue
		}
		out = append(out, Entry{Kind: kind, N: n, Path: filepath.Join(dir, d.Name()),
			ModTime: info.ModTime(), Size: info.Size()})
	}
	return out, nil
}

// CheckpointResult describes a written checkpoint.
type CheckpointResult struct {
	N      int
	Path   string
	Pruned []string // checkpoints removed by the retention rules
}

// WriteCheckpointFunc writes the next checkpoints/cp-NNN.ctx with write
// (called once; if it fails nothing changes) atomically and applies
// checkpoint retention. It requires the lock.
func (s *Store) WriteCheckpointFunc(write func(io.Writer) error) (CheckpointResult, error) {
	var res CheckpointResult
	if err := s.requireLock("store: WriteCheckpointFunc"); err != nil {
		return res, err
	}
	if err := s.EnsureDir(s.CheckpointsDir()); err != nil {
		return res, err
	}
	cps, err := s.Checkpoints()
	if err != nil {
		return res, err
	}
	n := 1
	if len(cps) > 0 {
		n = cps[len(cps)-1].N + 1
	}
	p := s.CheckpointPath(n)
	a, err := CreateAtomic(p, 0o600)
	if err != nil {
		return res, err
	}
	defer a.Abort()
	if err := write(a); err != nil {
		return res, fmt.Errorf("store: writing %s: %w", p, err)
	}
	if err := a.Commit(); err != nil {
		return res, err
	}
	res.N, res.Path = n, p
	res.Pruned, err = s.pruneCheckpoints()
	return res, err
}

// pruneCheckpoints keeps the newest CheckpointKeep checkpoints and, of
// those, removes any older than checkpoint_retention_days (the newest is
// always kept).
func (s *Store) pruneCheckpoints() ([]string, error) {
	cps, err := s.Checkpoints()
	if err != nil {
		return nil, err
	}
	cutoff := s.now().Add(-time.Duration(s.cfg.CheckpointRetentionDays) * 24 * time.Hour)
	var pruned []string
	for i, c := range cps {
		newest := i == len(cps)-1
		tooMany := len(cps)-i > CheckpointKeep
		tooOld := s.cfg.CheckpointRetentionDays > 0 && c.ModTime.Before(cutoff)
		if newest || (!tooMany && !tooOld) {
			continue
		}
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return pruned, fmt.Errorf("store: pruning %s: %w", c.Path, err)
		}
		pruned = append(pruned, c.Path)
	}
	return pruned, nil
}

// pruneHistory removes the oldest history files (and their .meta) beyond
// history_retention_count.
func (s *Store) pruneHistory() ([]string, error) {
	hs, err := s.History()
	if err != nil {
		return nil, err
	}
	keep := s.cfg.HistoryRetentionCount
	var pruned []string
	for i := 0; i < len(hs)-keep; i++ {
		if err := os.Remove(hs[i].Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return pruned, fmt.Errorf("store: pruning %s: %w", hs[i].Path, err)
		}
		os.Remove(hs[i].Path + ".meta")
		pruned = append(pruned, hs[i].Path)
	}
	return pruned, nil
}

// Prune applies the checkpoint and history retention rules now (for
// `ben10 context prune`) and returns the removed files. It requires the
// lock.
func (s *Store) Prune() ([]string, error) {
	if err := s.requireLock("store: Prune"); err != nil {
		return nil, err
	}
	a, err := s.pruneCheckpoints()
	if err != nil {
		return a, err
	}
	b, err := s.pruneHistory()
	return append(a, b...), err
}

// ErrNotCorrupt may be wrapped by a verify function's error to say that a
// file could not be checked (wrong passphrase, permission denied, I/O
// error) without being known to be damaged: Recover then skips the file
// but leaves it in place.
var ErrNotCorrupt = errors.New("store: file could not be verified but is not known to be damaged")

// Recovery is the result of Recover.
type Recovery struct {
	Path        string        // the file to load
	Kind        string        // KindCurrent, KindCheckpoint or KindHistory
	ModTime     time.Time     // when it was saved
	Age         time.Duration // how old it is
	Quarantined []string      // damaged files moved to corrupt/ (their new paths)
	Skipped     []error       // files that failed verification, with reasons
}

// Recover finds the newest saved context that passes verify. It tries
// current.ctx first; after that, checkpoints and history files together,
// newest modification time first (a checkpoint wins a tie): after a
// session's final state was rotated into history, that history file is
// newer than the old session's checkpoints. A file that fails verify is
// moved to corrupt/ (never deleted) unless the error wraps ErrNotCorrupt
// or the store is read-only; moving takes the lock if this Store does not
// hold it already, and leaves files in place if the lock is busy. With no
// valid file it returns ErrNoValidContext (with the Recovery so far).
func (s *Store) Recover(verify func(path string) error) (Recovery, error) {
	var r Recovery
	var cands []Entry
	if fi, err := os.Stat(s.CurrentPath()); err == nil && fi.Mode().IsRegular() {
		cands = append(cands, Entry{Kind: KindCurrent, Path: s.CurrentPath(), ModTime: fi.ModTime(), Size: fi.Size()})
	}
	cps, err := s.Checkpoints()
	if err != nil {
		return r, err
	}
	hs, err := s.History()
	if err != nil {
		return r, err
	}
	rest := append(append([]Entry(nil), cps...), hs...)
	sort.SliceStable(rest, func(i, j int) bool {
		if !rest[i].ModTime.Equal(rest[j].ModTime) {
			return rest[i].ModTime.After(rest[j].ModTime)
		}
		return rest[i].Kind == KindCheckpoint && rest[j].Kind != KindCheckpoint
	})
	cands = append(cands, rest...)

	var unlock func() error
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	for _, c := range cands {
		verr := verify(c.Path)
		if verr == nil {
			r.Path, r.Kind, r.ModTime = c.Path, c.Kind, c.ModTime
			r.Age = s.now().Sub(c.ModTime)
			return r, nil
		}
		r.Skipped = append(r.Skipped, fmt.Errorf("%s %s: %w", c.Kind, c.Path, verr))
		if errors.Is(verr, ErrNotCorrupt) || s.readOnly {
			continue
		}
		if !s.held.Load() && unlock == nil {
			u, err := s.Lock(context.Background())
			if err != nil {
				s.addWarning(Warning{File: c.Path, Message: "damaged, but left in place: " + err.Error()})
				continue
			}
			unlock = u
		}
		q, err := s.quarantine(c)
		if err != nil {
			s.addWarning(Warning{File: c.Path, Message: "damaged, but could not be moved: " + err.Error()})
			continue
		}
		r.Quarantined = append(r.Quarantined, q)
	}
	return r, ErrNoValidContext
}

// Quarantine moves a damaged file of this store into corrupt/ and returns
// its new path. It requires the lock.
func (s *Store) Quarantine(path string) (string, error) {
	if err := s.requireLock("store: Quarantine"); err != nil {
		return "", err
	}
	kind := "file"
	switch {
	case path == s.CurrentPath():
		kind = KindCurrent
	case filepath.Dir(path) == s.CheckpointsDir():
		kind = KindCheckpoint
	case filepath.Dir(path) == s.HistoryDir():
		kind = KindHistory
	}
	return s.quarantine(Entry{Kind: kind, Path: path})
}

func (s *Store) quarantine(e Entry) (string, error) {
	if err := s.EnsureDir(s.CorruptDir()); err != nil {
		return "", err
	}
	stamp := s.now().UTC().Format("20060102T150405.000000000")
	dst := filepath.Join(s.CorruptDir(), e.Kind+"-"+stamp+"-"+filepath.Base(e.Path))
	if err := os.Rename(e.Path, dst); err != nil {
		return "", fmt.Errorf("store: moving %s to %s: %w", e.Path, dst, err)
	}
	meta := e.Path + ".meta"
	if e.Kind == KindCurrent {
		meta = s.MetaPath()
	}
	if err := os.Rename(meta, dst+".meta"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return dst, fmt.Errorf("store: moving %s to %s: %w", meta, s.CorruptDir(), err)
	}
	if err := SyncDir(s.CorruptDir()); err != nil {
		return dst, err
	}
	return dst, SyncDir(filepath.Dir(e.Path))
}

// Usage is the disk space used by a store, in bytes.
type Usage struct {
	Current     int64 `json:"current"` // current.ctx and its meta
	Checkpoints int64 `json:"checkpoints"`
	History     int64 `json:"history"`
	Exports     int64 `json:"exports"`
	Pending     int64 `json:"pending"`
	Corrupt     int64 `json:"corrupt"`
	Other       int64 `json:"other"`     // anything else outside compaction-snapshots/
	Snapshots   int64 `json:"snapshots"` // compaction-snapshots/
	// Context is everything except compaction-snapshots/: what
	// context.max_storage_mb limits.
	Context int64 `json:"context"`
}

// Usage measures the store. Files that vanish meanwhile are ignored.
func (s *Store) Usage() (Usage, error) {
	var u Usage
	// Where each name at the top of the store counts; anything else is Other.
	areas := map[string]*int64{CurrentName: &u.Current, MetaName: &u.Current, CheckpointsName: &u.Checkpoints,
		HistoryName: &u.History, ExportsName: &u.Exports, PendingName: &u.Pending, CorruptName: &u.Corrupt, SnapshotsName: &u.Snapshots}
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.root, p)
		area, ok := areas[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]]
		if !ok {
			area = &u.Other
		}
		*area += info.Size()
		return nil
	})
	if err != nil {
		return u, fmt.Errorf("store: measuring %s: %w", s.root, err)
	}
	u.Context = u.Current + u.Checkpoints + u.History + u.Exports + u.Pending + u.Corrupt + u.Other
	return u, nil
}

// ForgetInstalledHistory removes the history file src (and its meta)
// after a restore installed a copy of it as current.ctx, so that the
// restore swaps the two instead of growing history by the replaced
// current.ctx. A src outside history/ is left alone. It requires the
// lock.
func (s *Store) ForgetInstalledHistory(src string) error {
	if err := s.requireLock("store: ForgetInstalledHistory"); err != nil {
		return err
	}
	if filepath.Dir(filepath.Clean(src)) != s.HistoryDir() {
		return nil
	}
	if err := os.Remove(src); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: removing %s, now current.ctx: %w", src, err)
	}
	if err := os.Remove(src + ".meta"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: removing %s.meta: %w", src, err)
	}
	return SyncDir(s.HistoryDir())
}
