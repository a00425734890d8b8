package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A long save shows bytes, a percentage and the time left on a terminal
// (BEN10_PROGRESS_DELAY=0 draws the line at every update instead of after
// a second, so that a small session shows it too): with a spinner and
// escape sequences normally, as a plain line under NO_COLOR, and not at
// all when stderr is not a terminal.
func TestProgressOfLongSaves(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	var base []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "NO_COLOR=") {
			base = append(base, e)
		}
	}
	base = append(append(base, p.env...), "BEN10_PROGRESS_DELAY=0")
	out := filepath.Join(t.TempDir(), "s.ctx")
	for _, c := range []struct {
		name, label string
		args        []string
	}{
		{"compaction snapshot", "Taking snapshot", []string{"context", "compaction", "snapshot", "--force", "--dir", p.dir}},
		{"context save", "Saving context", []string{"context", "save", "--dir", p.dir}},
		{"context save --out", "Saving", []string{"context", "save", "--transcript", p.transcript, "--out", out}},
	} {
		t.Run(c.name, func(t *testing.T) {
			screen, code := runOnTTYEnv(t, base, "", c.args...)
			if code != 0 || !strings.Contains(screen, "\r\x1b[K") || !strings.Contains(screen, c.label+" ") ||
				!strings.Contains(screen, "%") || !strings.Contains(screen, "KiB / ") || !strings.Contains(screen, "left") {
				t.Fatalf("on a terminal: exit %d, want %q with bytes, %% and time left:\n%q", code, c.label, screen)
			}
			screen, code = runOnTTYEnv(t, append(base, "NO_COLOR=1"), "", c.args...)
			if code != 0 || strings.Contains(screen, "\x1b") || !strings.Contains(screen, "\r"+c.label+" ") || !strings.Contains(screen, "100%") {
				t.Fatalf("under NO_COLOR: exit %d, want a plain line:\n%q", code, screen)
			}
			r := runBen10(t, nil, append(p.env, "BEN10_PROGRESS_DELAY=0"), c.args...)
			if r.code != 0 || strings.Contains(r.stderr, c.label) || strings.Contains(r.stderr, "%") {
				t.Fatalf("without a terminal: %+v", r)
			}
		})
	}
}
