package archive_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
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
			files, err := a.Files()
			if err != nil || len(files) == 0 || len(files) != len(st.Files) {
				t.Fatalf("Files: %v (%v), want %v", files, err, st.Files)
			}
			for i, f := range files {
				w := st.Files[i]
				if !f.LastAccess.Equal(w.LastAccess) {
					t.Errorf("file %d: last access %v, want %v", i, f.LastAccess, w.LastAccess)
				}
				f.LastAccess = w.LastAccess
				if !reflect.DeepEqual(f, w) {
					t.Errorf("file %d: %+v, want %+v", i, f, w)
				}
			}
			if _, ok, err := a.Recall(); !ok || err != nil {
				t.Errorf("Recall: %v %v", ok, err)
			}
		})
	}
}

// TestReadsRound6Archive: archives written at max by the builds of round
// 6 and round 7 (testdata/compat/round6-max.ctx and round7-max.ctx, `ben10
// context save --redact=false --full --level max` of
// transcript/claude/testdata's v2 fixture; round 6: layout 2, the shared
// raw segment holding the main file's tail first, compact recall and
// registry, summaries as pointers, no resume state; round 7: layout 3,
// the raw segment and the small model segments compressed against the
// recall, codec zstd-dict) read back whole: raw files byte for byte, the
// same State as an import of them.
func TestReadsRound6Archive(t *testing.T) {
	for _, name := range []string{"round6-max.ctx", "round7-max.ctx"} {
		t.Run(name, func(t *testing.T) { readsMaxArchive(t, name) })
	}
}

func readsMaxArchive(t *testing.T, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", "compat", name))
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, b, archive.OpenOptions{})
	if name == "round7-max.ctx" {
		for _, typ := range []ctxfmt.SegmentType{ctxfmt.TypeRawTranscript, ctxfmt.TypeFileRegistry} {
			if c := a.Container().Segments()[a.Container().Find(typ)[0]].Codec; c != ctxfmt.CodecZstdDict {
				t.Errorf("%s: codec %s, want zstd-dict", typ, c)
			}
		}
	}
	infos := a.RawFileInfos()
	if len(infos) < 2 || infos[0].Shared == 0 {
		t.Fatalf("not a packed archive: %+v", infos)
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
	want, err := os.ReadFile(filepath.Join(fixtureDir, v2+".jsonl"))
	if err != nil || !bytes.Equal(raw[0].Data, want) {
		t.Fatalf("main file differs from the fixture (%v)", err)
	}
	st := importFile(t, filepath.Join(dir, filepath.FromSlash(raw[0].Name)))
	checkRoundTrip(t, st, a)
	cs, err := a.CompactionBoundaries()
	if err != nil || len(cs) == 0 || len(cs[0].SummarySpans) == 0 {
		t.Fatalf("compactions: %+v %v", cs, err)
	}
	if _, ok, err := a.Recall(); !ok || err != nil {
		t.Errorf("Recall: %v %v", ok, err)
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

// TestReadsRecallFoldArchive: testdata/compat/round8-fold.ctx was written
// by the build before the recall fold was dropped (claude.Save, zstd, of
// the first 11 lines of transcript/claude/testdata's 11111111 fixture
// with its subagent file): it holds a recall-fold segment (0x8B11) and a
// resume state starting with the resume header that build wrote. This
// build reads it, resumes an incremental save from it (which gives a
// full save's content and writes no recall fold) and drops the fold when
// re-encoding it.
func TestReadsRecallFoldArchive(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "compat", "round8-fold.ctx"))
	if err != nil {
		t.Fatal(err)
	}
	old := open(t, b, archive.OpenOptions{})
	if n := len(old.Container().Find(archive.TypeRecallFold)); n != 1 {
		t.Fatalf("the fixture holds %d recall-fold segments, want 1", n)
	}
	if _, ok, err := old.Recall(); !ok || err != nil {
		t.Fatalf("Recall: %v, %v", ok, err)
	}
	folds := func(a *archive.Archive) int { return len(a.Container().Find(archive.TypeRecallFold)) }

	var re bytes.Buffer
	if _, err := old.Reencode(&re, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd}); err != nil {
		t.Fatal(err)
	}
	reA := open(t, re.Bytes(), archive.OpenOptions{})
	if folds(reA) != 0 {
		t.Error("re-encoding kept the recall fold")
	}
	sameContent(t, old, reA)

	// The session grown to its full length, saved on top of the old
	// archive and from scratch.
	fix := filepath.Join("..", "transcript", "claude", "testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	files, err := claude.ReadFiles(fix, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, files[0].Name)
	// The fixture's save time, so that both archives have the same
	// metadata.
	now := func() time.Time { return time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC) }
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Now: now}
	var full bytes.Buffer
	if _, _, err := claude.Save(context.Background(), &full, p, archive.ImportOptions{}, opts); err != nil {
		t.Fatal(err)
	}
	opts.Previous = old
	var inc bytes.Buffer
	st, stats, err := claude.Save(context.Background(), &inc, p, archive.ImportOptions{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Source.Partial || !stats.Resumed {
		t.Error("the incremental save did not resume from the old archive's state")
	}
	incA := open(t, inc.Bytes(), archive.OpenOptions{})
	if folds(incA) != 0 {
		t.Error("the incremental save wrote a recall fold")
	}
	sameContentCut(t, open(t, full.Bytes(), archive.OpenOptions{}), incA, false)
}
