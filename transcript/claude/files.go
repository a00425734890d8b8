package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/ben10ctx/ben10/archive"
)

// defaultMaxFileContent caps one captured file when the options do not.
const defaultMaxFileContent = 8 << 20

// captureFiles reads the registry's files that lie inside the project root
// from disk into st.FileContents and sets their hash to the content on
// disk. Missing files, directories, files over the cap and excluded files
// are left out (the registry keeps their record).
func captureFiles(st *archive.State, root string, opt archive.ImportOptions) error {
	if root == "" {
		root = st.Meta.DirectoryPath
	}
	if root == "" {
		return nil
	}
	max := opt.MaxFileContent
	if max <= 0 {
		max = defaultMaxFileContent
	}
	for _, p := range opt.ExcludePatterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("claude: exclude pattern %q: %w", p, err)
		}
	}
	for i := range st.Files {
		rel := st.Files[i].Path
		if filepath.IsAbs(rel) || rel == "." || excluded(rel, opt.ExcludePatterns) {
			continue
		}
		clean := filepath.Clean(rel)
		if clean == ".." || len(clean) > 2 && clean[:3] == "../" {
			continue
		}
		data, ok, err := readCapped(filepath.Join(root, clean), max)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		h := sha256.Sum256(data)
		st.Files[i].Hash = hex.EncodeToString(h[:])
		st.FileContents = append(st.FileContents, archive.FileContent{Path: rel, Data: data})
	}
	return nil
}

func excluded(rel string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
		if ok, _ := path.Match(p, path.Base(rel)); ok {
			return true
		}
	}
	return false
}

// readCapped reads a regular file of at most max bytes; ok is false for
// anything else (missing, not regular, too large).
func readCapped(p string, max int64) ([]byte, bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, false, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("claude: capturing %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, false, nil
	}
	return data, true, nil
}
