package archive_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
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

// TestMaxLeavesOutResumeState: an archive written at LevelMax carries no
// resume state (it is a cache); one at LevelBest or the default level
// does. A save on top of a max archive imports in full and gives the same
// content as a full save; a max save on top of a default one still resumes.
func TestMaxLeavesOutResumeState(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	half := bytes.IndexByte(main[len(main)/2:], '\n') + len(main)/2 + 1
	first := append([]archive.RawFile{{Name: files[0].Name, Data: main[:half]}}, files[1:]...)
	encodeAt := func(fs []archive.RawFile, l ctxfmt.Level, prev []byte) ([]byte, archive.EncodeStats) {
		t.Helper()
		opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: l, Now: fixedNow}
		if prev != nil {
			opts.Previous = open(t, prev, archive.OpenOptions{})
		}
		var buf bytes.Buffer
		_, stats, err := claude.SaveFiles(&buf, fs, archive.ImportOptions{}, opts)
		if err != nil {
			t.Fatalf("save at %v: %v", l, err)
		}
		return buf.Bytes(), stats
	}
	save := func(fs []archive.RawFile, l ctxfmt.Level, prev []byte) (*archive.Archive, archive.EncodeStats) {
		t.Helper()
		b, stats := encodeAt(fs, l, prev)
		return open(t, b, archive.OpenOptions{}), stats
	}
	bytesOf := func(fs []archive.RawFile, l ctxfmt.Level) []byte {
		b, _ := encodeAt(fs, l, nil)
		return b
	}
	for _, tc := range []struct {
		level  ctxfmt.Level
		resume bool
	}{{ctxfmt.LevelDefault, true}, {ctxfmt.LevelBest, true}, {ctxfmt.LevelMax, false}} {
		a, _ := save(first, tc.level, nil)
		if _, ok, err := a.ResumeState(); ok != tc.resume || err != nil {
			t.Errorf("level %v: resume state %v (%v), want %v", tc.level, ok, err, tc.resume)
		}
	}
	maxArchive := bytesOf(first, ctxfmt.LevelMax)
	next, stats := save(files, ctxfmt.LevelDefault, maxArchive)
	if stats.Resumed {
		t.Errorf("resumed from a max archive without a resume state")
	}
	checkRoundTrip(t, importFile(t, filepath.Join(fixtureDir, v2+".jsonl")), next)
	if _, ok, _ := next.ResumeState(); !ok {
		t.Errorf("default-level archive after a max one: no resume state")
	}
	def := bytesOf(first, ctxfmt.LevelDefault)
	mx, stats := save(files, ctxfmt.LevelMax, def)
	if !stats.Resumed {
		t.Errorf("max save on top of a default archive: not resumed")
	}
	checkRoundTrip(t, importFile(t, filepath.Join(fixtureDir, v2+".jsonl")), mx)
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
