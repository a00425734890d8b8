package claude

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/redact"
)

// TestSaveGuessSameBytes: a redacted full save that imports the files
// while they are redacted (guessUnchanged) writes the archive, and
// returns the State, that a save importing the redacted files writes,
// whether redaction changes no line, the first, one in the middle or the
// last (the guess is then thrown away).
func TestSaveGuessSameBytes(t *testing.T) {
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
			save := func(guess bool) ([]byte, *archive.State) {
				guessUnchanged = guess
				defer func() { guessUnchanged = true }()
				var b bytes.Buffer
				st, _, err := SaveFiles(context.Background(), &b, files, archive.ImportOptions{}, opts)
				if err != nil {
					t.Fatal(err)
				}
				return b.Bytes(), st
			}
			a, sa := save(true)
			b, sb := save(false)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s, %s: the archive differs with the guess", filepath.Base(p), c.name)
			}
			if !reflect.DeepEqual(sa.Meta, sb.Meta) || !reflect.DeepEqual(sa.Messages, sb.Messages) || !reflect.DeepEqual(sa.Tools, sb.Tools) ||
				!reflect.DeepEqual(sa.Raw, sb.Raw) {
				t.Fatalf("%s, %s: the State differs with the guess", filepath.Base(p), c.name)
			}
		}
	}
}
