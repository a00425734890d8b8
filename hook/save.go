package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// ErrNoTranscript: the hook input names no transcript, or it does not exist
// (Claude Code creates it with the first message).
var ErrNoTranscript = errors.New("hook: transcript not found")

// ErrNoKey: encryption is on but no key is available.
var ErrNoKey = errors.New("hook: encryption is enabled but no key is available")

// keys returns the encryption to write with and the options to open with,
// from context.encryption.
func keys(cfg *store.Config, getenv func(string) string) (*ctxfmt.Encryption, archive.OpenOptions, error) {
	e := cfg.Encryption
	if !e.Enabled {
		return nil, archive.OpenOptions{}, nil
	}
	firstLine := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoKey, err)
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
		b = bytes.TrimSuffix(b, []byte("\r"))
		if len(b) == 0 {
			return nil, fmt.Errorf("%w: %s has an empty first line", ErrNoKey, p)
		}
		return b, nil
	}
	switch e.KeySource {
	case "passphrase-file":
		p, err := firstLine(e.PassphraseFile)
		if err != nil {
			return nil, archive.OpenOptions{}, err
		}
		return &ctxfmt.Encryption{Passphrase: p}, archive.OpenOptions{Passphrase: p}, nil
	case "keyfile":
		k, err := os.ReadFile(e.KeyFile)
		if err != nil {
			return nil, archive.OpenOptions{}, fmt.Errorf("%w: %v", ErrNoKey, err)
		}
		return &ctxfmt.Encryption{Key: k}, archive.OpenOptions{Key: k}, nil
	default:
		name := e.Env
		if name == "" {
			name = "BEN10_PASSPHRASE"
		}
		p := getenv(name)
		if p == "" {
			return nil, archive.OpenOptions{}, fmt.Errorf("%w: $%s is empty", ErrNoKey, name)
		}
		return &ctxfmt.Encryption{Passphrase: []byte(p)}, archive.OpenOptions{Passphrase: []byte(p)}, nil
	}
}

// encodeOptions builds the archive options from the configuration:
// compression, redaction, encryption.
func encodeOptions(cfg *store.Config, enc *ctxfmt.Encryption, level ctxfmt.Level) (archive.EncodeOptions, error) {
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: level, Encryption: enc}
	if !cfg.Compression {
		opts.Codec = ctxfmt.CodecNone
	}
	if cfg.SensitiveRedaction {
		rc := cfg.Redaction
		extra := make([]redact.UserRule, len(rc.ExtraRules))
		for i, r := range rc.ExtraRules {
			extra[i] = redact.UserRule{ID: r.ID, Regex: r.Regex, Keywords: r.Keywords}
		}
		repl := strings.ReplaceAll(rc.Replacement, "<rule-id>", "%s")
		r, err := redact.New(redact.Config{Disabled: rc.DisabledRules, Extra: extra, Allow: rc.Allowlist, AllowPaths: rc.AllowPaths, Replacement: repl})
		if err != nil {
			return opts, err
		}
		opts.RedactLine = func(line []byte) []byte { out, _ := r.JSONLine(line); return out }
		opts.RedactText = func(s string) string { out, _ := r.String(s); return out }
	}
	return opts, nil
}

// importTranscript imports the session's transcript.
func importTranscript(in *Input, st *store.Store, cfg *store.Config) (*archive.State, error) {
	if in.TranscriptPath == "" {
		return nil, fmt.Errorf("%w: the hook input has no transcript_path", ErrNoTranscript)
	}
	if _, err := os.Stat(in.TranscriptPath); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTranscript, err)
	}
	s, err := claude.Import(in.TranscriptPath, archive.ImportOptions{ProjectDir: st.ProjectDir(), ExcludePatterns: cfg.ExcludePatterns})
	if err != nil {
		return nil, fmt.Errorf("importing %s: %w", in.TranscriptPath, err)
	}
	return s, nil
}

// previousFor opens the newest saved context of session among
// current.ctx and the checkpoints, to be the base of an incremental save.
// It returns nil when there is none (or none opens).
func previousFor(st *store.Store, session string, oo archive.OpenOptions) *archive.Archive {
	var cands []string
	if cps, err := st.Checkpoints(); err == nil {
		for i := len(cps) - 1; i >= 0; i-- {
			cands = append(cands, cps[i].Path)
		}
	}
	cur := st.CurrentPath()
	if m, err := st.ReadMeta(); err == nil && m.SessionID == session {
		// current.ctx is this session's: it is newer than its checkpoints
		// unless a checkpoint was written after it (resumed session).
		if fi, err := os.Stat(cur); err == nil && (len(cands) == 0 || !newerFile(cands[0], fi.ModTime().UnixNano())) {
			cands = append([]string{cur}, cands...)
		} else {
			cands = append(cands, cur)
		}
	}
	for _, p := range cands {
		a, err := archive.OpenFile(p, oo)
		if err != nil {
			continue
		}
		if a.Meta().SessionID == session {
			return a
		}
		a.Close()
	}
	return nil
}

func newerFile(path string, than int64) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.ModTime().UnixNano() > than
}

// saveResult says what a checkpoint or final save wrote.
type saveResult struct {
	Path        string
	Bytes       int64
	Incremental bool
	Copied      int64
	Messages    int
	Rotated     string
	Meta        archive.Metadata // the saved session's metadata
}

// checkpoint writes an incremental checkpoint of the session into
// checkpoints/ under the store lock.
func (h *Handler) checkpoint(ctx context.Context, st *store.Store, cfg *store.Config, in *Input) (saveResult, error) {
	s, err := importTranscript(in, st, cfg)
	if err != nil {
		return saveResult{}, err
	}
	enc, oo, err := keys(cfg, h.getenv)
	if err != nil {
		return saveResult{}, err
	}
	opts, err := encodeOptions(cfg, enc, ctxfmt.LevelDefault)
	if err != nil {
		return saveResult{}, err
	}
	opts.Now = h.now
	var res saveResult
	err = st.WithLock(ctx, func() error {
		prev := previousFor(st, in.SessionID, oo)
		if prev != nil {
			defer prev.Close()
			opts.Previous = prev
		}
		cw := &countWriter{}
		var stats archive.EncodeStats
		cp, err := st.WriteCheckpointFunc(func(w io.Writer) error {
			cw.w = w
			var err error
			stats, err = archive.EncodeWithStats(cw, s, opts)
			return err
		})
		if err != nil {
			return err
		}
		res = saveResult{Path: cp.Path, Bytes: cw.n, Incremental: stats.CopiedSegments > 0, Copied: stats.CopiedBytes, Messages: len(s.Messages), Meta: s.Meta}
		return nil
	})
	return res, err
}

// saveCurrent writes the session's final state into current.ctx; a
// current.ctx of another session is rotated into history/ first.
func (h *Handler) saveCurrent(ctx context.Context, st *store.Store, cfg *store.Config, in *Input) (saveResult, error) {
	s, err := importTranscript(in, st, cfg)
	if err != nil {
		return saveResult{}, err
	}
	enc, oo, err := keys(cfg, h.getenv)
	if err != nil {
		return saveResult{}, err
	}
	opts, err := encodeOptions(cfg, enc, ctxfmt.LevelDefault)
	if err != nil {
		return saveResult{}, err
	}
	opts.Now = h.now
	var res saveResult
	err = st.WithLock(ctx, func() error {
		rotate := false
		if m, err := st.ReadMeta(); err == nil && m.SessionID != in.SessionID {
			rotate = true
		} else if err != nil {
			if _, serr := os.Stat(st.CurrentPath()); serr == nil {
				rotate = true // a current.ctx without meta: keep it in history
			}
		}
		prev := previousFor(st, in.SessionID, oo)
		if prev != nil {
			defer prev.Close()
			opts.Previous = prev
		}
		meta := store.Meta{
			SessionID: in.SessionID, Assistant: string(archive.HarnessClaude), Transcript: in.TranscriptPath,
			Messages: len(s.Messages), Tokens: s.Meta.TotalTokens, Files: len(s.Files), ToolExecutions: len(s.Tools),
		}
		var stats archive.EncodeStats
		cw := &countWriter{}
		sr, err := st.SaveCurrentFunc(func(w io.Writer) error {
			cw.w = w
			var err error
			stats, err = archive.EncodeWithStats(cw, s, opts)
			return err
		}, meta, store.SaveOptions{Rotate: rotate})
		if err != nil {
			return err
		}
		res = saveResult{Path: sr.Path, Bytes: cw.n, Incremental: stats.CopiedSegments > 0, Copied: stats.CopiedBytes, Messages: len(s.Messages), Rotated: sr.Rotated, Meta: s.Meta}
		return nil
	})
	return res, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
