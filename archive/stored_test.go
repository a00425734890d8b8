package archive

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// TestStoredDropsOriginal: once Stored has returned the redacted files,
// the Encoder holds no reference to the files given to StartRaw (a save
// then holds its transcript once), the per-rule counts, read from the
// original lines, are still right, and Finish refuses a State built from
// the originals.
func TestStoredDropsOriginal(t *testing.T) {
	orig := []byte("{\"a\":\"SECRET\"}\n{\"b\":1}\n{\"c\":\"SECRET SECRET\"}\n")
	redact := func(l []byte) []byte { return bytes.ReplaceAll(l, []byte("SECRET"), []byte("[REDACTED:rule]")) }
	opts := EncodeOptions{
		RedactLine: redact, RedactFingerprint: "fp",
		RedactCount: func(l []byte) map[string]int {
			if n := bytes.Count(l, []byte("SECRET")); n > 0 {
				return map[string]int{"rule": n}
			}
			return nil
		},
	}
	for _, tc := range []struct {
		name      string
		fromOrig  bool // Finish given the original files
		wantError bool
	}{
		{"state from the stored files", false, false},
		{"state from the originals", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := []RawFile{{Name: "s.jsonl", Data: bytes.Clone(orig)}}
			enc, err := NewEncoder(context.Background(), io.Discard, opts)
			if err != nil {
				t.Fatal(err)
			}
			enc.StartRaw(files)
			stored, changed, err := enc.Stored()
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(stored[0].Data, orig) || len(changed[0]) != 2 {
				t.Fatalf("stored %q, changed %v: want the redacted copy, lines 0 and 2", stored[0].Data, changed[0])
			}
			for _, f := range enc.e.files {
				if &f.Data[0] == &files[0].Data[0] {
					t.Fatal("the encoder still holds the original file after Stored")
				}
			}
			src := stored
			if tc.fromOrig {
				src = files
			}
			stats, err := enc.Finish(&State{Raw: src})
			if (err != nil) != tc.wantError {
				t.Fatalf("Finish: %v, want error %v", err, tc.wantError)
			}
			if err == nil && (stats.Redaction.Rules["rule"] != 3 || stats.Redaction.LinesChanged != 2) {
				t.Fatalf("redaction report %+v, want 3 secrets in 2 lines", stats.Redaction)
			}
		})
	}
}
