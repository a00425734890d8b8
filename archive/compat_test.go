package archive_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestReadsRound5Archives: archives written by the build before round 6
// (testdata/compat, saved by `ben10 context save --redact=false --full`
// from transcript/claude/testdata's v2 fixture at the default level,
// layout 1, and at max, layout 2) keep their compaction summaries inline;
// this build reads them whole. The expected State is imported from the
// archive's own raw files, so the check does not depend on the fixture.
func TestReadsRound5Archives(t *testing.T) {
	for _, name := range []string{"round5-default.ctx", "round5-max.ctx"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "compat", name))
			if err != nil {
				t.Fatal(err)
			}
			a := open(t, b, archive.OpenOptions{})
			cs, err := a.CompactionBoundaries()
			if err != nil || len(cs) == 0 {
				t.Fatalf("CompactionBoundaries: %d, %v", len(cs), err)
			}
			for i, c := range cs {
				if c.Summary == "" || len(c.SummarySpans) != 0 {
					t.Errorf("compaction %d: inline summary %q, spans %v", i, c.Summary, c.SummarySpans)
				}
			}
			raw, err := a.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, f := range raw {
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			st := importFile(t, filepath.Join(dir, filepath.FromSlash(raw[0].Name)))
			checkRoundTrip(t, st, a)
			if _, ok, err := a.Recall(); !ok || err != nil {
				t.Errorf("Recall: %v %v", ok, err)
			}
		})
	}
}

// TestCompactionSummaryPointer: a compaction summary is stored as a
// pointer into its isCompactSummary line unless redaction changed that
// line; either way Compactions gives the (redacted) text back and no
// secret reaches the compactions segment.
func TestCompactionSummaryPointer(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	if len(st.Compactions) != 1 || !strings.Contains(st.Compactions[0].Summary, "pkg/calc/add.go") {
		t.Fatalf("fixture compactions: %+v", st.Compactions)
	}
	replacer := func(secret string) (func([]byte) []byte, func(string) string) {
		return func(l []byte) []byte { return bytes.ReplaceAll(l, []byte(secret), []byte("[REDACTED]")) },
			func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }
	}
	for _, tc := range []struct {
		name, secret string
		pointer      bool
	}{
		{"no redaction", "", true},
		{"secret elsewhere", "FAIL", true},
		{"secret in the summary", "calc/add.go", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts archive.EncodeOptions
			want := st.Compactions[0].Summary
			if tc.secret != "" {
				opts.RedactLine, opts.RedactText = replacer(tc.secret)
				want = opts.RedactText(want)
			}
			a := open(t, encode(t, st, opts), archive.OpenOptions{})
			cs, err := a.CompactionBoundaries()
			if err != nil || len(cs) != 1 {
				t.Fatalf("CompactionBoundaries: %v %v", cs, err)
			}
			if got := len(cs[0].SummarySpans) > 0 && cs[0].Summary == ""; got != tc.pointer {
				t.Errorf("pointer %v, want %v (inline %q)", got, tc.pointer, cs[0].Summary)
			}
			if tc.secret != "" && strings.Contains(cs[0].Summary, tc.secret) {
				t.Errorf("secret inline: %q", cs[0].Summary)
			}
			full, err := a.Compactions()
			if err != nil || len(full) != 1 || full[0].Summary != want {
				t.Errorf("Compactions: %q (%v), want %q", full[0].Summary, err, want)
			}
		})
	}
}
