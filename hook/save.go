package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/indexnotes"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// ErrNoConversation: the transcript holds no conversation message (only
// Claude Code's metadata lines, such as last-prompt, mode or ai-title).
// Such a save is not written: Claude Code cannot resume it, and it would
// hide the session's earlier checkpoints from a restore.
var ErrNoConversation = errors.New("hook: the transcript holds no conversation yet; nothing saved")

// saveTo imports the session's transcript and writes it to w, building on
// opts.Previous when set (only the new lines are imported, redacted and
// compressed; the content is a full save's either way). A transcript
// without a conversation message gives ErrNoConversation.
func saveTo(ctx context.Context, w io.Writer, in *Input, st *store.Store, cfg *store.Config, opts archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	s, stats, err := claude.Save(ctx, w, in.TranscriptPath, archive.ImportOptions{ProjectDir: st.ProjectDir(), ExcludePatterns: cfg.ExcludePatterns}, opts)
	if err != nil {
		return nil, stats, fmt.Errorf("importing %s: %w", in.TranscriptPath, err)
	}
	if msgs, _ := snapshot.StateCounts(s); msgs == 0 {
		// (The caller's writer is discarded: a checkpoint's temporary
		// file is aborted, a final save is buffered.)
		return s, stats, fmt.Errorf("%w (%s)", ErrNoConversation, in.TranscriptPath)
	}
	return s, stats, nil
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
	Meta        archive.Metadata // the saved session's metadata
}

// checkpoint writes an incremental checkpoint of the session into
// checkpoints/ under the store lock.
func (h *Handler) checkpoint(ctx context.Context, st *store.Store, cfg *store.Config, in *Input) (saveResult, error) {
	if err := hooknote.CheckTranscript(in); err != nil {
		return saveResult{}, err
	}
	defer snapshot.LimitMemory(in.TranscriptPath)()
	opts, _, err := snapshot.EncodeOptions(cfg, snapshot.SaveLevel)
	if err != nil {
		return saveResult{}, err
	}
	oo := snapshot.OpenOptions(cfg)
	opts.Now = h.now
	opts.Auth = snapshot.AuthKeyFor(st)
	var res saveResult
	err = st.WithLock(ctx, func() error {
		prev := previousFor(st, in.SessionID, oo)
		if prev != nil {
			defer prev.Close()
			opts.Previous = prev
		}
		cw := &countWriter{}
		var stats archive.EncodeStats
		var s *archive.State
		cp, err := st.WriteCheckpointFunc(func(w io.Writer) error {
			cw.w = w
			var err error
			s, stats, err = saveTo(ctx, cw, in, st, cfg, opts)
			return err
		})
		if err != nil {
			return err
		}
		msgs, _ := snapshot.StateCounts(s)
		res = saveResult{Path: cp.Path, Bytes: cw.n, Incremental: stats.CopiedSegments > 0, Copied: stats.CopiedBytes, Messages: msgs, Meta: s.Meta}
		_ = indexnotes.Append(st.Home(), st.ProjectDir(), res.Path) // the background worker indexes it
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
