package claude_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/testcorpus"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

func claudeCorpus(t *testing.T) []string {
	t.Helper()
	return testcorpus.Files(t, "claude", "*.jsonl")
}

// writeSession writes raw files under dir the way Claude Code lays them
// out and returns the main file's path.
func writeSession(t *testing.T, dir string, files []archive.RawFile) string {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, files[0].Name)
}

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// saveLevel is the compression level save and saveRedacted use; the
// packed-layout tests set it (withLevel) to a level that packs raw chunks
// across files.
var saveLevel ctxfmt.Level

// withLevel makes save and saveRedacted write at level l for this test.
func withLevel(t *testing.T, l ctxfmt.Level) {
	old := saveLevel
	saveLevel = l
	t.Cleanup(func() { saveLevel = old })
}

// save saves the session at p, incrementally on top of prev when given.
func save(t *testing.T, p string, prev []byte) ([]byte, *archive.State) {
	t.Helper()
	return saveWith(t, p, prev, archive.EncodeOptions{Now: fixedNow})
}

// saveWith saves the session at p with o (at saveLevel when set),
// incrementally on top of prev when given.
func saveWith(t *testing.T, p string, prev []byte, o archive.EncodeOptions) ([]byte, *archive.State) {
	t.Helper()
	if saveLevel != 0 {
		o.Codec, o.Level = ctxfmt.CodecZstd, saveLevel
	}
	b, st, _ := saveStats(t, p, prev, o)
	return b, st
}

// saveStats saves the session at p with o as it is, incrementally on top
// of prev when given, and returns the encoder's statistics too.
func saveStats(t *testing.T, p string, prev []byte, o archive.EncodeOptions) ([]byte, *archive.State, archive.EncodeStats) {
	t.Helper()
	o.Previous = nil
	if prev != nil {
		a, err := archive.Open(bytes.NewReader(prev), int64(len(prev)), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.Previous = a
	}
	var buf bytes.Buffer
	st, stats, err := claude.Save(context.Background(), &buf, p, archive.ImportOptions{}, o)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	return buf.Bytes(), st, stats
}

// sameArchive compares two archives component by component.
func sameArchive(t *testing.T, what string, got, want []byte) {
	t.Helper()
	ga, err := archive.Open(bytes.NewReader(got), int64(len(got)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wa, err := archive.Open(bytes.NewReader(want), int64(len(want)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gm, wm := ga.Meta(), wa.Meta()
	gm.CreatedAt, wm.CreatedAt = time.Time{}, time.Time{}
	check := func(name string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: %s differs\n got %+v\nwant %+v", what, name, g, w)
		}
	}
	check("metadata", gm, wm)
	// The resume state (but for its subagent records, whose encoding is
	// not canonical) and the recall fold, caches for the next save, are
	// the ones a full save makes.
	for _, seg := range []ctxfmt.SegmentType{archive.TypeResumeState, archive.TypeRecallFold} {
		gi, wi := ga.Container().Find(seg), wa.Container().Find(seg)
		if len(gi) != len(wi) {
			t.Fatalf("%s: %d %s segments, a full save has %d", what, len(gi), seg, len(wi))
		}
		for k := range gi {
			gb, err1 := ga.Container().ReadSegment(gi[k])
			wb, err2 := wa.Container().ReadSegment(wi[k])
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %s: %v, %v", what, seg, err1, err2)
			}
			if seg == archive.TypeResumeState {
				g, err1 := claude.ResumeMain(gb)
				w, err2 := claude.ResumeMain(wb)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) {
					t.Fatalf("%s: the main file's resume state differs from a full save's (%v, %v)", what, err1, err2)
				}
			} else if !bytes.Equal(gb, wb) {
				t.Fatalf("%s: %s differs from a full save's", what, seg)
			}
		}
	}
	check("import report", ga.ImportReport(), wa.ImportReport())
	gs, ws := ga.Summary(), wa.Summary()
	gs.Meta, ws.Meta, gs.RawFiles, ws.RawFiles = archive.Metadata{}, archive.Metadata{}, nil, nil
	check("summary", gs, ws)
	for _, c := range []struct {
		name string
		f    func(a *archive.Archive) (any, error)
	}{
		{"files", func(a *archive.Archive) (any, error) { return a.Files() }},
		{"tasks", func(a *archive.Archive) (any, error) { return a.Tasks() }},
		{"compactions", func(a *archive.Archive) (any, error) { return a.Compactions() }},
		{"preferences", func(a *archive.Archive) (any, error) { return a.Preferences() }},
		{"recall", func(a *archive.Archive) (any, error) { r, _, err := a.Recall(); return r, err }},
		{"messages", func(a *archive.Archive) (any, error) { return a.Messages() }},
		{"tools", func(a *archive.Archive) (any, error) { return a.Tools() }},
		{"raw", func(a *archive.Archive) (any, error) { return a.RawFiles() }},
	} {
		g, err := c.f(ga)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, c.name, err)
		}
		w, err := c.f(wa)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, c.name, err)
		}
		check(c.name, g, w)
	}
}

// cutAfterLines returns the first n lines of data.
func cutAfterLines(data []byte, n int) []byte {
	off := 0
	for range n {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return data
		}
		off += i + 1
	}
	return data[:off]
}

// checkResume saves steps[0], then each later step incrementally on the
// previous step's archive, and compares every incremental archive with a
// full save of the same files.
func checkResume(t *testing.T, name string, steps [][]archive.RawFile, wantResumed bool) {
	t.Helper()
	// A prefix without a JSON line is not a transcript: start at the
	// first step that is one.
	for len(steps) > 0 {
		if _, err := claude.ImportFiles(steps[0], archive.ImportOptions{}); err == nil {
			break
		}
		steps = steps[1:]
	}
	dir := t.TempDir()
	var prev []byte
	for k, files := range steps {
		p := writeSession(t, dir, files)
		inc, st := save(t, p, prev)
		if k > 0 && wantResumed && !st.Source.Partial {
			t.Fatalf("%s step %d: not resumed", name, k)
		}
		full, _ := save(t, p, nil)
		sameArchive(t, name+" step "+string(rune('0'+k)), inc, full)
		prev = inc
	}
}

func TestResumeMatchesFullImportCorpus(t *testing.T) {
	for _, p := range claudeCorpus(t) {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		with := func(data []byte, subHalf bool) []archive.RawFile { return withMain(files, data, subHalf) }
		third := cutAfterLines(main, n/3)
		// The previous save saw a line being written (truncated mid-line).
		mid := cutAfterLines(main, n/2)
		mid = main[:len(mid)+(len(cutAfterLines(main, n/2+1))-len(mid))/2]
		steps := [][]archive.RawFile{
			with(third, true),
			with(mid, true),
			with(cutAfterLines(main, max(n-20, n/2+1)), false),
			with(main, false),
		}
		checkResume(t, filepath.Base(p), steps, true)
	}
}

func TestResumeRandomCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"11111111-2222-4333-8444-555555555555.jsonl", "hostile.jsonl", "v1.jsonl"} {
		files, err := claude.ReadFiles(filepath.Join("testdata", name), archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		for range 12 {
			a := rng.IntN(len(main) + 1)
			b := a + rng.IntN(len(main)-a+1)
			steps := [][]archive.RawFile{}
			for _, cut := range []int{a, b, len(main)} {
				fs := append([]archive.RawFile{{Name: files[0].Name, Data: main[:cut]}}, files[1:]...)
				steps = append(steps, fs)
			}
			checkResume(t, name, steps, false)
		}
	}
}

// A changed prefix, another project root or a redacted save is a full
// import, never a wrong resume.
func TestResumeFallsBack(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	n := bytes.Count(main, []byte{'\n'})
	dir := t.TempDir()
	p := writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: cutAfterLines(main, n/2)}}, files[1:]...))
	prev, _ := save(t, p, nil)
	changed := bytes.Replace(main, []byte(`"type"`), []byte(`"type" `), 1)
	p = writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: changed}}, files[1:]...))
	inc, st := save(t, p, prev)
	if st.Source.Partial {
		t.Fatal("resumed over a changed prefix")
	}
	full, _ := save(t, p, nil)
	sameArchive(t, "changed prefix", inc, full)

	p = writeSession(t, dir, files)
	a, err := archive.Open(bytes.NewReader(prev), int64(len(prev)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		iopt archive.ImportOptions
		eopt archive.EncodeOptions
	}{
		{"project root", archive.ImportOptions{ProjectDir: "/elsewhere"}, archive.EncodeOptions{Previous: a}},
		{"redaction", archive.ImportOptions{}, archive.EncodeOptions{Previous: a, RedactText: strings.ToUpper}},
	} {
		st, _, err := claude.Save(context.Background(), &bytes.Buffer{}, p, c.iopt, c.eopt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Source.Partial {
			t.Errorf("%s: resumed", c.name)
		}
	}
}

// withMain is files with the main file's bytes replaced by data and, with
// subHalf, every subagent file cut to its first half of lines (a session
// caught while its subagents were still writing).
func withMain(files []archive.RawFile, data []byte, subHalf bool) []archive.RawFile {
	out := []archive.RawFile{{Name: files[0].Name, Data: data}}
	for _, f := range files[1:] {
		d := f.Data
		if subHalf {
			d = cutAfterLines(d, bytes.Count(d, []byte{'\n'})/2)
		}
		out = append(out, archive.RawFile{Name: f.Name, Data: d})
	}
	return out
}
