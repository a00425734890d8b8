package claude

import (
	"io"

	"github.com/ben10ctx/ben10/archive"
)

// Save imports the transcript at path (as Import does) and writes it as a
// .ctx archive to w (as archive.EncodeWithStats does), overlapping the two:
// the raw files are redacted and compressed in the background while the
// model is built from them. The archive's bytes are the same as Import
// followed by archive.Encode.
func Save(w io.Writer, path string, iopt archive.ImportOptions, eopt archive.EncodeOptions) (*archive.State, archive.EncodeStats, error) {
	files, err := ReadFiles(path, iopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	enc, err := archive.NewEncoder(w, eopt)
	if err != nil {
		return nil, archive.EncodeStats{}, err
	}
	enc.StartRaw(files)
	// An update of an archive this importer can resume from reads only the
	// new lines; the result is stored the same as after a full import.
	// Redacted archives store their conversation, so they are not resumed
	// (nor given a resume state).
	plain := eopt.RedactLine == nil && eopt.RedactText == nil
	var st *archive.State
	ok := false
	if plain && eopt.Previous != nil {
		st, ok = resumeImport(files, iopt, eopt.Previous)
	}
	if !ok {
		st, err = importFiles(files, iopt, plain)
	}
	if err != nil {
		// Let the background work end before returning.
		_, _ = enc.Finish(&archive.State{Raw: files})
		return nil, archive.EncodeStats{}, err
	}
	stats, err := enc.Finish(st)
	if err != nil {
		return nil, stats, err
	}
	return st, stats, nil
}
