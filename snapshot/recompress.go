package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
)

// Recompress rewrites a snapshot at another compression level: the new
// file is written and verified beside the old one, then renamed over it
// under the lock (so a valid snapshot exists at every moment) and the
// index entry updated (sizes, hash, level); pins, tags and notes stay.
//
// At LevelBest and LevelMax the archive is re-encoded through the archive
// layer (archive.Archive.Reencode), so that a snapshot written at the
// fastest level inside the PreCompact hook ends up as a direct save at
// that level would be: subagent files packed with the main file, no
// resume state at max, current compact forms. The raw transcript is kept
// byte for byte as stored (already redacted when it is; nothing is
// redacted again), and before the new file replaces the old one it is
// checked deeply and compared with the old one component by component.
// Below LevelBest the segments are recompressed one by one.
func (m *Manager) Recompress(id string, level ctxfmt.Level) error {
	s, err := m.Get(id)
	if err != nil {
		return err
	}
	oo := OpenOptions(m.cfg)
	r, err := ctxfmt.OpenFile(m.Path(s), ctxfmt.ReaderOptions{Passphrase: oo.Passphrase, Key: oo.Key})
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	defer r.Close()
	var enc *ctxfmt.Encryption
	if r.Encrypted() {
		if oo.Passphrase == nil && oo.Key == nil {
			return fmt.Errorf("%w: snapshot %s is encrypted", ErrNoKey, ShortID(s.ID))
		}
		enc = &ctxfmt.Encryption{Passphrase: oo.Passphrase, Key: oo.Key}
	}
	write := func(w io.Writer) error { return copySegments(w, r.Reader, level, enc) }
	src, err := archive.OpenFile(m.Path(s), oo)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
	}
	defer src.Close()
	pending, rawOnly := src.RawOnly()
	// A raw-only snapshot is completed (its model built and written) at
	// any level; at LevelBest and LevelMax every snapshot is laid out as
	// a direct save at that level would be.
	reencode := rawOnly || level >= ctxfmt.LevelBest
	if reencode {
		ro := archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: level, Encryption: enc, Auth: AuthKeyFor(m.st)}
		if rawOnly && src.Redaction().Enabled {
			// The completion captures project files from disk: they are
			// redacted as the snapshot's lines were (with the defaults when
			// the configuration has turned redaction off since).
			r, err := Redactor(m.cfg)
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", ShortID(s.ID), err)
			}
			if r == nil {
				r = redact.Default()
			}
			ro.RedactText = func(s string) string { out, _ := r.String(s); return out }
		}
		write = func(w io.Writer) error {
			_, err := src.Reencode(w, ro)
			return err
		}
	}
	tmp, info, err := m.writeTemp(write, true)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	var done archive.Metadata
	var contents int
	if reencode {
		dst, err := archive.OpenFile(tmp, oo)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrVerify, tmp, err)
		}
		err = sameContent(src, dst, rawOnly && pending.FileContents)
		done, contents = dst.Meta(), dst.Summary().Contents
		dst.Close()
		if err != nil {
			return fmt.Errorf("%w: snapshot %s recompressed at %s: %w; left as it is", ErrVerify, ShortID(s.ID), level, err)
		}
	}
	return m.modify(s.ID, func(ix *Index, i int) error {
		cur := &ix.Snapshots[i]
		if cur.ContentHash != s.ContentHash {
			return fmt.Errorf("snapshot %s changed while it was recompressed; left as it is", ShortID(s.ID))
		}
		if err := os.Rename(tmp, m.Path(*cur)); err != nil {
			return err
		}
		syncDir(m.st.SnapshotDir())
		cur.ContentHash, cur.CompressedBytes, cur.UncompressedBytes, cur.Level = info.hash, info.size, info.raw, level.String()
		if rawOnly {
			// Completed: the counts Create could not know.
			p := &cur.PreCompaction
			if p.TokenCount == 0 {
				p.TokenCount = done.ContextTokens
			}
			p.MessageCount, p.FileCount, p.ToolExecutionCount = done.MessageCount, done.FileCount, done.ToolCount
			cur.Harness, cur.FileContents, cur.ModelPending = string(done.Harness), contents, false
		}
		return nil
	})
}

// copySegments writes r's segments again, each recompressed at level.
func copySegments(w io.Writer, r *ctxfmt.Reader, level ctxfmt.Level, enc *ctxfmt.Encryption) error {
	cw, err := ctxfmt.NewWriter(w, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd, Level: level, Encryption: enc})
	if err != nil {
		return err
	}
	for _, seg := range r.Segments() {
		if seg.Type == ctxfmt.TypeCryptoParams {
			continue
		}
		data, err := r.ReadSegment(seg.Index)
		if err != nil {
			return err
		}
		codec := seg.Codec
		if codec != ctxfmt.CodecNone {
			codec = ctxfmt.CodecZstd
		}
		if err := cw.AddWith(seg.Type, data, ctxfmt.SegmentOptions{Codec: codec, Level: level, Optional: !seg.Required}); err != nil {
			return err
		}
	}
	return cw.Close()
}

// sameContent compares two archives component by component: metadata,
// reports and counts, every raw file (read back and checked against its
// SHA-256), the conversation and tool history (texts resolved), file
// registry, task state, compactions with their summaries, preferences,
// recall, file contents and the model source. Values are compared as
// their msgpack encodings decode (see sameValue).
//
// With captured set (a is a raw-only archive whose completion b captured
// project files), the file contents, the registry's content hashes and
// the count of contents are left out of the comparison: a raw-only
// archive holds none.
func sameContent(a, b *archive.Archive, captured bool) error {
	return compareContent(a, b, captured, false)
}

// compareContent is sameContent; with anyTime, the metadata's CreatedAt
// and UpdatedAt are left out (archives saved at different times).
func compareContent(a, b *archive.Archive, captured, anyTime bool) error {
	type part struct {
		name string
		get  func(*archive.Archive) (any, error)
	}
	// A raw-only archive stores its raw files in smaller chunks than its
	// completion (see archive.EncodeRawOnly): the bytes are compared, not
	// how many segments hold them.
	_, cutA := a.RawOnly()
	_, cutB := b.RawOnly()
	parts := []part{
		{"metadata", func(x *archive.Archive) (any, error) {
			s := x.Summary()
			for i := range s.RawFiles {
				s.RawFiles[i].Shared = 0
				if cutA || cutB {
					s.RawFiles[i].Segments = 0
				}
			}
			if captured {
				s.Contents, s.Redaction.ContentsChanged = 0, 0
			}
			if anyTime {
				s.Meta.CreatedAt, s.Meta.UpdatedAt = time.Time{}, time.Time{}
			}
			src, ok := x.Source()
			return []any{s, x.RedactionFingerprint(), src, ok}, nil
		}},
		{"raw transcript", func(x *archive.Archive) (any, error) { return x.RawFiles() }},
		{"conversation", func(x *archive.Archive) (any, error) { return x.Messages() }},
		{"tool history", func(x *archive.Archive) (any, error) { return x.Tools() }},
		{"file registry", func(x *archive.Archive) (any, error) {
			fs, err := x.Files()
			if captured {
				for i := range fs {
					fs[i].Hash = ""
				}
			}
			return fs, err
		}},
		{"task state", func(x *archive.Archive) (any, error) { return x.Tasks() }},
		{"compactions", func(x *archive.Archive) (any, error) { return x.Compactions() }},
		{"preferences", func(x *archive.Archive) (any, error) { return x.Preferences() }},
		{"recall", func(x *archive.Archive) (any, error) {
			r, ok, err := x.Recall()
			return []any{&r, ok}, err
		}},
		{"file contents", func(x *archive.Archive) (any, error) {
			if captured {
				return nil, nil
			}
			return x.FileContents()
		}},
	}
	for _, p := range parts {
		va, err := p.get(a)
		if err != nil {
			return fmt.Errorf("%s of the original: %w", p.name, err)
		}
		vb, err := p.get(b)
		if err != nil {
			return fmt.Errorf("%s of the new file: %w", p.name, err)
		}
		same, err := sameValue(va, vb)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if !same {
			return fmt.Errorf("%s differs", p.name)
		}
	}
	return nil
}

// sameValue compares two values as their msgpack encodings decode:
// structs field by field, maps whatever the order of their keys (msgpack
// encodes a map[string]int in Go's random map order, so two encodings of
// one value may differ byte for byte), times by instant whatever their
// zone.
func sameValue(a, b any) (bool, error) {
	da, err1 := decoded(a)
	db, err2 := decoded(b)
	if err := errors.Join(err1, err2); err != nil {
		return false, err
	}
	return reflect.DeepEqual(da, db), nil
}

func decoded(v any) (any, error) {
	b, err := msgpack.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := msgpack.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// StalePending is how long a raw-only snapshot may wait for the
// background recompression its writer started before CompletePending
// takes the work over (the worker was killed, or failed).
const StalePending = 2 * time.Minute

// CompletePending completes the raw-only snapshots whose recompression
// has not finished StalePending after they were taken: each is
// recompressed at level (see Recompress), oldest first. It returns the
// ids completed; a snapshot that fails stays as it is (a valid raw-only
// snapshot) and its error is returned, joined with the others'. The
// index is only parsed when it names a pending snapshot.
func (m *Manager) CompletePending(level ctxfmt.Level, now time.Time) ([]string, error) {
	var done []string
	var errs []error
	for _, id := range m.StalePending(now) {
		if err := m.Recompress(id, level); err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, id)
	}
	return done, errors.Join(errs...)
}

// StalePending returns the ids of the raw-only snapshots still pending
// StalePending after they were taken, oldest first (what CompletePending
// completes). It reads index.json only (no lock, nothing written).
func (m *Manager) StalePending(now time.Time) []string {
	data, err := os.ReadFile(m.st.IndexPath())
	if err != nil || !bytes.Contains(data, []byte(`"model_pending"`)) {
		return nil
	}
	ix, err := ParseIndex(data)
	if err != nil {
		return nil
	}
	var ids []string
	for _, s := range ix.Snapshots {
		if s.ModelPending && now.Sub(s.CreatedAt) >= StalePending {
			ids = append(ids, s.ID)
		}
	}
	return ids
}
