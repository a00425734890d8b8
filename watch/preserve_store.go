package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
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
// snapshot, whoever took it, is younger than the cooldown. The snapshot is
// verified by re-opening it and reading every raw segment.
func (p *StorePreserver) Preserve(req Request) (Result, error) {
	var res Result
	sess := req.Session
	st, err := transcript.Import(sess.Path, sess.Harness, archive.ImportOptions{})
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
			last.ID, orUnknown(last.Source), req.Now.Sub(last.CreatedAt).Round(1e9), req.Cooldown)
		return res, nil
	}
	cr, err := m.Create(snapshot.CreateOptions{TranscriptPath: sess.Path, Harness: sess.Harness, SessionID: sess.ID,
		Trigger: "auto", Source: SourceWatcher, PreTokens: req.ContextTokens, Level: p.Level, Now: req.Now,
		HoldFor: req.Cooldown})
	if err != nil {
		return res, fmt.Errorf("snapshot of %s: %w", sess.ID, err)
	}
	_ = index.NoteArchive(m.Store().Home(), m.Store().ProjectDir(), cr.Path)
	info := &SnapshotInfo{ID: cr.Snapshot.ID, Path: cr.Path, CreatedAt: cr.Snapshot.CreatedAt, Replaced: cr.Replaced, Pending: cr.Pending}
	if info.CreatedAt.IsZero() {
		info.CreatedAt = req.Now
	}
	if !cr.Pending {
		if err := verifyArchive(cr.Path, cfg); err != nil {
			return res, fmt.Errorf("snapshot %s does not verify: %w", cr.Snapshot.ID, err)
		}
		info.Verified = true
	}
	res.Snapshot = info
	res.LastSnapshot, res.LastSnapshotSource, res.LastSnapshotID = info.CreatedAt, SourceWatcher, info.ID
	return res, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown source"
	}
	return s
}

// archive writes st as current.ctx under the store lock.
func (p *StorePreserver) archive(s *store.Store, cfg *store.Config, sess *Session, st *archive.State, req Request, res *Result) error {
	unlock, err := s.Lock(context.Background()) // waits at most context.lock_timeout
	if err != nil {
		return err
	}
	defer unlock()
	enc, _, err := snapshot.Key(cfg)
	if err != nil {
		return err
	}
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: p.Level, Encryption: enc, Auth: snapshot.AuthKeyFor(s)}
	if opts.Level == 0 {
		opts.Level = ctxfmt.LevelDefault
	}
	r, err := snapshot.Redactor(cfg)
	if err != nil {
		return err
	}
	if r != nil {
		opts.RedactLine = func(line []byte) []byte { out, _ := r.JSONLine(line); return out }
		opts.RedactText = func(s string) string { out, _ := r.String(s); return out }
	}
	rotate := false
	if meta, err := s.ReadMeta(); err == nil && meta.SessionID != sess.ID {
		rotate = true
	} else if err == nil {
		var oo archive.OpenOptions
		if enc != nil {
			oo.Passphrase, oo.Key = enc.Passphrase, enc.Key
		}
		if prev, err := archive.OpenFile(s.CurrentPath(), oo); err == nil {
			defer prev.Close()
			opts.Previous = prev
		}
	} else if _, serr := os.Stat(s.CurrentPath()); serr == nil {
		rotate = true // a current.ctx without meta: keep it in history
	}
	now := req.Now
	opts.Now = func() time.Time { return now }
	var stats archive.EncodeStats
	sr, err := s.SaveCurrentFunc(func(w io.Writer) error {
		var err error
		stats, err = archive.EncodeWithStats(w, st, opts)
		return err
	}, store.Meta{SessionID: sess.ID, Assistant: string(sess.Harness), Transcript: sess.Path,
		Messages: len(st.Messages), ContextTokens: req.ContextTokens, TokensUsed: st.Meta.TotalTokens, Files: len(st.Files), ToolExecutions: len(st.Tools),
		Extra: map[string]any{"source": SourceWatcher}}, store.SaveOptions{Rotate: rotate})
	if err != nil {
		var le *store.StorageLimitError
		if errors.As(err, &le) {
			return fmt.Errorf("archive of %s not written: %w", sess.ID, err)
		}
		return err
	}
	res.Archive, res.ArchiveBytes, res.CopiedBytes = sr.Path, sr.Meta.SizeBytes, stats.CopiedBytes
	_ = index.NoteArchive(s.Home(), s.ProjectDir(), sr.Path)
	return nil
}

// verifyArchive re-opens an archive and reads every raw segment, which
// checks each segment's checksum.
func verifyArchive(path string, cfg *store.Config) error {
	var oo archive.OpenOptions
	if enc, _, err := snapshot.Key(cfg); err == nil && enc != nil {
		oo.Passphrase, oo.Key = enc.Passphrase, enc.Key
	}
	a, err := archive.OpenFile(path, oo)
	if err != nil {
		return err
	}
	defer a.Close()
	_, err = a.RawFiles()
	return err
}
