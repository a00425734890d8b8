package claude

import (
	"context"
	"io"

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
// then left unknown for content read from a line redaction changed.
//
// With eopt.Previous, an archive of the same transcript, the raw
// segments it holds unchanged are copied (see archive.EncodeOptions); the
// model is always built from the whole transcript.
//
// The State returned is the model the archive was written from, for its
// Meta and counts: tool outputs the recall does not read may be left
// undecoded (Output empty, OutputSpans set; the archive stores them as
// pointers into the raw lines). Import, or archive.Archive.Tools on what
// was written, gives every text. Its tool inputs are views of State.Raw
// (the stored files), which hold the transcript once: the redacted bytes
// are written over the file read rather than beside it.
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
// main transcript, as ReadFiles returns them). It takes the files: with
// redaction (eopt.RedactLine) their bytes are overwritten with the
// redacted ones where these fit (see archive.Encoder.StartRaw; the
// State's Raw then holds them), so that the transcript is held once. The
// files must not be modified while the State returned is in use (its
// tool inputs may be views of them).
func SaveFiles(ctx context.Context, w io.Writer, files []archive.RawFile, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	enc, err := archive.NewEncoder(ctx, w, eopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	enc.StartRaw(files)
	// Which bytes the model is built from: the files themselves, or, when
	// every line is redacted, the redacted files. Tool outputs the recall
	// does not read are left undecoded unless texts are redacted one by
	// one (the encoder must then see them).
	src := files
	var redacted []map[int]bool
	if eopt.RedactLine != nil {
		if src, redacted, err = enc.Stored(); err != nil {
			enc.Discard() // (lets the background work end)
			return nil, archive.EncodeStats{}, err
		}
	}
	lazy := eopt.RedactText == nil || eopt.RedactLine != nil
	st, err := importFiles(ctx, src, redacted, iopt, lazy)
	if err != nil {
		enc.Discard()
		return nil, archive.EncodeStats{}, err
	}
	stats, err := enc.Finish(st)
	if err != nil {
		return nil, stats, err
	}
	return st, stats, nil
}
