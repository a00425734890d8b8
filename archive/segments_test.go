package archive_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

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

// TestEmptyListsNoSegment: a session without compactions or preferences
// gets no segment for them, and the accessors give empty lists.
func TestEmptyListsNoSegment(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	st.Compactions, st.Preferences = nil, nil
	a := open(t, encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}), archive.OpenOptions{})
	for _, typ := range []ctxfmt.SegmentType{ctxfmt.TypeCompactions, ctxfmt.TypePreferences} {
		if got := a.Container().Find(typ); len(got) != 0 {
			t.Errorf("%s: segments %v", typ, got)
		}
	}
	if c, err := a.Compactions(); err != nil || len(c) != 0 {
		t.Errorf("Compactions: %v %v", c, err)
	}
	if p, err := a.Preferences(); err != nil || len(p) != 0 {
		t.Errorf("Preferences: %v %v", p, err)
	}
	if len(a.Container().Find(ctxfmt.TypeSummaries)) != 1 {
		t.Errorf("no summaries segment")
	}
	checkRoundTrip(t, st, a)
}
