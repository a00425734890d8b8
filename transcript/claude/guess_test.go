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

// TestSaveRedactedModel: a redacted full save returns the model of the
// redacted files, the one the archive holds (the same raw bytes, messages
// and tools when read back), whether redaction changes no line, the
// first, one in the middle or the last.
func TestSaveRedactedModel(t *testing.T) {
	paths := []string{filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")}
	if !testing.Short() {
		dir := testcorpus.Dir(t, "claude")
		paths = append(paths, filepath.Join(dir, "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"), filepath.Join(dir, "subagent.jsonl"))
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := redact.Default()
	for _, p := range paths {
		files, err := ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(files[0].Data, []byte("\n"))
		for _, c := range []struct {
			name   string
			change []byte // a line redaction also changes (nil: none)
		}{
			{"real redactor", nil},
			{"first line changed", lines[0]},
			{"middle line changed", lines[len(lines)/2]},
			{"last line changed", lines[len(lines)-2]},
		} {
			opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Now: func() time.Time { return fixed }, RedactFingerprint: "test"}
			opts.RedactLine = func(line []byte) []byte {
				if c.change != nil && bytes.Equal(line, c.change) {
					// (A member added: the line keeps its type.)
					return append(append([]byte(nil), line[:len(line)-1]...), `,"zz":"[REDACTED]"}`...)
				}
				o, _ := r.JSONLine(line)
				return o
			}
			opts.RedactText = func(s string) string { o, _ := r.String(s); return o }
			// SaveFiles takes its files (it writes the redacted bytes
			// over them): each save reads its own.
			mine, err := ReadFiles(p, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			sa, _, err := SaveFiles(context.Background(), &buf, mine, archive.ImportOptions{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := a.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := a.Messages()
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != len(sa.Raw) || !bytes.Equal(raw[0].Data, sa.Raw[0].Data) {
				t.Fatalf("%s, %s: the State's raw files are not the archive's", filepath.Base(p), c.name)
			}
			if c.change != nil && bytes.Equal(sa.Raw[0].Data, files[0].Data) {
				t.Fatalf("%s, %s: the State holds the files as read, not redacted", filepath.Base(p), c.name)
			}
			if len(msgs) != len(sa.Messages) {
				t.Fatalf("%s, %s: %d messages read back, the State has %d", filepath.Base(p), c.name, len(msgs), len(sa.Messages))
			}
		}
	}
}
