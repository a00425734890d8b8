package claude_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// An incremental save gives the archive a full save gives, for every
// corpus session, through a chain of saves 20 lines apart, and writes no
// recall fold (archive.TypeRecallFold, a cache older versions kept).
func TestResumeChainCorpus(t *testing.T) {
	for _, p := range claudeCorpus(t) {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		dir := t.TempDir()
		var prev []byte
		for k, lines := range []int{max(n-60, 1), max(n-40, 1), max(n-20, 1), n} {
			sp := writeSession(t, dir, withMain(files, cutAfterLines(main, lines), false))
			inc, _, _ := saveStats(t, sp, prev, archive.EncodeOptions{Now: fixedNow})
			a, err := archive.Open(bytes.NewReader(inc), int64(len(inc)), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(a.Container().Find(archive.TypeRecallFold)); n > 0 {
				t.Errorf("%s step %d: %d recall fold segments", filepath.Base(p), k, n)
			}
			full, _ := save(t, sp, nil)
			sameArchive(t, filepath.Base(p)+" fold step", inc, full)
			prev = inc
		}
	}
}

// TestResumeRandomCuts with small raw chunks, so that incremental saves
// of the small fixtures copy raw segments: every one gives a full save's
// archive.
func TestChunkedResumeRandomCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	copied := 0
	for _, name := range []string{"11111111-2222-4333-8444-555555555555.jsonl", "hostile.jsonl", "v1.jsonl"} {
		files, err := claude.ReadFiles(filepath.Join("testdata", name), archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		for range 12 {
			a := rng.IntN(len(main) + 1)
			b := a + rng.IntN(len(main)-a+1)
			dir := t.TempDir()
			var prev []byte
			for k, cut := range []int{a, b, len(main)} {
				fs := append([]archive.RawFile{{Name: files[0].Name, Data: main[:cut]}}, files[1:]...)
				if _, err := claude.ImportFiles(fs, archive.ImportOptions{}); err != nil && prev == nil {
					continue // not a transcript yet
				}
				p := writeSession(t, dir, fs)
				o := archive.EncodeOptions{Now: fixedNow, ChunkSize: 512}
				inc, _, stats := saveStats(t, p, prev, o)
				if prev != nil && stats.CopiedSegments > 0 {
					copied++
				}
				full, _, _ := saveStats(t, p, nil, o)
				sameArchive(t, fmt.Sprintf("%s cut %d step %d", name, cut, k), inc, full)
				prev = inc
			}
		}
	}
	if copied < 10 {
		t.Fatalf("only %d incremental saves copied raw segments", copied)
	}
}
