package snapshot

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
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/indexnotes"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// MaxSnapshotBytes is the largest snapshot archive Create writes (PRD
// "snapshot archive limit 500 MB"); a larger one fails with ErrTooLarge.
const MaxSnapshotBytes = 500 << 20

// PendingKind is the store pending kind of a snapshot that waits to be
// merged into index.json.
const PendingKind = "snapshot"

// parkedPrefix names a finished snapshot file that waits for its pending
// record to be merged (the lock was busy when it was written).
const parkedPrefix = "parked-"

// parkGrace is how long a parked file is left to the process that parked
// it: park renames the file into place, then writes its pending record, and
// a repair in between must not adopt the file under the transcript's
// session id (the record, merged later, names the caller's). A file parked
// by a process that died before writing its record is adopted by the
// first repair after this.
const parkGrace = 30 * time.Second

// Errors of this package besides ErrNotFound and ErrAmbiguous.
var (
	// ErrTooLarge: the snapshot archive would exceed MaxSnapshotBytes.
	ErrTooLarge = errors.New("snapshot: archive exceeds the 500 MB snapshot limit")
	// ErrDisabled: compaction_snapshots.enabled is false and the caller
	// did not force the snapshot.
	ErrDisabled = errors.New("snapshot: compaction snapshots are disabled (context.compaction_snapshots.enabled)")
	// ErrExists: an export target already exists.
	ErrExists = errors.New("snapshot: file exists")
	// ErrVerify: a snapshot file failed verification.
	ErrVerify = errors.New("snapshot: verification failed")
)

// Manager creates and manages a project's compaction snapshots. All
// changes to index.json, .pinned and the snapshot files happen under the
// store lock; readers (Index, Get, OpenArchive, Search) take no lock.
type Manager struct {
	st  *store.Store
	cfg *store.Config
	// Warnings collects non-fatal problems of the last operations (pruning
	// blocked by pinned snapshots, repaired index entries).
	warnings []string
	clock    func() time.Time // time.Now; tests replace it
}

// NewManager returns a Manager for st. A nil cfg means st.Config().
func NewManager(st *store.Store, cfg *store.Config) *Manager {
	return &Manager{st: st, cfg: cmp.Or(cfg, st.Config(), store.DefaultConfig()), clock: time.Now}
}

// Store returns the store the manager works in.
func (m *Manager) Store() *store.Store { return m.st }

// Warnings returns and clears the warnings collected so far.
func (m *Manager) Warnings() []string {
	w := m.warnings
	m.warnings = nil
	return w
}

func (m *Manager) warnf(format string, args ...any) {
	m.warnings = append(m.warnings, fmt.Sprintf(format, args...))
}

// Path is the file of a snapshot. index.json is project data: the name
// it records never leads out of the snapshot directory (only its last
// element is used).
func (m *Manager) Path(s Snapshot) string {
	return filepath.Join(m.st.SnapshotDir(), filepath.Base(s.File))
}

// Policy is the retention policy of the configuration.
func (m *Manager) Policy() Policy {
	c := m.cfg.CompactionSnapshots
	return Policy{
		RetentionCount: c.RetentionCount,
		RetentionAge:   time.Duration(c.RetentionDays) * 24 * time.Hour,
		MaxBytes:       int64(c.MaxStorageMB) << 20,
	}
}

// CreateOptions say what to snapshot and how.
type CreateOptions struct {
	TranscriptPath string
	Harness        archive.Harness // "" = detect (Claude Code first)
	SessionID      string          // "" = the transcript's session id
	// Trigger is Claude Code's PreCompact trigger ("auto" | "manual") or
	// a PRD value; it is stored as "threshold" | "manual" | "memory_pressure".
	Trigger   string
	Source    string // "hook" | "watcher" | "cli"
	PreTokens int64  // 0 = the transcript's latest context usage
	Force     bool   // bypass the debounce (and compaction_snapshots.enabled)
	// HoldFor keeps the new snapshot replaceable for this long: a later
	// snapshot of the same session within it replaces this one instead of
	// adding another, whoever takes it. The watcher passes its cooldown, so
	// a PreCompact hook firing inside it refreshes the snapshot rather than
	// doubling it. 0 = only snapshot_debounce applies.
	HoldFor time.Duration
	// Level is the compression level; 0 = compaction_snapshots.compression_level.
	Level ctxfmt.Level
	Now   time.Time // zero = time.Now()
	Tags  []string
	Notes string
	// NoPrevious imports the whole transcript even when an archive of the
	// same session exists to build on (a checkpoint, current.ctx or an
	// earlier snapshot of it).
	NoPrevious bool
	// Limit, when positive, snapshots only the transcript's first Limit
	// bytes (cut after the last complete line; see
	// archive.ImportOptions.Limit): the session as it was when the
	// PreCompact hook took note, before the compaction's boundary.
	Limit int64
	// Context cancels a long snapshot (nil = context.Background()).
	Context context.Context
	// Progress, when set, is told how much of the transcript has been
	// redacted and compressed (see archive.Progress).
	Progress archive.Progress
}

// CreateResult tells what Create did.
type CreateResult struct {
	Snapshot Snapshot `json:"snapshot"`
	Replaced string   `json:"replaced"` // id the debounce replaced, or ""
	Pending  bool     `json:"pending"`  // the lock timed out: the snapshot waits in a pending file
	Path     string   `json:"path"`     // the snapshot file (the parked file when Pending)
	Pruned   []string `json:"pruned"`
	Warnings []string `json:"warnings"`
	// Redactions counts the secrets replaced in the snapshot, per rule:
	// all of them, those of the lines copied from the earlier archive it
	// built on (Resumed) included, as a full save of the transcript
	// counts them.
	Redactions map[string]int `json:"redactions"`
	// NewRedactions counts, per rule, the secrets in the lines this save
	// redacted itself (with Resumed, about the lines added since the
	// earlier archive).
	NewRedactions map[string]int `json:"redactions_new"`
	// Resumed: the save built on an earlier archive of the session (a
	// checkpoint, current.ctx or an earlier snapshot), whose unchanged raw
	// segments it copies.
	Resumed bool `json:"resumed"`
}

// NormalizeTrigger maps Claude Code's PreCompact trigger onto the PRD's
// compaction_trigger values.
func NormalizeTrigger(t string) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "auto", "threshold", "":
		return "threshold"
	case "manual":
		return "manual"
	case "memory_pressure", "memory-pressure":
		return "memory_pressure"
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// pendingRecord is what a writer that timed out on the lock leaves in the
// store's pending directory.
type pendingRecord struct {
	Snapshot Snapshot `json:"snapshot"`
	Parked   string   `json:"parked"` // file name in compaction-snapshots/
	Force    bool     `json:"force"`
}

// Create takes a snapshot: import the transcript, redact, encode to a
// temporary file next to the snapshots (atomic, fsynced), verify it, then
// under the store lock merge pending snapshots, apply the debounce, move the
// file to its final name, prune, and write index.json and .pinned
// atomically. When the lock cannot be taken in time the finished file is
// parked and a pending record written; the next locked operation merges it.
func (m *Manager) Create(o CreateOptions) (*CreateResult, error) {
	if o.TranscriptPath == "" {
		return nil, errors.New("snapshot: no transcript path")
	}
	if !m.cfg.CompactionSnapshots.Enabled && !o.Force {
		return nil, ErrDisabled
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("snapshot of %s: %w", o.TranscriptPath, err)
	}
	defer LimitMemory(o.TranscriptPath)()
	now := o.Now
	if now.IsZero() {
		now = m.clock()
	}
	now = now.UTC()
	if o.Limit > 0 {
		// A prefix of the transcript: an earlier archive of the session
		// may hold more than it; imported in full.
		o.NoPrevious = true
	}
	level := cmp.Or(o.Level, ctxfmt.LevelFromZstd(m.cfg.CompactionSnapshots.CompressionLevel))
	eopts, red, err := EncodeOptions(m.cfg, level)
	if err != nil {
		return nil, err
	}
	eopts.Auth = AuthKeyFor(m.st)
	keys := withKeyCache(&eopts)
	defer keys.Wipe()
	eopts.Progress = o.Progress
	if err := m.st.EnsureDir(m.st.SnapshotDir()); err != nil {
		return nil, err
	}
	// Build on an earlier archive of this session (a checkpoint, current.ctx
	// or an earlier snapshot under the same redaction settings, see
	// Previous) when there is one: its unchanged raw segments are copied
	// without recompression. The content is the same as a full save's.
	if o.SessionID != "" && !o.NoPrevious {
		if prev := m.previous(o.SessionID, eopts.RedactFingerprint); prev != nil {
			defer prev.Close()
			eopts.Previous = prev
		}
	}
	var st *archive.State
	var stats archive.EncodeStats
	tmp, info, err := m.writeTemp(func(w io.Writer) error {
		var err error
		iopt := m.importOptions()
		iopt.Limit = o.Limit
		st, stats, err = transcript.Save(ctx, &ctxWriter{ctx: ctx, w: w}, o.TranscriptPath, o.Harness, iopt, eopts)
		if err != nil {
			return fmt.Errorf("snapshot: importing %s: %w", o.TranscriptPath, err)
		}
		return nil
	}, keys)
	if err != nil {
		return nil, err
	}
	session := cmp.Or(o.SessionID, st.Meta.SessionID)
	defer os.Remove(tmp) // no-op once renamed
	msgs, tools := StateCounts(st)
	pre := cmp.Or(o.PreTokens, st.Meta.ContextTokens)
	snap := Snapshot{
		CreatedAt: now,
		SessionID: session,
		PreCompaction: PreCompaction{
			TokenCount:         pre,
			MessageCount:       msgs,
			FileCount:          len(st.Files),
			ToolExecutionCount: tools,
		},
		Trigger:           NormalizeTrigger(o.Trigger),
		Source:            o.Source,
		ContentHash:       info.hash,
		CompressedBytes:   info.size,
		UncompressedBytes: info.raw,
		Level:             level.String(),
		Tags:              o.Tags,
		Notes:             o.Notes,
		HoldUntil:         holdUntil(now, o.HoldFor),
		Transcript:        absPath(o.TranscriptPath),
		Harness:           string(st.Meta.Harness),
		FileContents:      len(st.FileContents),
	}
	res := &CreateResult{NewRedactions: red.Counts(), Resumed: eopts.Previous != nil}
	res.Redactions, snap.Redactions = archiveRedactions(stats, red)
	unlock, err := m.st.Lock(ctx)
	if errors.Is(err, store.ErrLockTimeout) {
		return m.park(tmp, snap, o.Force, res)
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	err = m.update(now, func(ix *Index) error {
		if err := m.checkLimit(ix, snap.CompressedBytes); err != nil {
			return err
		}
		added, replaced, err := m.add(ix, tmp, snap, o.Force, now)
		if err != nil {
			return err
		}
		res.Snapshot, res.Replaced, res.Path = added, replaced, m.Path(added)
		return nil
	}, res)
	if err != nil {
		return nil, err
	}
	res.Warnings = m.Warnings()
	_ = m.st.Audit(store.AuditEntry{Action: store.ActionSave, SnapshotID: res.Snapshot.ID, Path: res.Path,
		SizeBytes: res.Snapshot.CompressedBytes, Messages: res.Snapshot.PreCompaction.MessageCount,
		RedactionsApplied: res.Snapshot.Redactions, Session: session,
		Detail: "compaction snapshot (" + res.Snapshot.Trigger + ", " + orDash(o.Source) + ")"})
	_ = indexnotes.Append(m.st.Home(), m.st.ProjectDir(), res.Path) // the next index update picks it up
	return res, nil
}

// StateCounts returns the numbers of messages and tool executions of a
// saved State.
func StateCounts(st *archive.State) (messages, tools int) {
	return len(st.Messages), len(st.Tools)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// park moves a finished snapshot file aside and records it as pending.
func (m *Manager) park(tmp string, snap Snapshot, force bool, res *CreateResult) (*CreateResult, error) {
	name := fmt.Sprintf("%s%s-%d-%d.ctx", parkedPrefix, sanitize(snap.SessionID), time.Now().UnixNano(), os.Getpid())
	dst := filepath.Join(m.st.SnapshotDir(), name)
	// parkGrace counts from now, not from when the file was written (a
	// large snapshot's write and verification can take longer).
	now := time.Now()
	_ = os.Chtimes(tmp, now, now)
	if err := os.Rename(tmp, dst); err != nil {
		return nil, fmt.Errorf("snapshot: parking %s: %w", tmp, err)
	}
	_ = store.SyncDir(m.st.SnapshotDir())
	data, _ := json.Marshal(pendingRecord{Snapshot: snap, Parked: name, Force: force})
	if _, err := m.st.WritePending(PendingKind, snap.SessionID, data); err != nil {
		// The parked file itself is still adopted by the next repair.
		return nil, fmt.Errorf("snapshot: lock busy and pending record failed (the snapshot file %s stays and is adopted later): %w", dst, err)
	}
	res.Snapshot, res.Pending, res.Path = snap, true, dst
	return res, nil
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "nosess"
	}
	return b.String()
}

type fileInfo struct {
	hash      string
	size, raw int64
}

// limitWriter fails once more than n bytes were written.
type limitWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, ErrTooLarge
	}
	l.n -= int64(len(p))
	l.h.Write(p)
	return l.w.Write(p)
}

// writeTemp writes a snapshot file to a temporary file in the snapshot
// directory (0600, fsynced) and verifies it deeply. The caller renames or
// removes it.
func (m *Manager) writeTemp(write func(io.Writer) error, keys *ctxfmt.KeyCache) (string, fileInfo, error) {
	dir := m.st.SnapshotDir()
	f, err := os.CreateTemp(dir, store.TempPrefix+"snap-*")
	if err != nil {
		return "", fileInfo{}, err
	}
	tmp := f.Name()
	fail := func(err error) (string, fileInfo, error) {
		f.Close()
		os.Remove(tmp)
		return "", fileInfo{}, err
	}
	if err := f.Chmod(0o600); err != nil {
		return fail(err)
	}
	lw := &limitWriter{w: f, h: sha256.New(), n: MaxSnapshotBytes}
	if err := write(lw); err != nil {
		return fail(fmt.Errorf("snapshot: writing %s: %w", tmp, err))
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	info := fileInfo{hash: hex.EncodeToString(lw.h.Sum(nil)), size: MaxSnapshotBytes - lw.n}
	raw, err := m.verify(tmp, keys)
	if err != nil {
		os.Remove(tmp)
		return "", fileInfo{}, err
	}
	info.raw = raw
	return tmp, info, nil
}

// verify checks a snapshot file deeply (every segment's checksum and
// decoding) and that it opens as an archive; it returns the decoded size.
// keys (may be nil) holds the key derived when the file was written.
func (m *Manager) verify(path string, keys *ctxfmt.KeyCache) (int64, error) {
	oo := OpenOptions(m.cfg)
	oo.Keys = keys
	err := ctxfmt.VerifyFile(path, ctxfmt.VerifyOptions{Deep: true, Passphrase: oo.Passphrase, Key: oo.Key, Keys: keys})
	var segs []ctxfmt.SegmentInfo
	if errors.Is(err, ctxfmt.ErrKeyRequired) {
		// Structure and checksums passed; without the key the
		// contents cannot be checked further.
		var r *ctxfmt.ReadCloser
		if r, err = ctxfmt.OpenFile(path, ctxfmt.ReaderOptions{Passphrase: oo.Passphrase, Key: oo.Key}); err == nil {
			segs = r.Segments()
			r.Close()
		}
	} else if err == nil {
		var a *archive.Archive
		if a, err = archive.OpenFile(path, oo); err == nil {
			segs = a.Container().Segments()
			a.Close()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrVerify, path, err)
	}
	var raw int64
	for _, s := range segs {
		raw += s.RawLen
	}
	return raw, nil
}

// Verify checks one snapshot file deeply and against the content hash
// recorded in index.json.
func (m *Manager) Verify(idOrPrefix string) error {
	s, err := m.Get(idOrPrefix)
	if err != nil {
		return err
	}
	p := m.Path(s)
	h, err := fileHash(p)
	if err != nil {
		return err
	}
	if s.ContentHash != "" && h != s.ContentHash {
		return fmt.Errorf("%w: %s: SHA-256 %s, index.json records %s", ErrVerify, p, h, s.ContentHash)
	}
	_, err = m.verify(p, nil)
	return err
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkLimit refuses a snapshot that would take the snapshot storage
// beyond compaction_snapshots.max_storage_mb even after pruning every
// unpinned snapshot.
func (m *Manager) checkLimit(ix *Index, add int64) error {
	limit := int64(m.cfg.CompactionSnapshots.MaxStorageMB) << 20
	if limit <= 0 {
		return nil
	}
	var pinned int64
	for _, s := range ix.Snapshots {
		if s.Pinned {
			pinned += s.CompressedBytes
		}
	}
	if pinned+add > limit {
		return &store.StorageLimitError{Area: "compaction-snapshots", UsedBytes: ix.total(), AddBytes: add,
			LimitBytes: limit, Options: store.SnapshotLimitOptions}
	}
	return nil
}

func holdUntil(now time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return now.Add(d)
}

// add moves the verified temporary file tmp into place as a new snapshot,
// replacing a debounced one of the same session unless force. It requires
// the lock and leaves writing the index to the caller.
func (m *Manager) add(ix *Index, tmp string, snap Snapshot, force bool, now time.Time) (Snapshot, string, error) {
	replaced := ""
	if !force {
		if i := ix.Debounced(snap.SessionID, m.cfg.SnapshotDebounce, snap.CreatedAt); i >= 0 {
			old := ix.Snapshots[i]
			replaced = old.ID
			// Keep what the user attached to the replaced snapshot.
			snap.Tags = union(old.Tags, snap.Tags)
			if snap.Notes == "" {
				snap.Notes = old.Notes
			}
		}
	}
	// A file of the chosen name that the index does not list (repair
	// adopts it) is skipped over: placeholders make NewID pick the next.
	var taken []string
	for {
		snap.ID = ix.NewID(snap.CreatedAt, snap.SessionID)
		snap.File = snap.ID + ".ctx"
		if _, err := os.Lstat(m.Path(snap)); errors.Is(err, fs.ErrNotExist) {
			break
		}
		ix.Snapshots = append(ix.Snapshots, Snapshot{ID: snap.ID})
		taken = append(taken, snap.ID)
	}
	for _, id := range taken {
		ix.remove(id)
	}
	if err := os.Rename(tmp, m.Path(snap)); err != nil {
		return Snapshot{}, "", fmt.Errorf("snapshot: moving %s into place: %w", tmp, err)
	}
	_ = store.SyncDir(m.st.SnapshotDir())
	if replaced != "" {
		i, _ := ix.Resolve(replaced)
		if err := m.removeFile(ix.Snapshots[i]); err != nil {
			return Snapshot{}, "", err
		}
		ix.remove(replaced)
	}
	ix.Snapshots = append(ix.Snapshots, snap)
	ix.sort()
	return snap, replaced, nil
}

func (ix *Index) remove(id string) {
	ix.Snapshots = slices.DeleteFunc(ix.Snapshots, func(s Snapshot) bool { return s.ID == id })
}

func (m *Manager) removeFile(s Snapshot) error {
	err := os.Remove(m.Path(s))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("snapshot: removing %s: %w", m.Path(s), err)
	}
	return nil
}

// update runs fn on the index under the lock (the caller holds it):
// it loads index.json (rebuilding it from the files when it is missing
// or damaged), merges pending snapshots, repairs entries whose file is
// missing and adopts snapshot files the index does not know, runs fn,
// prunes by the retention policy, and writes index.json and .pinned.
// res, when not nil, receives the ids pruned.
func (m *Manager) update(now time.Time, fn func(ix *Index) error, res *CreateResult) error {
	ix, err := m.loadLocked()
	if err != nil {
		return err
	}
	m.mergePending(ix, now)
	m.repair(ix)
	keep := ""
	if fn != nil {
		if err := fn(ix); err != nil {
			// Still persist what merging and repair did.
			_ = m.write(ix)
			return err
		}
		if res != nil {
			keep = res.Snapshot.ID
		}
	}
	pruned, err := m.pruneLocked(ix, now, keep)
	if res != nil {
		res.Pruned = pruned
	}
	if err != nil {
		_ = m.write(ix)
		return err
	}
	return m.write(ix)
}

// pruneLocked deletes what the retention policy says, never keep.
func (m *Manager) pruneLocked(ix *Index, now time.Time, keep string) ([]string, error) {
	plan := PlanPrune(ix, m.Policy(), now)
	for _, w := range plan.Warnings {
		m.warnf("%s", w)
	}
	var pruned []string
	for _, id := range plan.Delete {
		if id == keep {
			m.warnf("the new snapshot %s is kept although the retention limits are reached: pinned snapshots fill them", ShortID(id))
			continue
		}
		i, err := ix.Resolve(id)
		if err != nil {
			continue
		}
		if err := m.removeFile(ix.Snapshots[i]); err != nil {
			return pruned, err
		}
		ix.remove(id)
		pruned = append(pruned, id)
	}
	if len(pruned) > 0 {
		ix.LastPruned = now
		_ = m.st.Audit(store.AuditEntry{Action: store.ActionPrune, Count: len(pruned), Path: m.st.SnapshotDir(),
			Detail: "compaction snapshots: " + strings.Join(pruned, ", ")})
	}
	return pruned, nil
}

// loadLocked reads index.json; a damaged one is moved to corrupt/ and the
// index rebuilt from the snapshot files (pins from .pinned).
func (m *Manager) loadLocked() (*Index, error) {
	data, err := store.ReadFileBounded(m.st.IndexPath(), MaxIndexBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("snapshot: reading %s: %w", m.st.IndexPath(), err)
	}
	ix, perr := ParseIndex(data)
	if perr == nil {
		return ix, nil
	}
	moved, qerr := m.st.Quarantine(m.st.IndexPath())
	if qerr != nil {
		return nil, fmt.Errorf("snapshot: %w (and moving it aside failed: %w)", perr, qerr)
	}
	m.warnf("%v: moved to %s; the index is rebuilt from the snapshot files", perr, moved)
	ix = &Index{Version: IndexVersion}
	for _, id := range m.readPinned() {
		// Placeholder entries make repair keep the pin of files it adopts.
		ix.Snapshots = append(ix.Snapshots, Snapshot{ID: id, File: id + ".ctx", Pinned: true, placeholder: true})
	}
	return ix, nil
}

func (m *Manager) readPinned() []string {
	data, err := store.ReadFileBounded(m.st.PinnedPath(), store.MaxSmallFileBytes)
	if err != nil {
		return nil
	}
	var ids []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			ids = append(ids, l)
		}
	}
	return ids
}

// write stores index.json and .pinned atomically. It is the only writer
// of both.
func (m *Manager) write(ix *Index) error {
	if err := m.st.EnsureDir(m.st.SnapshotDir()); err != nil {
		return err
	}
	data := ix.Marshal()
	if err := store.WriteFileAtomic(m.st.IndexPath(), data); err != nil {
		return fmt.Errorf("snapshot: writing index.json: %w", err)
	}
	var b strings.Builder
	b.WriteString("# pinned compaction snapshots (kept in sync with index.json)\n")
	for _, s := range ix.Snapshots {
		if s.Pinned {
			b.WriteString(s.ID + "\n")
		}
	}
	// Most index writes (a new snapshot, a prune) change no pin: the file
	// is rewritten only when its content changes. No file at all says no
	// pin as well (readPinned): none is written until a snapshot is pinned
	// (the first snapshot of a project spares two fsyncs).
	old, err := store.ReadFileBounded(m.st.PinnedPath(), store.MaxSmallFileBytes)
	if (err == nil && string(old) == b.String()) || (errors.Is(err, fs.ErrNotExist) && ix.pinned() == 0) {
		return nil
	}
	if err := store.WriteFileAtomic(m.st.PinnedPath(), []byte(b.String())); err != nil {
		return fmt.Errorf("snapshot: writing .pinned: %w", err)
	}
	return nil
}

// mergePending adds the snapshots whose writers could not take the lock.
func (m *Manager) mergePending(ix *Index, now time.Time) {
	ps, err := m.st.TakePending()
	if err != nil {
		m.warnf("listing pending snapshots: %v", err)
		return
	}
	for _, p := range ps {
		if p.Kind != PendingKind {
			continue
		}
		data, err := m.st.ReadPending(p)
		var rec pendingRecord
		if err == nil {
			err = json.Unmarshal(data, &rec)
		}
		if err != nil || rec.Parked == "" || strings.ContainsAny(rec.Parked, `/\`) {
			m.warnf("pending snapshot %s is unreadable (%v); left in place", p.Path, err)
			continue
		}
		parked := filepath.Join(m.st.SnapshotDir(), rec.Parked)
		if _, err := os.Stat(parked); err != nil {
			// Merged before when the index has its hash (a crash kept
			// the record); else the file is gone.
			h := rec.Snapshot.ContentHash
			if h == "" || !slices.ContainsFunc(ix.Snapshots, func(s Snapshot) bool { return s.ContentHash == h }) {
				m.warnf("pending snapshot %s names %s, which is gone", p.Path, rec.Parked)
			}
			_ = m.st.DonePending(p)
			continue
		}
		if _, _, err := m.add(ix, parked, rec.Snapshot, rec.Force, now); err != nil {
			m.warnf("merging pending snapshot %s: %v", p.Path, err)
			continue
		}
		// The index is written by the caller before the lock is
		// released; a crash before that leaves the file to repair.
		if err := m.write(ix); err == nil {
			_ = m.st.DonePending(p)
		}
	}
}

// repair drops index entries whose file is gone and adopts snapshot files
// (pre-compact-*.ctx, and parked files no pending record names) that the
// index does not list.
func (m *Manager) repair(ix *Index) {
	entries, err := os.ReadDir(m.st.SnapshotDir())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.warnf("listing %s: %v", m.st.SnapshotDir(), err)
		}
		ix.Snapshots = ix.Snapshots[:0]
		return
	}
	files := map[string]bool{}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".ctx") {
			files[e.Name()] = true
		}
	}
	pinned := map[string]bool{}
	kept := ix.Snapshots[:0]
	for _, s := range ix.Snapshots {
		if s.placeholder {
			pinned[s.ID] = true
			continue
		}
		if files[s.File] {
			kept = append(kept, s)
			delete(files, s.File)
			continue
		}
		m.warnf("snapshot %s is listed in index.json but its file %s is gone; entry removed", ShortID(s.ID), s.File)
	}
	ix.Snapshots = kept
	var adopt []string
	for name := range files {
		if strings.HasPrefix(name, "pre-compact-") || strings.HasPrefix(name, parkedPrefix) {
			adopt = append(adopt, name)
		}
	}
	sort.Strings(adopt)
	for _, name := range adopt {
		if strings.HasPrefix(name, parkedPrefix) && (m.parkedRecently(name) || m.pendingNames(name)) {
			continue
		}
		m.adopt(ix, name, pinned)
	}
	ix.sort()
}

// parkedRecently reports whether a parked file may still be waiting for
// its pending record (see parkGrace).
func (m *Manager) parkedRecently(name string) bool {
	fi, err := os.Lstat(filepath.Join(m.st.SnapshotDir(), name))
	return err == nil && time.Since(fi.ModTime()) < parkGrace
}

// pendingNames reports whether a pending record still names the parked
// file (then mergePending owns it).
func (m *Manager) pendingNames(name string) bool {
	ps, err := m.st.TakePending()
	if err != nil {
		return true
	}
	for _, p := range ps {
		if p.Kind != PendingKind {
			continue
		}
		data, err := m.st.ReadPending(p)
		if err != nil {
			return true
		}
		var rec pendingRecord
		if json.Unmarshal(data, &rec) == nil && rec.Parked == name {
			return true
		}
	}
	return false
}

// adopt adds an unlisted snapshot file to the index after verifying it;
// a damaged one is moved to corrupt/.
func (m *Manager) adopt(ix *Index, name string, pinned map[string]bool) {
	p := filepath.Join(m.st.SnapshotDir(), name)
	raw, err := m.verify(p, nil)
	if err != nil {
		if moved, qerr := m.st.Quarantine(p); qerr == nil {
			m.warnf("snapshot file %s failed verification (%v); moved to %s", name, err, moved)
		} else {
			m.warnf("snapshot file %s failed verification (%v) and could not be moved aside: %v", name, err, qerr)
		}
		return
	}
	h, err := fileHash(p)
	if err != nil {
		m.warnf("adopting %s: %v", name, err)
		return
	}
	fi, err := os.Stat(p)
	if err != nil {
		m.warnf("adopting %s: %v", name, err)
		return
	}
	s := Snapshot{File: name, ContentHash: h, CompressedBytes: fi.Size(), UncompressedBytes: raw, Trigger: "threshold", Source: "recovered", Tags: []string{}}
	if a, err := archive.OpenFile(p, OpenOptions(m.cfg)); err == nil {
		md := a.Meta()
		s.SessionID = md.SessionID
		s.Harness = string(md.Harness)
		s.PreCompaction = PreCompaction{TokenCount: md.ContextTokens, MessageCount: md.MessageCount, FileCount: md.FileCount, ToolExecutionCount: md.ToolCount}
		s.CreatedAt = md.UpdatedAt.UTC()
		s.FileContents = a.Summary().Contents
		a.Close()
	}
	if strings.HasPrefix(name, "pre-compact-") {
		s.ID = strings.TrimSuffix(name, ".ctx")
		if t, ok := idTime(s.ID); ok {
			s.CreatedAt = t
		}
	} else {
		if s.CreatedAt.IsZero() {
			s.CreatedAt = fi.ModTime().UTC()
		}
		s.ID = ix.NewID(s.CreatedAt, s.SessionID)
		s.File = s.ID + ".ctx"
		if err := os.Rename(p, m.Path(s)); err != nil {
			m.warnf("adopting %s: %v", name, err)
			return
		}
		_ = store.SyncDir(m.st.SnapshotDir())
	}
	s.Pinned = pinned[s.ID]
	ix.Snapshots = append(ix.Snapshots, s)
	m.warnf("snapshot file %s was not in index.json; adopted as %s", name, ShortID(s.ID))
}

// idTime parses the time in pre-compact-YYYYMMDD-HHMMSS-….
func idTime(id string) (time.Time, bool) {
	rest := strings.TrimPrefix(id, "pre-compact-")
	if len(rest) < 15 {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102-150405", rest[:15])
	return t, err == nil
}

// withLock runs fn on the index under the store lock (see update; res,
// when not nil, receives the ids pruned).
func (m *Manager) withLock(now time.Time, fn func(ix *Index) error, res *CreateResult) error {
	if now.IsZero() {
		now = m.clock()
	}
	return m.st.WithLock(context.Background(), func() error { return m.update(now.UTC(), fn, res) })
}

// Sync takes the lock and merges pending snapshots, repairs the index and
// applies retention; it is what every locked operation does first.
func (m *Manager) Sync(now time.Time) error { return m.withLock(now, nil, nil) }

// Index reads index.json (and nothing else). A missing file is an empty
// index.
func (m *Manager) Index() (*Index, error) {
	data, err := store.ReadFileBounded(m.st.IndexPath(), MaxIndexBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("snapshot: reading %s: %w", m.st.IndexPath(), err)
	}
	return ParseIndex(data)
}

// Get resolves an id or unique prefix (see Index.Resolve).
func (m *Manager) Get(idOrPrefix string) (Snapshot, error) {
	ix, err := m.Index()
	if err != nil {
		return Snapshot{}, err
	}
	i, err := ix.Resolve(idOrPrefix)
	if err != nil {
		return Snapshot{}, err
	}
	return ix.Snapshots[i], nil
}

// OpenArchive opens a snapshot's archive lazily; the caller closes it.
func (m *Manager) OpenArchive(idOrPrefix string) (*archive.Archive, Snapshot, error) {
	s, err := m.Get(idOrPrefix)
	if err != nil {
		return nil, s, err
	}
	a, err := archive.OpenFile(m.Path(s), OpenOptions(m.cfg))
	if err != nil {
		return nil, s, fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	return a, s, nil
}

// LatestForSession returns the newest snapshot of a session.
func (m *Manager) LatestForSession(sessionID string) (Snapshot, bool, error) {
	ix, err := m.Index()
	if err != nil {
		return Snapshot{}, false, err
	}
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		if ix.Snapshots[i].SessionID == sessionID {
			return ix.Snapshots[i], true, nil
		}
	}
	return Snapshot{}, false, nil
}

// modify resolves id under the lock and lets fn change its entry.
func (m *Manager) modify(id string, fn func(ix *Index, i int) error) error {
	return m.withLock(time.Time{}, func(ix *Index) error {
		i, err := ix.Resolve(id)
		if err != nil {
			return err
		}
		return fn(ix, i)
	}, nil)
}

// Pin sets or clears a snapshot's pinned flag (index.json and .pinned).
func (m *Manager) Pin(id string, pinned bool) error {
	return m.modify(id, func(ix *Index, i int) error {
		ix.Snapshots[i].Pinned = pinned
		return nil
	})
}

// Delete removes a snapshot (pinned ones too: deleting is explicit).
func (m *Manager) Delete(id string) error {
	var gone Snapshot
	err := m.modify(id, func(ix *Index, i int) error {
		gone = ix.Snapshots[i]
		if err := m.removeFile(gone); err != nil {
			return err
		}
		ix.remove(gone.ID)
		return nil
	})
	if err == nil {
		_ = m.st.Audit(store.AuditEntry{Action: store.ActionDelete, SnapshotID: gone.ID, Path: m.Path(gone), SizeBytes: gone.CompressedBytes})
	}
	return err
}

// Prune applies the retention policy now and returns what it did.
func (m *Manager) Prune(now time.Time) (Plan, error) {
	res := &CreateResult{}
	err := m.withLock(now, nil, res)
	return Plan{Delete: res.Pruned, Warnings: m.Warnings()}, err
}

// Export copies a snapshot to path as a standalone .ctx file (atomically;
// an existing path is ErrExists).
func (m *Manager) Export(id, path string) error {
	s, err := m.Get(id)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, path)
	}
	src, err := os.Open(m.Path(s))
	if err != nil {
		return err
	}
	defer src.Close()
	af, err := store.CreateAtomic(path, 0o600)
	if err != nil {
		return err
	}
	defer af.Abort()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(af, h), src); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); s.ContentHash != "" && got != s.ContentHash {
		return fmt.Errorf("%w: %s: SHA-256 %s, index.json records %s", ErrVerify, m.Path(s), got, s.ContentHash)
	}
	if err := af.Commit(); err != nil {
		return err
	}
	_ = m.st.Audit(store.AuditEntry{Action: store.ActionExport, SnapshotID: s.ID, ExportPath: path, SizeBytes: s.CompressedBytes, Messages: s.PreCompaction.MessageCount})
	return nil
}

// importOptions are the importer options of the snapshots of m's store.
func (m *Manager) importOptions() archive.ImportOptions {
	return archive.ImportOptions{
		ProjectDir:          m.st.ProjectDir(),
		IncludeFileContents: m.cfg.CompactionSnapshots.IncludeFileContents,
		ExcludePatterns:     ExcludePatterns(m.cfg),
	}
}
