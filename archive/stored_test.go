package archive

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
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

// TestEncodeOwned: EncodeOwned writes EncodeWithStats's bytes for a
// State built from the files as read, whose texts it redacts (they are
// not read from the stored lines), and leaves the State's raw files as
// stored: over the files given when the redacted bytes fit in their
// capacity, a copy when they do not.
func TestEncodeOwned(t *testing.T) {
	line := "{\"type\":\"user\",\"text\":\"key SECRET here\"}\n{\"type\":\"user\",\"text\":\"plain\"}\n"
	for _, tc := range []struct {
		name    string
		repl    string
		inPlace bool
	}{
		{"shorter placeholder", "[R]", true},
		{"longer placeholder", "[REDACTED:a-much-longer-rule-name]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			red := func(s string) string { return strings.ReplaceAll(s, "SECRET", tc.repl) }
			opts := EncodeOptions{
				RedactFingerprint: "fp", Now: func() time.Time { return time.Unix(1, 0) },
				RedactLine: func(l []byte) []byte { return []byte(red(string(l))) },
				RedactText: red,
			}
			state := func(data []byte) *State {
				return &State{Raw: []RawFile{{Name: "s.jsonl", Data: data}}, Messages: []Message{
					{ID: "m0", Role: "user", Text: "key SECRET here", Ref: RawRef{File: 0, Line: 0}},
					{ID: "m1", Role: "user", Text: "plain", Ref: RawRef{File: 0, Line: 1}},
				}}
			}
			var want bytes.Buffer
			if _, err := EncodeWithStats(context.Background(), &want, state([]byte(strings.Repeat(line, 50))), opts); err != nil {
				t.Fatal(err)
			}
			data := []byte(strings.Repeat(line, 50))
			s := state(data)
			var got bytes.Buffer
			stats, err := EncodeOwned(context.Background(), &got, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatal("EncodeOwned wrote other bytes than EncodeWithStats")
			}
			if stats.Redaction.LinesChanged != 50 || stats.Redaction.TextsChanged != 1 {
				t.Fatalf("redaction report %+v: want 50 lines and the text changed", stats.Redaction)
			}
			stored := s.Raw[0].Data
			if want := strings.Repeat(red(line), 50); string(stored) != want {
				t.Fatalf("the State's raw file is %q, want the stored bytes", stored)
			}
			if same := &stored[0] == &data[0]; same != tc.inPlace {
				t.Fatalf("stored bytes written over the file given: %v, want %v", same, tc.inPlace)
			}
		})
	}
}
