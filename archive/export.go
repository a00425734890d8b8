package archive

import (
	"fmt"
	"os"
	"path/filepath"
)

// ExportRaw writes the stored raw transcript files under dir with their
// original relative names ("<session>.jsonl",
// "<session>/subagents/agent-….jsonl"). Without redaction at save time the
// files are byte-identical to the originals (each is checked against the
// SHA-256 recorded at save time before it is written). Existing files are
// never overwritten: ExportRaw fails with ErrExists before writing
// anything when one of the targets exists. It returns the paths written.
func (a *Archive) ExportRaw(dir string) ([]string, error) {
	files, err := a.RawFiles()
	if err != nil {
		return nil, err
	}
	return writeFiles(dir, files)
}

// writeFiles writes files under dir, checking every target first.
func writeFiles(dir string, files []RawFile) ([]string, error) {
	if len(files) == 0 {
		return nil, ErrNoRaw
	}
	paths := make([]string, len(files))
	for i, f := range files {
		if err := safeRelName(f.Name); err != nil {
			return nil, err
		}
		paths[i] = filepath.Join(dir, filepath.FromSlash(f.Name))
		if _, err := os.Lstat(paths[i]); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, paths[i])
		}
	}
	for i, f := range files {
		if err := writeNew(paths[i], f.Data); err != nil {
			return paths[:i], fmt.Errorf("archive: writing %s: %w", paths[i], err)
		}
	}
	return paths, nil
}
