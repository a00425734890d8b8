package claude_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// The State a resumed save returns has the tools of a full import with the
// same shell commands (the resume state leaves out those the input gives
// back), for main-chain and sidechain tools alike.
func TestResumedStateCommands(t *testing.T) {
	t.Run("fixture", func(t *testing.T) { checkResumedCommands(t, []string{filepath.Join("testdata", withSubagents)}) })
	t.Run("corpus", func(t *testing.T) { checkResumedCommands(t, claudeCorpus(t)) })
}

func checkResumedCommands(t *testing.T, paths []string) {
	for _, p := range paths {
		files, err := claude.ReadFiles(p, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		main := files[0].Data
		n := bytes.Count(main, []byte{'\n'})
		dir := t.TempDir()
		first := writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: cutAfterLines(main, n/2)}}, files[1:]...))
		prev, _ := save(t, first, nil)
		p2 := writeSession(t, dir, files)
		_, got := save(t, p2, prev)
		_, want := save(t, p2, nil)
		if !got.Source.Partial {
			t.Fatalf("%s: not resumed", p)
		}
		if len(got.Tools) != len(want.Tools) {
			t.Fatalf("%s: %d tools, full import %d", p, len(got.Tools), len(want.Tools))
		}
		shell := 0
		for i := range got.Tools {
			g, w := got.Tools[i], want.Tools[i]
			if g.ID != w.ID || g.Command != w.Command {
				t.Fatalf("%s: tool %d: %q %q, full import %q %q", p, i, g.ID, g.Command, w.ID, w.Command)
			}
			if w.Command != "" {
				shell++
			}
		}
		if shell == 0 {
			t.Fatalf("%s: no shell command to compare", p)
		}
	}
}

// A prefix changed without changing its length or its lines (one letter
// of a message) is never resumed over, with redaction off (checked against
// the previous archive's chunk digests) and on (the resume state's digest).
func TestResumeSameLengthChange(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join("testdata", withSubagents), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[0].Data
	n := bytes.Count(main, []byte{'\n'})
	first := cutAfterLines(main, n/2)
	i := bytes.Index(first, []byte(`"text":"`))
	if i < 0 {
		t.Fatal("fixture: no text in the first half")
	}
	changed := append([]byte(nil), main...)
	j := i + len(`"text":"`)
	if changed[j] == 'x' {
		changed[j] = 'y'
	} else {
		changed[j] = 'x'
	}
	for _, redacted := range []bool{false, true} {
		dir := t.TempDir()
		saveIt := func(p string, prev []byte) ([]byte, *archive.State) {
			if redacted {
				return saveRedacted(t, p, prev, "fp-1")
			}
			return save(t, p, prev)
		}
		p := writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: first}}, files[1:]...))
		prev, _ := saveIt(p, nil)
		p = writeSession(t, dir, append([]archive.RawFile{{Name: files[0].Name, Data: changed}}, files[1:]...))
		inc, st := saveIt(p, prev)
		if st.Source.Partial {
			t.Fatalf("redacted=%v: resumed over a changed prefix", redacted)
		}
		full, _ := saveIt(p, nil)
		sameArchive(t, "same-length change", inc, full)
	}
}
