package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGitleaksComparison compares this package with gitleaks on the same
// files: recall on the generated labelled corpus, false positives on the
// near misses and on the corpus transcripts, and throughput on the
// transcripts. It runs only when BEN10_GITLEAKS names a gitleaks binary
// (see scripts/bench-redact.sh); gitleaks is a benchmark reference, not a
// dependency.
func TestGitleaksComparison(t *testing.T) {
	bin := os.Getenv("BEN10_GITLEAKS")
	if bin == "" {
		t.Skip("BEN10_GITLEAKS not set; run scripts/bench-redact.sh")
	}
	transcripts := corpusTranscripts(t)
	dir := t.TempDir()
	r := Default()

	// Labelled positives, one case per file.
	pos := positiveCases(1)
	posDir := filepath.Join(dir, "positives")
	mustMkdir(t, posDir)
	for i, c := range pos {
		mustWrite(t, filepath.Join(posDir, fmt.Sprintf("%04d.txt", i)), c.Text)
	}
	neg := negativeCases(3)
	negDir := filepath.Join(dir, "negatives")
	mustMkdir(t, negDir)
	for i, n := range neg {
		mustWrite(t, filepath.Join(negDir, fmt.Sprintf("%04d.txt", i)), n)
	}
	cleanDir := filepath.Join(dir, "clean")
	mustMkdir(t, cleanDir)
	var cleanBytes int64
	var cleanData [][]byte
	for _, f := range transcripts {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cleanBytes += int64(len(data))
		cleanData = append(cleanData, data)
		mustWrite(t, filepath.Join(cleanDir, filepath.Base(f)), string(data))
	}

	// gitleaks on the three sets.
	glPos, _ := runGitleaks(t, bin, posDir, filepath.Join(dir, "pos.json"))
	glNeg, _ := runGitleaks(t, bin, negDir, filepath.Join(dir, "neg.json"))
	// One timed run: gitleaks takes seconds per MB on JSON transcripts.
	glClean, glTime := runGitleaks(t, bin, cleanDir, filepath.Join(dir, "clean.json"))

	// Recall.
	glByFile := map[string][]glFinding{}
	for _, f := range glPos {
		glByFile[filepath.Base(f.File)] = append(glByFile[filepath.Base(f.File)], f)
	}
	ours, theirs := 0, 0
	perRule := map[string][3]int{}
	for i, c := range pos {
		x := perRule[c.Rule]
		x[2]++
		if out := redactCase(r, c); !strings.Contains(out, c.Secret) {
			ours++
			x[0]++
		}
		for _, f := range glByFile[fmt.Sprintf("%04d.txt", i)] {
			if overlaps(c.Secret, f.Secret) || strings.Contains(f.Match, c.Secret) {
				theirs++
				x[1]++
				break
			}
		}
		perRule[c.Rule] = x
	}

	// False positives.
	oursNeg := 0
	for _, n := range neg {
		if len(r.Find([]byte(n))) > 0 {
			oursNeg++
		}
	}
	glNegFiles := map[string]bool{}
	for _, f := range glNeg {
		glNegFiles[f.File] = true
	}
	oursClean := 0
	for _, data := range cleanData {
		for _, line := range bytes.Split(data, []byte("\n")) {
			_, rep := r.JSONLine(line)
			oursClean += rep.Total()
		}
	}

	// Throughput: best of 3, one goroutine.
	best := func(f func()) time.Duration {
		var b time.Duration
		for k := 0; k < 3; k++ {
			s := time.Now()
			f()
			if d := time.Since(s); k == 0 || d < b {
				b = d
			}
		}
		return b
	}
	jsonTime := best(func() {
		for _, data := range cleanData {
			for _, line := range bytes.Split(data, []byte("\n")) {
				r.JSONLine(line)
			}
		}
	})
	bytesTime := best(func() {
		for _, data := range cleanData {
			r.Bytes(data)
		}
	})
	mbps := func(d time.Duration) float64 { return float64(cleanBytes) / d.Seconds() / 1e6 }

	var b strings.Builder
	fmt.Fprintf(&b, "| measure | ben10 redact | gitleaks |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| recall, labelled corpus (%d secrets, %d rules) | %d/%d (%.1f%%) | %d/%d (%.1f%%) |\n", len(pos), len(perRule), ours, len(pos), pct(ours, len(pos)), theirs, len(pos), pct(theirs, len(pos)))
	fmt.Fprintf(&b, "| near-miss files flagged (%d files) | %d | %d |\n", len(neg), oursNeg, len(glNegFiles))
	fmt.Fprintf(&b, "| findings on corpus transcripts (%.1f MB, sanitized) | %d | %d |\n", float64(cleanBytes)/1e6, oursClean, len(glClean))
	fmt.Fprintf(&b, "| throughput on corpus transcripts | %.0f MB/s (JSONLine, 1 goroutine); %.0f MB/s (Bytes) | %.0f MB/s (`gitleaks dir`, wall clock, all cores) |\n", mbps(jsonTime), mbps(bytesTime), mbps(glTime))
	fmt.Fprintf(&b, "\nper rule (ben10 / gitleaks / cases):\n\n| rule | ben10 | gitleaks | cases |\n|---|---|---|---|\n")
	for _, rule := range builtinRules {
		x := perRule[rule.ID]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", rule.ID, x[0], x[1], x[2])
	}
	t.Log("\n" + b.String())
	if out := os.Getenv("BEN10_REDACT_REPORT"); out != "" {
		mustWrite(t, out, b.String())
	}
	if ours < theirs {
		t.Errorf("recall %d below gitleaks %d", ours, theirs)
	}
	if oursClean > len(glClean) || oursNeg > len(glNegFiles) {
		t.Errorf("false positives above gitleaks: transcripts %d vs %d, near misses %d vs %d", oursClean, len(glClean), oursNeg, len(glNegFiles))
	}
}

type glFinding struct {
	File, Secret, Match, RuleID string
}

func runGitleaks(t *testing.T, bin, dir, report string) ([]glFinding, time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, "dir", dir, "--no-banner", "--report-format", "json", "--report-path", report, "--exit-code", "0", "--log-level", "error")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		t.Fatalf("gitleaks dir %s: %v\n%s", dir, err, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var f []glFinding
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("gitleaks report %s: %v", report, err)
	}
	return f, d
}

func overlaps(planted, found string) bool {
	if found == "" {
		return false
	}
	return strings.Contains(found, planted) || (len(found) >= 8 && strings.Contains(planted, found))
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(b) }

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
