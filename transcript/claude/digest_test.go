package claude

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/redact"
)

// TestSaveDigestSameBytes: a save of files given with their digests
// (archive.RawDigest) writes the archive a save of the same files
// without them writes, with and without redaction, with one chunk per
// file and with small chunks, in full and on a previous archive.
func TestSaveDigestSameBytes(t *testing.T) {
	paths := []string{filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")}
	if !testing.Short() {
		paths = append(paths, filepath.Join(testcorpus.Dir(t, "claude"), "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"))
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := redact.Default()
	for _, p := range paths {
		files, err := ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Every file with its digest, made as a reader would.
		digested := make([]archive.RawFile, len(files))
		plain := make([]archive.RawFile, len(files))
		for i, f := range files {
			d := archive.NewRawDigest()
			for off := 0; off < len(f.Data); off += 1000 {
				d.Add(f.Data[off:min(off+1000, len(f.Data))])
			}
			d.End(f.Data)
			digested[i] = archive.RawFile{Name: f.Name, Data: f.Data, Digest: d}
			plain[i] = archive.RawFile{Name: f.Name, Data: f.Data}
		}
		for _, red := range []bool{false, true} {
			for _, chunk := range []int{0, 4096} {
				opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: chunk, Now: func() time.Time { return fixed }}
				if red {
					opts.RedactLine = func(line []byte) []byte { o, _ := r.JSONLine(line); return o }
					opts.RedactText = func(s string) string { o, _ := r.String(s); return o }
					opts.RedactFingerprint = "test"
				}
				var a, b bytes.Buffer
				if _, _, err := SaveFiles(context.Background(), &a, digested, archive.ImportOptions{}, opts); err != nil {
					t.Fatal(err)
				}
				if _, _, err := SaveFiles(context.Background(), &b, plain, archive.ImportOptions{}, opts); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("%s, redaction %v, chunk size %d: the archive differs with the digests", filepath.Base(p), red, chunk)
				}
				// On top of the archive of its first half (the digests are
				// then of a file a previous archive covers in part).
				half := append([]archive.RawFile{{Name: plain[0].Name, Data: firstHalfLines(plain[0].Data)}}, plain[1:]...)
				var h bytes.Buffer
				if _, _, err := SaveFiles(context.Background(), &h, half, archive.ImportOptions{}, opts); err != nil {
					t.Fatal(err)
				}
				prev, err := archive.Open(bytes.NewReader(h.Bytes()), int64(h.Len()), archive.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				o2 := opts
				o2.Previous = prev
				a.Reset()
				b.Reset()
				if _, _, err := SaveFiles(context.Background(), &a, digested, archive.ImportOptions{}, o2); err != nil {
					t.Fatal(err)
				}
				if _, _, err := SaveFiles(context.Background(), &b, plain, archive.ImportOptions{}, o2); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("%s, redaction %v, chunk size %d: the incremental archive differs with the digests", filepath.Base(p), red, chunk)
				}
			}
		}
	}
}

// firstHalfLines returns the first half of data's lines.
func firstHalfLines(data []byte) []byte {
	n := bytes.Count(data, []byte("\n")) / 2
	off := 0
	for range n {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return data[:off]
}
