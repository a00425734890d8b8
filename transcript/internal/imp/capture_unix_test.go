//go:build unix

package imp

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// CaptureFiles reads the project's regular files named in the registry,
// within the limit and outside the exclusions; a FIFO, a directory, an
// oversized, excluded, missing or outside file keeps only its record (a
// FIFO neither hangs the import nor is read).
func TestCaptureFiles(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "pkg a\n")
	write("big.txt", "0123456789")
	write("secret.env", "K=V\n")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &archive.State{}
	for _, p := range []string{"a.go", "big.txt", "secret.env", "fifo", "dir", "missing.go", "../outside", "/abs/path"} {
		s.Files = append(s.Files, archive.FileRecord{Path: p})
	}
	opt := archive.ImportOptions{IncludeFileContents: true, MaxFileContent: 9, ExcludePatterns: []string{"*.env"}}
	if err := CaptureFiles(context.Background(), s, root, opt); err != nil {
		t.Fatal(err)
	}
	if len(s.FileContents) != 1 || s.FileContents[0].Path != "a.go" || string(s.FileContents[0].Data) != "pkg a\n" {
		t.Fatalf("captured %+v, want a.go only", s.FileContents)
	}
	if s.Files[0].Hash == "" || s.Files[3].Hash != "" {
		t.Errorf("hashes: %+v", s.Files)
	}
}
