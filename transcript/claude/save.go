package claude

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/ben10ctx/ben10/archive"
)

// Save imports the transcript at path (as Import does) and writes it as a
// .ctx archive to w (as archive.EncodeWithStats does), overlapping the two:
// the raw files are compressed in the background while the model is built
// from them.
//
// With redaction (eopt.RedactLine), the raw files are redacted first and
// the model is built from the redacted lines, i.e. from what the archive
// stores: its conversation is rebuilt from the stored raw transcript like
// an unredacted one's, no text is redacted twice, and no state the
// importer keeps can hold what redaction removed. File content hashes are
// then left unknown for content read from a line redaction changed. (A
// full save imports the files as read beside their redaction, on the
// guess that it changes no line; the first line it changes throws that
// import away, so that what is returned and stored is always the model
// of the redacted files.)
//
// With eopt.Previous, an archive of the same transcript saved by this
// importer (same project root; same redaction, which for a redacted one
// means the same non-empty eopt.RedactFingerprint), only the lines added
// since are read: the importer's state is restored from the previous
// archive's resume state (archive.Archive.ResumeState) and the unchanged
// raw segments are copied. The archive's content is the same as after a
// full import; anything that does not fit is a full import.
//
// The State returned is the model the archive was written from, for its
// Meta and counts: a resumed one is partial (archive.ModelSource.Partial),
// and tool outputs the recall
// does not read may be left undecoded (archive.ModelSource.Lazy: Output
// empty, OutputSpans set). Import, or archive.Archive.Tools on what was
// written, gives every text.
//
// When ctx is done before the encoding starts, Save returns an error that
// wraps ctx.Err().
func Save(ctx context.Context, w io.Writer, path string, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	// The previous archive's resume state is decoded while the files are
	// read.
	var pre *resumeState
	done := make(chan struct{})
	p := eopt.Previous
	if p != nil {
		go func() {
			defer close(done)
			pre = loadResume(p)
		}()
	} else {
		close(done)
	}
	files, err := ReadFiles(path, iopt)
	<-done
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, archive.EncodeStats{}, fmt.Errorf("claude: saving %s: %w", path, err)
	}
	return saveFiles(w, files, iopt, eopt, pre)
}

// SaveFiles is Save for transcript files already in memory (files[0] the
// main transcript, as ReadFiles returns them). The files must not be
// modified until it returns.
func SaveFiles(w io.Writer, files []archive.RawFile, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	return saveFiles(w, files, iopt, eopt, nil)
}

// saveFiles is SaveFiles with eopt.Previous's resume state already
// decoded (pre; nil: decoded here when needed).
func saveFiles(w io.Writer, files []archive.RawFile, iopt archive.ImportOptions, eopt archive.EncodeOptions, pre *resumeState) (*archive.State, archive.EncodeStats, error) {
	// A full save with every line redacted imports the files as read while
	// they are redacted, on the guess that redaction changes none of their
	// lines (the common case): the model built from them is then the one
	// built from the stored files, the same bytes. The first line
	// redaction changes stops that import (it is thrown away) and the
	// stored files are imported once redacted, as without the guess.
	var changed *atomic.Bool
	if eopt.RedactLine != nil && eopt.Previous == nil && guessUnchanged {
		changed = new(atomic.Bool)
		redactLine := eopt.RedactLine
		eopt.RedactLine = func(line []byte) []byte {
			out := redactLine(line)
			if !bytes.Equal(out, line) {
				changed.Store(true)
			}
			return out
		}
	}
	enc, err := archive.NewEncoder(w, eopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	enc.StartRaw(files)
	fail := func(err error) (*archive.State, archive.EncodeStats, error) {
		// Let the background work end before returning.
		_, _ = enc.Finish(&archive.State{Raw: files})
		return nil, archive.EncodeStats{}, err
	}
	// Which bytes the model is built from: the files themselves, or, when
	// every line is redacted, the redacted files.
	src, fp := files, ""
	var redacted []map[int]bool
	resumable := true
	var st *archive.State
	switch {
	case eopt.RedactLine != nil:
		fp = eopt.RedactFingerprint
		resumable = fp != ""
		var guess *archive.State
		if changed != nil {
			none := make([]map[int]bool, len(files))
			for i := range none {
				none[i] = map[int]bool{}
			}
			// (Any error, aborted or not, is the regular import's to
			// give.)
			guess, _ = importFilesAbort(files, none, iopt, resumable, fp, true, changed)
		}
		if src, redacted, err = enc.Stored(); err != nil {
			return fail(err)
		}
		if guess != nil && !changed.Load() && unchanged(files, src, redacted) {
			guess.Raw = src
			st = guess
		}
	case eopt.RedactText != nil:
		// Texts redacted one by one: stored in full, never resumed.
		resumable = false
	}
	ok := st != nil
	if p := eopt.Previous; !ok && resumable && p != nil && p.Redaction().Enabled == (redacted != nil) && p.RedactionFingerprint() == fp {
		if pre == nil {
			pre = loadResume(p)
		}
		st, ok = resumeImport(src, redacted, fp, iopt, p, pre, &restoredMain{})
	}
	if !ok {
		// The encoder derives the conversation from the stored raw
		// transcript unless texts are redacted one by one: tool outputs
		// the recall does not read are then not decoded (ModelSource.Lazy).
		lazy := eopt.RedactText == nil || eopt.RedactLine != nil
		st, err = importFiles(src, redacted, iopt, resumable, fp, lazy)
		if err != nil {
			return fail(err)
		}
	}
	stats, err := enc.Finish(st)
	if err != nil {
		return nil, stats, err
	}
	return st, stats, nil
}

// guessUnchanged turns the import during redaction on (saveFiles); tests
// turn it off to compare.
var guessUnchanged = true

// unchanged reports whether the stored files are the files as read: the
// same bytes (the same slices), no line changed by redaction.
func unchanged(files, stored []archive.RawFile, redacted []map[int]bool) bool {
	if len(stored) != len(files) || len(redacted) != len(files) {
		return false
	}
	for i, f := range files {
		s := stored[i]
		if s.Name != f.Name || len(s.Data) != len(f.Data) || len(redacted[i]) != 0 ||
			len(f.Data) > 0 && &s.Data[0] != &f.Data[0] {
			return false
		}
	}
	return true
}
