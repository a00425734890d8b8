package archive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/fidelity"
	"github.com/ben10ctx/ben10/transcript/claude"
	"github.com/vmihailenco/msgpack/v5"
)

// The measure itself is package internal/fidelity's (shared with the
// hook's end-to-end corpus test); these wrappers keep this file's names.

func corpusDir(t testing.TB) string {
	t.Helper()
	d, ok := fidelity.CorpusDir()
	if !ok {
		t.Skip("corpus not found (set BEN10_CORPUS)")
	}
	return d
}

// compactedSession is a corpus transcript cut at its compact_boundary.
type compactedSession struct {
	name     string
	pre      []byte // the lines before the boundary, as Claude Code wrote them
	summary  string // the isCompactSummary text that follows the boundary
	root     string // the project directory: cwd of the session's first line
	paths    []string
	commands []string
}

// cutAtBoundary reads a transcript and cuts it at its first
// compact_boundary (fidelity.Cut); ok is false without a boundary or a
// summary after it.
func cutAtBoundary(t *testing.T, path string) (compactedSession, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := fidelity.Cut(data)
	if !ok || s.Summary == "" {
		return compactedSession{}, false
	}
	return compactedSession{name: filepath.Base(path), pre: s.Pre, summary: s.Summary, root: s.Root, paths: s.Paths, commands: s.Commands}, true
}

func normWS(s string) string                { return fidelity.NormWS(s) }
func appears(text, term string) bool        { return fidelity.Appears(text, term) }
func pathPresent(text, root, p string) bool { return fidelity.PathPresent(text, root, p) }

type share struct{ paths, cmds, pathsOK, cmdsOK int }

func (s share) ratio() float64 {
	return fidelity.Share{Paths: s.paths, Commands: s.cmds, PathsOK: s.pathsOK, CommandsOK: s.cmdsOK}.Ratio()
}

func measure(cs compactedSession, text string) share {
	m := fidelity.Used{Root: cs.root, Paths: cs.paths, Commands: cs.commands}.Measure(text)
	return share{paths: m.Paths, cmds: m.Commands, pathsOK: m.PathsOK, cmdsOK: m.CommandsOK}
}

// TestDigestFidelityCorpus is the measurement behind docs/FIDELITY.md: for
// each corpus session with a compaction, the share of the distinct file
// paths and shell commands used before the compact_boundary that are
// present in (a) Claude's summary alone and (b) the summary plus Ben10's
// recovery digest built from the state before the boundary.
func TestDigestFidelityCorpus(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "claude")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(files)
	var rows, smallRows, aloneRows []string
	found := 0
	for _, f := range files {
		cs, ok := cutAtBoundary(t, f)
		if !ok {
			continue
		}
		found++
		t.Run(cs.name, func(t *testing.T) {
			tmp := filepath.Join(t.TempDir(), cs.name)
			if err := os.WriteFile(tmp, cs.pre, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := claude.Import(context.Background(), tmp, archive.ImportOptions{NoSubagents: true})
			if err != nil {
				t.Fatal(err)
			}
			r := archive.BuildRecall(st)
			opts := archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Summary: cs.summary}
			d := archive.Digest(r, opts)

			if n := archive.DigestLen(d); n > archive.RecoveryDigestBudget {
				t.Fatalf("digest is %d characters, over %d", n, archive.RecoveryDigestBudget)
			}
			if archive.Digest(r, opts) != d {
				t.Fatal("digest is not deterministic")
			}
			enc, err := msgpack.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			var back archive.Recall
			if err := msgpack.Unmarshal(enc, &back); err != nil {
				t.Fatal(err)
			}
			if archive.Digest(back, opts) != d {
				t.Fatal("digest differs after the recall's msgpack round trip")
			}
			// What the digest must still carry besides paths and commands.
			for _, want := range []string{"## Task and todos\n", "## Latest requests (newest first)\n"} {
				if !strings.Contains(d, want) {
					t.Errorf("digest lacks section %q", want)
				}
			}
			latest := r.Initial
			if len(r.Requests) > 0 {
				latest = &r.Requests[0]
			}
			if latest == nil || !strings.Contains(d, firstRunes(latest.Text, 40)) {
				t.Errorf("digest lacks the latest request")
			}
			if len(r.Errors) > 0 {
				if !strings.Contains(d, "## Errors (unresolved first)\n") {
					t.Errorf("digest lacks its errors section though the session had %d errors", len(r.Errors))
				}
				if !strings.Contains(d, "[unresolved") && !strings.Contains(d, "[resolved later") {
					t.Errorf("digest shows no error outcome")
				}
			}

			// The startup/clear injection: the same recall at the default
			// budget, no summary, must still carry task, requests, files and
			// the latest errors.
			small := archive.Digest(r, archive.DigestOptions{Budget: archive.DefaultDigestBudget})
			if n := archive.DigestLen(small); n > archive.DefaultDigestBudget {
				t.Fatalf("2,000-character digest is %d characters", n)
			}
			for _, want := range []string{"## Task and todos\n", "## Latest requests (newest first)\n", "## Files (edited first, most recent first)\n", "## Commands (newest first, with outcome)\n"} {
				if !strings.Contains(small, want) {
					t.Errorf("2,000-character digest lacks %q:\n%s", want, small)
				}
			}
			if len(r.Errors) > 0 && !strings.Contains(small, "## Errors (unresolved first)\n") {
				t.Errorf("2,000-character digest lacks the errors:\n%s", small)
			}
			alone := archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget})
			al := measure(cs, alone)
			aloneRows = append(aloneRows, fmt.Sprintf("| `%s` | %d | %d/%d | %d/%d | %.0f%% |", cs.name[:8], archive.DigestLen(alone), al.pathsOK, al.paths, al.cmdsOK, al.cmds, 100*al.ratio()))
			c := measure(cs, small)
			smallRows = append(smallRows, fmt.Sprintf("| `%s` | %d | %d/%d | %d/%d |", cs.name[:8], archive.DigestLen(small), c.pathsOK, c.paths, c.cmdsOK, c.cmds))

			a := measure(cs, cs.summary)
			b := measure(cs, cs.summary+"\n"+d)
			dg := measure(cs, d)
			rows = append(rows, fmt.Sprintf("| `%s` | %d | %d | %d/%d (%.0f%%) | %d/%d (%.0f%%) | %.0f%% | %d/%d (%.0f%%) | %d/%d (%.0f%%) | **%.0f%%** | %d | %d B |",
				cs.name[:8], len(cs.paths), len(cs.commands),
				a.pathsOK, a.paths, pct(a.pathsOK, a.paths), a.cmdsOK, a.cmds, pct(a.cmdsOK, a.cmds), 100*a.ratio(),
				b.pathsOK, b.paths, pct(b.pathsOK, b.paths), b.cmdsOK, b.cmds, pct(b.cmdsOK, b.cmds), 100*b.ratio(),
				archive.DigestLen(d), len(enc)))
			t.Logf("digest alone holds %.0f%%", 100*dg.ratio())
			for _, p := range cs.paths {
				if !pathPresent(normWS(cs.summary+"\n"+d), cs.root, p) {
					t.Logf("missing path %s", p)
				}
			}
			for _, c := range cs.commands {
				if !appears(normWS(cs.summary+"\n"+d), c) {
					t.Logf("missing command %s", c)
				}
			}
			if b.ratio() < 0.85 {
				t.Errorf("summary + digest hold %.1f%% of paths and commands, want ≥ 85%%\n%s", 100*b.ratio(), d)
			}
		})
	}
	if found == 0 {
		t.Skip("no compacted session in the corpus")
	}
	t.Logf("\n| session | paths | commands | (a) paths | (a) commands | (a) all | (b) paths | (b) commands | (b) all | digest chars | recall |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
	t.Logf("\n| session | 9,500-char digest, no summary | paths | commands | all |\n|---|---|---|---|---|\n%s", strings.Join(aloneRows, "\n"))
	t.Logf("\n| session | 2,000-char digest | paths | commands |\n|---|---|---|---|\n%s", strings.Join(smallRows, "\n"))
}

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// BenchmarkRecallCorpus builds the recall and the recovery digest of the
// largest corpus transcript (3.2 MB), against importing it (the work a
// save does anyway) as the reference.
func BenchmarkRecallCorpus(b *testing.B) {
	path := filepath.Join(corpusDir(b), "claude", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skip("corpus transcript missing")
	}
	st, err := claude.Import(context.Background(), path, archive.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("import", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := claude.Import(context.Background(), path, archive.ImportOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("BuildRecall", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = archive.BuildRecall(st)
		}
	})
	r := archive.BuildRecall(st)
	enc, err := msgpack.Marshal(&r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("DecodeRecall+Digest", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := archive.DecodeRecall(enc)
			if err != nil {
				b.Fatal(err)
			}
			_ = archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Summary: st.Compactions[0].Summary})
		}
	})
}
