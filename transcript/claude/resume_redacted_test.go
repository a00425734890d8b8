package claude_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// redactedStep is one save of a chain of redacted saves of a session.
type redactedStep struct {
	files []archive.RawFile
	// copied: the incremental save must copy raw segments of the previous
	// archive.
	copied bool
}

// checkRedactedIncremental saves each step with redaction (small raw
// chunks, so that the fixtures' prefixes are copied), incrementally on top
// of the previous step's archive, and checks that the archive equals a
// full redacted save's, holds none of the secrets (in any segment) and,
// when the step says so, copied raw segments. It returns how many
// incremental saves did.
func checkRedactedIncremental(t *testing.T, name string, steps []redactedStep, secrets []string) int {
	t.Helper()
	dir := t.TempDir()
	copied := 0
	var prev []byte
	for k, s := range steps {
		// A fresh directory for each step: a subagent file removed is gone.
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		p := writeSession(t, dir, s.files)
		o := redactOpts(t, "fp-1")
		o.ChunkSize = 512
		inc, _, stats := saveStats(t, p, prev, o)
		full, _, _ := saveStats(t, p, nil, o)
		what := fmt.Sprintf("%s step %d", name, k)
		if prev != nil && stats.CopiedSegments > 0 {
			copied++
		}
		if prev != nil && s.copied && stats.CopiedSegments == 0 {
			t.Fatalf("%s: nothing copied", what)
		}
		sameArchive(t, what, inc, full)
		noSecrets(t, what+" incremental", inc, secrets)
		prev = inc
	}
	return copied
}

// Redacted incremental saves: random line and byte cuts of the fixtures
// with secrets planted everywhere (in the copied prefix too) give a full
// redacted save's archive.
func TestRedactedIncrementalRandomCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	copied := 0
	for _, name := range []string{"11111111-2222-4333-8444-555555555555.jsonl", "hostile.jsonl", "v1.jsonl"} {
		files, err := claude.ReadFiles(filepath.Join("testdata", name), archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		planted, secrets := plantFiles(rng, files)
		main := planted[0].Data
		with := func(data []byte) []archive.RawFile {
			return append([]archive.RawFile{{Name: planted[0].Name, Data: data}}, planted[1:]...)
		}
		for range 10 {
			a := rng.IntN(len(main) + 1)
			b := a + rng.IntN(len(main)-a+1)
			var steps []redactedStep
			for _, cut := range []int{a, b, len(main)} {
				fs := with(main[:cut])
				if _, err := claude.ImportFiles(fs, archive.ImportOptions{}); err != nil && len(steps) == 0 {
					continue // not a transcript yet
				}
				steps = append(steps, redactedStep{files: fs})
			}
			copied += checkRedactedIncremental(t, name, steps, secrets)
		}
	}
	if copied < 10 {
		t.Fatalf("only %d redacted incremental saves copied raw segments", copied)
	}
}

// The cases a redacted incremental save must notice: a changed prefix (a
// secret replaced by another one, which redacts the same; a byte of a
// clean line), a truncated file, a file grown in the middle of a line, and
// subagent files grown, added and removed. Each gives a full save's
// archive and none of the secrets.
func TestRedactedIncrementalChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	files, err := claude.ReadFiles(filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatal("the fixture has no subagent file")
	}
	planted, secrets := plantFiles(rng, files)
	main := planted[0].Data
	n := bytes.Count(main, []byte{'\n'})
	half, most := cutAfterLines(main, n/2), cutAfterLines(main, n-2)
	with := func(data []byte, subs ...archive.RawFile) []archive.RawFile {
		return append([]archive.RawFile{{Name: planted[0].Name, Data: data}}, subs...)
	}
	sub := planted[1]
	subHalf := archive.RawFile{Name: sub.Name, Data: cutAfterLines(sub.Data, bytes.Count(sub.Data, []byte{'\n'})/2)}
	extra := archive.RawFile{Name: filepath.ToSlash(filepath.Join(filepath.Dir(sub.Name), "agent-extra.jsonl")), Data: sub.Data}

	// A secret of the prefix replaced by another secret of the same
	// rule: the redacted bytes are the same, the original ones are not.
	other := append([]byte(nil), most...)
	swapped := false
	for _, s := range secrets {
		if i := bytes.Index(other[:len(half)], []byte(s)); i >= 0 {
			r := []byte(newSecret(rng, 0))
			if len(r) == len(s) && s[:4] == string(r[:4]) {
				copy(other[i:], r)
				secrets = append(secrets, string(r))
				swapped = true
				break
			}
		}
	}
	if !swapped {
		t.Fatal("no ghp_ secret planted in the first half")
	}
	// A byte of a clean line of the prefix changed.
	flipped := append([]byte(nil), most...)
	at := len(half) / 3
	for flipped[at] < 'a' || flipped[at] > 'y' {
		at++
	}
	flipped[at]++

	midLine := len(half) + (len(most)-len(half))/2
	for _, c := range []struct {
		name  string
		steps []redactedStep
	}{
		{"grows", []redactedStep{{files: with(half, subHalf)}, {files: with(most, subHalf), copied: true}, {files: with(main, sub), copied: true}}},
		{"secret swapped in the prefix", []redactedStep{{files: with(half, sub)}, {files: with(other, sub)}}},
		{"byte changed in the prefix", []redactedStep{{files: with(half, sub)}, {files: with(flipped, sub)}}},
		{"truncated", []redactedStep{{files: with(most, sub)}, {files: with(half, sub)}}},
		{"grown mid-line", []redactedStep{{files: with(main[:midLine], sub)}, {files: with(main, sub), copied: true}}},
		{"after a mid-line cut", []redactedStep{{files: with(half, sub)}, {files: with(main[:midLine], sub), copied: true}, {files: with(main, sub), copied: true}}},
		{"subagent added", []redactedStep{{files: with(half, sub)}, {files: with(most, sub, extra), copied: true}}},
		{"subagent removed", []redactedStep{{files: with(half, sub, extra)}, {files: with(most, sub), copied: true}}},
		{"no subagent left", []redactedStep{{files: with(half, sub)}, {files: with(most), copied: true}}},
		{"nothing new", []redactedStep{{files: with(most, sub)}, {files: with(most, sub), copied: true}}},
	} {
		checkRedactedIncremental(t, c.name, c.steps, secrets)
	}
}
