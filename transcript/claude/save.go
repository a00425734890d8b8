package claude

import (
	"bytes"
	"context"
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
// With eopt.Previous, an archive of the same transcript, the raw
// segments it holds unchanged are copied (see archive.EncodeOptions); the
// model is always built from the whole transcript.
//
// The State returned is the model the archive was written from, for its
// Meta and counts: tool outputs the recall does not read may be left
// undecoded (Output empty, OutputSpans set; the archive stores them as
// pointers into the raw lines). Import, or archive.Archive.Tools on what
// was written, gives every text.
//
// Cancelling ctx stops the import and the encoding and returns ctx's
// error; what was written to w is then incomplete.
func Save(ctx context.Context, w io.Writer, path string, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	files, err := ReadFiles(path, iopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	return SaveFiles(ctx, w, files, iopt, eopt)
}

// SaveFiles is Save for transcript files already in memory (files[0] the
// main transcript, as ReadFiles returns them). The files must not be
// modified until it returns.
func SaveFiles(ctx context.Context, w io.Writer, files []archive.RawFile, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
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
	enc, err := archive.NewEncoder(ctx, w, eopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	enc.StartRaw(files)
	fail := func(err error) (*archive.State, archive.EncodeStats, error) {
		// Let the background work end before returning.
		enc.Discard()
		return nil, archive.EncodeStats{}, err
	}
	// Which bytes the model is built from: the files themselves, or, when
	// every line is redacted, the redacted files. Tool outputs the recall
	// does not read are left undecoded unless texts are redacted one by
	// one (the encoder must then see them).
	src := files
	var redacted []map[int]bool
	var st *archive.State
	if eopt.RedactLine != nil {
		var guess *archive.State
		if changed != nil {
			none := make([]map[int]bool, len(files))
			for i := range none {
				none[i] = map[int]bool{}
			}
			// (Any error, aborted or not, is the regular import's to
			// give.)
			guess, _ = importFiles(ctx, files, none, iopt, true, changed)
		}
		if src, redacted, err = enc.Stored(); err != nil {
			return fail(err)
		}
		if guess != nil && !changed.Load() && unchanged(files, src, redacted) {
			guess.Raw = src
			st = guess
		}
	}
	if st == nil {
		lazy := eopt.RedactText == nil || eopt.RedactLine != nil
		if st, err = importFiles(ctx, src, redacted, iopt, lazy, nil); err != nil {
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
