package claude

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestReadHalves: a file read as two halves at once is the file, whatever
// its size, and a file that grew or shrank since its size was taken is
// read to its end as a sequential read would.
func TestReadHalves(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{parallelReadMin - 1, parallelReadMin, parallelReadMin + 1, 3<<20 + 12345} {
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
			got, err := readHalves(f, make([]byte, 0, size+1), size)
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
