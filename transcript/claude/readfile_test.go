package claude

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestReadFile: ReadFiles gives the file, whatever its size, and a file
// that grew or shrank since its size was taken (the buffer's capacity) is
// read to its end.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1<<20 - 1, 1 << 20, 1<<20 + 1, 3<<20 + 12345} {
		data := make([]byte, n)
		rng.Read(data)
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		files, err := ReadFiles(p, archive.ImportOptions{NoSubagents: true})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(files[0].Data, data) {
			t.Fatalf("%d bytes: ReadFiles differs from the file", n)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		// The size taken before the file grew (the read goes on to its
		// end) or shrank (what is left of it is read).
		for _, size := range []int{n / 3, n - 1, n, n + 1, n + 4096, 2 * n, 3 * n} {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			got, err := readAllInto(f, make([]byte, 0, size+1))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("file of %d bytes read as %d: %d bytes, differs", n, size, len(got))
			}
		}
		f.Close()
	}
}
