package archive_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/fidelity"
	"github.com/ben10ctx/ben10/transcript"
)

// Markers around the per-boundary table in docs/FIDELITY.md, which
// "go test ./archive -run TestDigestFidelityEveryBoundary -update"
// rewrites.
const (
	boundaryTableBegin = "<!-- every-boundary table: begin (generated) -->"
	boundaryTableEnd   = "<!-- every-boundary table: end -->"
)

// TestDigestFidelityEveryBoundary measures summary + recovery digest at
// every compaction boundary of every corpus session (Claude Code and
// Codex): the share of the distinct paths and commands used before the
// boundary that they name, which must be at least 85%, within the
// 9,500-character budget.
func TestDigestFidelityEveryBoundary(t *testing.T) {
	dir := corpusDir(t)
	type input struct {
		h    archive.Harness
		path string
		cut  func([]byte) []fidelity.Session
	}
	var inputs []input
	for _, x := range []struct {
		h   archive.Harness
		sub string
		cut func([]byte) []fidelity.Session
	}{{archive.HarnessClaude, "claude", fidelity.CutAll}, {archive.HarnessCodex, "codex", fidelity.CutAllCodex}} {
		files, _ := filepath.Glob(filepath.Join(dir, x.sub, "*.jsonl"))
		sort.Strings(files)
		for _, f := range files {
			inputs = append(inputs, input{x.h, f, x.cut})
		}
	}
	var rows []string
	for _, in := range inputs {
		data, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(in.path)
		for k, s := range in.cut(data) {
			label := fmt.Sprintf("%s #%d", name, k+1)
			tmp := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(tmp, s.Pre, 0o600); err != nil {
				t.Fatal(err)
			}
			st, err := transcript.Import(context.Background(), tmp, in.h, archive.ImportOptions{NoSubagents: true})
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			d := archive.Digest(archive.BuildRecall(st), archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Summary: s.Summary})
			if n := archive.DigestLen(d); n > archive.RecoveryDigestBudget {
				t.Errorf("%s: digest is %d characters, over %d", label, n, archive.RecoveryDigestBudget)
			}
			u := s.Used()
			a, b := u.Measure(s.Summary), u.Measure(s.Summary+"\n"+fidelity.Expand(d))
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %d | %d | %d | %.0f%% | %d/%d | %d/%d | **%.0f%%** | %d |",
				shortName(name), in.h, k+1, s.Lines, len(u.Paths)+len(u.Commands), 100*a.Ratio(),
				b.PathsOK, b.Paths, b.CommandsOK, b.Commands, 100*b.Ratio(), archive.DigestLen(d)))
			if b.Ratio() < 0.85 {
				text := fidelity.NormWS(s.Summary + "\n" + fidelity.Expand(d))
				var miss []string
				for _, p := range u.Paths {
					if !fidelity.PathPresent(text, u.Root, p) {
						miss = append(miss, "path "+p)
					}
				}
				for _, c := range u.Commands {
					if !fidelity.Appears(text, c) {
						miss = append(miss, "command "+c)
					}
				}
				t.Errorf("%s: summary + digest hold %.1f%% of paths and commands, want ≥ 85%%; missing:\n%s", label, 100*b.Ratio(), strings.Join(miss, "\n"))
			}
		}
	}
	if len(rows) == 0 {
		t.Skip("no compacted session in the corpus")
	}
	table := "| session | assistant | boundary | lines before | paths + commands | summary alone | paths | commands | summary + digest | digest chars |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n" + strings.Join(rows, "\n") + "\n"
	t.Logf("\n%s", table)
	if updating() {
		doc := filepath.Join("..", "docs", "FIDELITY.md")
		old, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		i, j := bytes.Index(old, []byte(boundaryTableBegin)), bytes.Index(old, []byte(boundaryTableEnd))
		if i < 0 || j < i {
			t.Fatalf("%s lacks the markers %q … %q", doc, boundaryTableBegin, boundaryTableEnd)
		}
		out := append([]byte{}, old[:i+len(boundaryTableBegin)]...)
		out = append(out, "\n"+table...)
		out = append(out, old[j:]...)
		if err := os.WriteFile(doc, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func shortName(n string) string {
	n = strings.TrimSuffix(n, ".jsonl")
	if len(n) > 8 && n[8] == '-' {
		return n[:8]
	}
	return n
}

// updating reports the -update flag (declared by the package's internal
// tests, in the same test binary).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
