package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/indexnotes"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// ErrNoConversation: the transcript holds no conversation message (only
// the assistant's metadata lines). SaveCurrent writes nothing then: such a
// save cannot be resumed, and it would hide the session's earlier saves.
var ErrNoConversation = errors.New("snapshot: the transcript holds no conversation yet; nothing saved")

// SaveLevel is the compression level of the saves Ben10 makes on its own
// (final saves, checkpoints) and of `context save` without --level: klauspost's
// "better" (zstd level 6), as for snapshots
// (store.DefaultSnapshotCompressionLevel). Every segment is compressed on
// its own, so the "default" level's archives of sessions with subagent
// files came to 1.34× `zstd -3` of the session; "better" keeps them under
// 1.3× for about a quarter more CPU, spent in the background worker.
const SaveLevel = ctxfmt.LevelBetter

// SaveRequest says what SaveCurrent saves and how.
type SaveRequest struct {
	// Transcript is the session's transcript file.
	Transcript string
	// Harness is the assistant that wrote it ("" = detect).
	Harness archive.Harness
	// SessionID is the session's id ("" = the transcript's).
	SessionID string
	// Source says who saved ("hook", "watcher", "cli"); it is recorded in
	// current.ctx.meta (extra.source).
	Source string
	// Import are the importer options; ProjectDir defaults to the
	// store's project and ExcludePatterns to the configuration's.
	Import archive.ImportOptions
	// Encode replaces the encoder options EncodeOptions(cfg,
	// SaveLevel) builds (a command's flags), with Redactions the
	// counts its redaction hooks fill (nil: none reported).
	Encode     *archive.EncodeOptions
	Redactions *Redactions
	// Full imports the whole transcript even when an earlier archive of
	// the session could be built on.
	Full bool
	// ContextTokens replaces the context size the transcript records
	// (0 = the transcript's).
	ContextTokens int64
	// Now replaces time.Now for the archive's save time.
	Now func() time.Time
}

// SaveResult says what SaveCurrent wrote.
type SaveResult struct {
	Path     string           // current.ctx
	Bytes    int64            // its size
	Rotated  string           // the history file the previous session's current.ctx went to
	Meta     archive.Metadata // the saved session's metadata
	Messages int
	Tools    int
	Files    int
	// Contents is the number of file contents stored.
	Contents int
	Stats    archive.EncodeStats
	// Redactions counts the secrets replaced in the saved archive, per
	// rule: all of them, those of the lines copied from the earlier
	// archive the save built on included, as a full save counts them (nil
	// with SaveRequest.Encode and no SaveRequest.Redactions).
	Redactions map[string]int
	// NewRedactions counts, per rule, the secrets in the lines this save
	// redacted itself (after an incremental save, about the lines added).
	NewRedactions map[string]int
	Warnings      []store.Warning
	// State is the model saved.
	State *archive.State
}

// SaveCurrent is the one save of a session into the project's
// current.ctx, for the hooks' queued work, `ben10 context save` and the
// watcher: import the transcript (only what it gained since the newest
// archive of the session, unless r.Full), redact, encode once at the
// configured level, verify the bytes, and under the store lock replace
// current.ctx and its meta atomically. A current.ctx of another session,
// or one without meta, is rotated into history/ first. The archive is
// built in memory (its compressed size) before the lock is taken, so the
// lock is held only for the write.
func SaveCurrent(ctx context.Context, st *store.Store, cfg *store.Config, r SaveRequest) (*SaveResult, error) {
	if r.Transcript == "" {
		return nil, errors.New("snapshot: save: no transcript path")
	}
	if cfg == nil {
		cfg = st.Config()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("snapshot: saving %s: %w", r.Transcript, err)
	}
	defer LimitMemory(r.Transcript)()
	var red *Redactions
	var opts archive.EncodeOptions
	if r.Encode != nil {
		opts, red = *r.Encode, r.Redactions
	} else {
		var err error
		if opts, red, err = EncodeOptions(cfg, SaveLevel); err != nil {
			return nil, err
		}
	}
	if r.Now != nil {
		opts.Now = r.Now
	}
	if opts.Auth == nil {
		opts.Auth = AuthKeyFor(st)
	}
	oo := OpenOptions(cfg)
	keys := withKeyCache(&opts)
	defer keys.Wipe()
	if enc := opts.Encryption; enc != nil {
		oo = archive.OpenOptions{Passphrase: enc.Passphrase, Key: enc.Key}
	}
	iopt := r.Import
	if iopt.ProjectDir == "" {
		iopt.ProjectDir = st.ProjectDir()
	}
	if iopt.ExcludePatterns == nil {
		iopt.ExcludePatterns = ExcludePatterns(cfg)
	}
	if !r.Full {
		if prev := previousSave(st, cfg, r.SessionID, opts.RedactFingerprint, oo); prev != nil {
			defer prev.Close()
			opts.Previous = prev
		}
	}
	var buf memFile
	s, stats, err := transcript.Save(ctx, &ctxWriter{ctx: ctx, w: &buf}, r.Transcript, r.Harness, iopt, opts)
	if err != nil {
		return nil, fmt.Errorf("snapshot: saving %s: %w", r.Transcript, err)
	}
	msgs, tools := StateCounts(s)
	if msgs == 0 {
		return nil, fmt.Errorf("%w (%s)", ErrNoConversation, r.Transcript)
	}
	if err := ctxfmt.Verify(&buf, buf.size, ctxfmt.VerifyOptions{Deep: true, Passphrase: oo.Passphrase, Key: oo.Key, Keys: keys}); err != nil {
		return nil, fmt.Errorf("%w: the archive of %s: %w", ErrVerify, r.Transcript, err)
	}
	session := r.SessionID
	if session == "" {
		session = s.Meta.SessionID
	}
	files := len(s.Files)
	ctxTokens := r.ContextTokens
	if ctxTokens == 0 {
		ctxTokens = s.Meta.ContextTokens
	}
	extra := map[string]any{}
	if r.Source != "" {
		extra["source"] = r.Source
	}
	total, totalN := archiveRedactions(stats, red)
	if total != nil {
		extra["redactions"] = total
		extra["redactions_new"] = red.Counts()
	}
	meta := store.Meta{SessionID: session, Assistant: string(s.Meta.Harness), Transcript: absPath(r.Transcript),
		Messages: msgs, ContextTokens: ctxTokens, TokensUsed: s.Meta.TotalTokens, Files: files, ToolExecutions: tools, Extra: extra}
	res := &SaveResult{Meta: s.Meta, Messages: msgs, Tools: tools, Files: files, Contents: len(s.FileContents), Stats: stats, State: s}
	if total != nil {
		res.Redactions, res.NewRedactions = total, red.Counts()
	}
	err = st.WithLock(ctx, func() error {
		sr, err := st.SaveCurrentFunc(func(w io.Writer) error {
			_, err := buf.WriteTo(w)
			return err
		}, meta, store.SaveOptions{Rotate: rotateFor(st, session)})
		if err != nil {
			return err
		}
		res.Path, res.Bytes, res.Rotated, res.Warnings = sr.Path, sr.Meta.SizeBytes, sr.Rotated, sr.Warnings
		return nil
	})
	if err != nil {
		return nil, err
	}
	_ = st.Audit(store.AuditEntry{Action: store.ActionSave, Path: res.Path, SizeBytes: res.Bytes, Messages: msgs,
		RedactionsApplied: totalN, Session: session, Detail: "final save (" + orDash(r.Source) + ")"})
	_ = indexnotes.Append(st.Home(), st.ProjectDir(), res.Path) // the next index update picks it up
	return res, nil
}

// rotateFor is the one rotate rule: the current.ctx in place goes to
// history/ when it belongs to another session, or when its meta is
// missing (nobody can tell whose it is). Call it under the store lock.
func rotateFor(st *store.Store, session string) bool {
	m, err := st.ReadMeta()
	if err == nil {
		return m.SessionID != session
	}
	_, serr := os.Stat(st.CurrentPath())
	return serr == nil
}

// previousSave opens the newest archive of session among the project's
// snapshots, checkpoints and current.ctx that a save can build on (see
// Manager.previous); with no session given, current.ctx whatever its
// session (the importer falls back to a full import when it does not
// fit). It returns nil when there is none.
func previousSave(st *store.Store, cfg *store.Config, session, fp string, oo archive.OpenOptions) *archive.Archive {
	if session != "" {
		return NewManager(st, cfg).previous(session, fp)
	}
	a, err := archive.OpenFile(st.CurrentPath(), oo)
	if err != nil {
		return nil
	}
	return a
}

// ctxWriter fails writes once ctx is done, so a long encode stops at its
// next write.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// archiveRedactions returns the per-rule redaction totals of the archive
// an encode wrote (archive.RedactionReport.Rules) and their sum. When the
// encoder options did not count them (no RedactCount: options a caller
// built), the counts of the lines the encode redacted stand in; nil
// without redaction.
func archiveRedactions(stats archive.EncodeStats, red *Redactions) (map[string]int, int) {
	counts := stats.Redaction.Rules
	if counts == nil {
		if red == nil || !stats.Redaction.Enabled {
			return nil, 0
		}
		counts = red.Counts()
	}
	n := 0
	for _, v := range counts {
		n += v
	}
	return counts, n
}

// withKeyCache gives an encrypted save's options (a copy of their
// encryption settings) a key cache, so that the archive written and its
// verification derive the Argon2id key once; the caller wipes the cache
// (zeroing the keys) when the save returns.
func withKeyCache(opts *archive.EncodeOptions) *ctxfmt.KeyCache {
	keys := ctxfmt.NewKeyCache()
	if opts.Encryption != nil {
		enc := *opts.Encryption
		enc.Keys = keys
		opts.Encryption = &enc
	}
	return keys
}
