package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// SourceWatcher is the Snapshot.Source the watcher records.
const SourceWatcher = "watcher"

// StorePreserver exports into the session's project store: the project
// directory is the session's working directory as its transcript records
// it (store.Open falls back to ~/.claude-code/contexts/<hash>/ when that
// directory cannot be written). A session whose directory no longer
// exists is stored under OrphanDir.
type StorePreserver struct {
	Home string
	// Level is the compression level of archives and snapshots (0 = the
	// store's compaction_snapshots.compression_level for snapshots and
	// the default for archives).
	Level ctxfmt.Level
}

// OrphanDir is the project directory used for sessions whose working
// directory is unknown or gone: ~/.claude-code/watch/orphans/<assistant>.
func OrphanDir(home string, h archive.Harness) string {
	return filepath.Join(home, ".claude-code", "watch", "orphans", string(h))
}

// Preserve imports the session, writes it as the project's current.ctx
// (incrementally when current.ctx already holds an earlier state of the
// same session; the previous session's current.ctx goes to history/
// otherwise) and, when asked, takes a pre-compaction snapshot through
// snapshot.Manager with Source "watcher" — unless the session's newest
// snapshot, whoever took it, is younger than the cooldown. Create verifies
// the snapshot deeply (every segment) before it moves it into place.
func (p *StorePreserver) Preserve(req Request) (Result, error) {
	var res Result
	sess := req.Session
	ctx := req.Context
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := transcript.Import(ctx, sess.Path, sess.Harness, archive.ImportOptions{})
	if err != nil {
		return res, fmt.Errorf("importing %s: %w", sess.Path, err)
	}
	project := st.Meta.DirectoryPath
	if fi, err := os.Stat(project); project == "" || err != nil || !fi.IsDir() {
		project = OrphanDir(p.Home, sess.Harness)
		if err := os.MkdirAll(project, 0o700); err != nil {
			return res, fmt.Errorf("creating %s: %w", project, err)
		}
	}
	s, err := store.Open(project, store.Options{Home: p.Home, Session: sess.ID})
	if err != nil {
		return res, err
	}
	res.Project, res.Store = s.ProjectDir(), s.Root()
	cfg := s.Config()
	if !cfg.AutoSave {
		// The project's own choice: no save, no snapshot (not an error).
		res.SkippedArchive = "auto_save is off for " + s.ProjectDir()
		return res, nil
	}
	if err := p.archive(s, cfg, sess, st, req, &res); err != nil {
		return res, err
	}
	m := snapshot.NewManager(s, cfg)
	last, ok, err := m.LatestForSession(sess.ID)
	if err != nil {
		return res, fmt.Errorf("reading the snapshot index of %s: %w", s.Root(), err)
	}
	if ok {
		res.LastSnapshot, res.LastSnapshotSource, res.LastSnapshotID = last.CreatedAt, last.Source, last.ID
	}
	if !req.Snapshot {
		return res, nil
	}
	if !cfg.CompactionSnapshots.Enabled {
		res.SkippedSnapshot = "compaction snapshots are disabled for this project (context.compaction_snapshots.enabled)"
		return res, nil
	}
	if ok && req.Now.Sub(last.CreatedAt) < req.Cooldown {
		res.SkippedSnapshot = fmt.Sprintf("session already has snapshot %s from the %s, %s ago (cooldown %s)",
			last.ID, cmp.Or(last.Source, "unknown source"), req.Now.Sub(last.CreatedAt).Round(1e9), req.Cooldown)
		return res, nil
	}
	cr, err := m.Create(snapshot.CreateOptions{TranscriptPath: sess.Path, Harness: sess.Harness, SessionID: sess.ID,
		Trigger: "auto", Source: SourceWatcher, PreTokens: req.ContextTokens, Level: p.Level, Now: req.Now,
		HoldFor: req.Cooldown, Context: ctx})
	if err != nil {
		return res, fmt.Errorf("snapshot of %s: %w", sess.ID, err)
	}
	info := &SnapshotInfo{ID: cr.Snapshot.ID, Path: cr.Path, CreatedAt: cr.Snapshot.CreatedAt, Replaced: cr.Replaced, Pending: cr.Pending}
	if info.CreatedAt.IsZero() {
		info.CreatedAt = req.Now
	}
	res.Snapshot = info
	res.LastSnapshot, res.LastSnapshotSource, res.LastSnapshotID = info.CreatedAt, SourceWatcher, info.ID
	return res, nil
}

// archive saves the session as current.ctx through snapshot.SaveCurrent,
// the save the hooks and `ben10 context save` use (same rotate rule, same
// meta, redaction fingerprint and compression setting); st is the
// session as imported, for its directory.
func (p *StorePreserver) archive(s *store.Store, cfg *store.Config, sess *Session, st *archive.State, req Request, res *Result) error {
	now := req.Now
	r := snapshot.SaveRequest{Transcript: sess.Path, Harness: sess.Harness, SessionID: sess.ID, Source: SourceWatcher,
		ContextTokens: req.ContextTokens, Now: func() time.Time { return now }}
	r.Import.ProjectDir = st.Meta.DirectoryPath
	if p.Level != 0 {
		opts, _, err := snapshot.EncodeOptions(cfg, p.Level)
		if err != nil {
			return err
		}
		r.Encode = &opts
	}
	sr, err := snapshot.SaveCurrent(context.Background(), s, cfg, r)
	if errors.Is(err, snapshot.ErrNoConversation) {
		res.SkippedArchive = "the session holds no conversation yet"
		return nil
	}
	if err != nil {
		var le *store.StorageLimitError
		if errors.As(err, &le) {
			return fmt.Errorf("archive of %s not written: %w", sess.ID, err)
		}
		return err
	}
	res.Archive, res.ArchiveBytes, res.CopiedBytes = sr.Path, sr.Bytes, sr.Stats.CopiedBytes
	return nil
}
