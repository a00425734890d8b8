package claude_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

const withSubagents = "11111111-2222-4333-8444-555555555555.jsonl"

// rawInfos opens b and returns its raw file list.
func rawInfos(t *testing.T, b []byte) []archive.RawFileInfo {
	t.Helper()
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return a.RawFileInfos()
}

// shared counts the raw chunks stored in a shared (packed) segment.
func shared(t *testing.T, b []byte) int {
	n := 0
	for _, f := range rawInfos(t, b) {
		n += f.Shared
	}
	return n
}

// At LevelBest the main file's last chunk and the subagent files share a
// segment; the archive then reads back byte for byte, and incremental
// saves (with the main file and the subagent files growing) equal full
// ones component by component.
func TestPackedResumeRandomCuts(t *testing.T) {
	withLevel(t, ctxfmt.LevelBest)
	rng := rand.New(rand.NewPCG(5, 6))
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("fixture has %d files, want subagents", len(files))
	}
	full, _ := save(t, writeSession(t, t.TempDir(), files), nil)
	if shared(t, full) < 2 {
		t.Fatalf("LevelBest archive of %d files packs no chunks: %+v", len(files), rawInfos(t, full))
	}
	main, sub := files[0].Data, files[1].Data
	for range 8 {
		a := rng.IntN(len(main) + 1)
		b := a + rng.IntN(len(main)-a+1)
		sa := rng.IntN(len(sub) + 1)
		var steps [][]archive.RawFile
		for _, c := range [][2]int{{a, sa}, {b, sa + rng.IntN(len(sub)-sa+1)}, {len(main), len(sub)}} {
			steps = append(steps, []archive.RawFile{{Name: files[0].Name, Data: main[:c[0]]}, {Name: files[1].Name, Data: sub[:c[1]]}})
		}
		checkResume(t, "packed", steps, false)
	}
}

// Saving alternately at a level that packs and one that does not, each on
// top of the other's archive, gives what a full save at that level gives.
func TestPackedUnpackedAlternate(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	n := bytes.Count(main, []byte{'\n'})
	dir := t.TempDir()
	var prev []byte
	levels := []ctxfmt.Level{ctxfmt.LevelDefault, ctxfmt.LevelBest, ctxfmt.LevelBest, ctxfmt.LevelDefault, ctxfmt.LevelMax}
	for k, l := range levels {
		cut := n * (k + 1) / len(levels)
		fs := append([]archive.RawFile{{Name: files[0].Name, Data: cutAfterLines(main, cut)}}, files[1:]...)
		p := writeSession(t, dir, fs)
		saveLevel = l
		inc, st := save(t, p, prev)
		full, _ := save(t, p, nil)
		saveLevel = 0
		if k > 0 && !st.Source.Partial {
			t.Fatalf("step %d (level %v): not resumed", k, l)
		}
		sameArchive(t, fmt.Sprintf("step %d level %v", k, l), inc, full)
		if packs := shared(t, inc); (l >= ctxfmt.LevelBest) != (packs > 0) {
			t.Errorf("step %d level %v: %d shared chunks", k, l, packs)
		}
		prev = inc
	}
}

// Redacted and packed: incremental equals full and no planted secret is in
// any segment.
func TestPackedRedactedResume(t *testing.T) {
	withLevel(t, ctxfmt.LevelBest)
	rng := rand.New(rand.NewPCG(9, 10))
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	planted, all := plantFiles(rng, files)
	main := planted[0].Data
	n := bytes.Count(main, []byte{'\n'})
	for range 4 {
		a := rng.IntN(n + 1)
		b := a + rng.IntN(n-a+1)
		var steps [][]archive.RawFile
		for _, cut := range []int{a, b, n + 1} {
			steps = append(steps, append([]archive.RawFile{{Name: planted[0].Name, Data: cutAfterLines(main, cut)}}, planted[1:]...))
		}
		checkRedactedResume(t, "packed", steps, all, false)
	}
}

// Every corpus session at LevelBest: incremental (main file growing,
// subagent files growing) equals full, raw files byte-exact.
func TestPackedResumeCorpus(t *testing.T) {
	corpus := claudeCorpus(t)
	if testing.Short() {
		t.Skip("LevelBest saves of every corpus session take a few seconds")
	}
	withLevel(t, ctxfmt.LevelBest)
	for _, p := range corpus {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		with := func(data []byte, subHalf bool) []archive.RawFile { return withMain(files, data, subHalf) }
		steps := [][]archive.RawFile{
			with(cutAfterLines(main, n/2), true),
			with(cutAfterLines(main, max(n-20, n/2+1)), false),
			with(main, false),
		}
		checkResume(t, filepath.Base(p), steps, true)
	}
}
