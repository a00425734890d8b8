package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// refDetect is Detect as it was before the 64 KiB first read: Sniff on
// the first MiB, then the location.
func refDetect(t *testing.T, path string) archive.Harness {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if h := Sniff(filepath.Base(path), data[:min(len(data), sniffSize)]); h != "" {
		return h
	}
	return byLocation(path)
}

// TestDetectQuickSniff: reading 64 KiB first gives the answer the first
// MiB gives, on every fixture and on files whose deciding line starts or
// ends around the 64 KiB mark, with long and blank lines before it.
func TestDetectQuickSniff(t *testing.T) {
	var paths []string
	for _, pat := range []string{"claude/testdata/*.jsonl", "codex/testdata/*.jsonl", "gemini/testdata/*.json*"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	dir := t.TempDir()
	claudeLine := `{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}`
	codexLine := `{"type":"session_meta","payload":{"id":"x"}}`
	pad := func(n int) string {
		return `{"type":"progress","data":"` + strings.Repeat("x", n) + `"}`
	}
	cases := map[string]string{
		"long-first.jsonl":      pad(100<<10) + "\n" + claudeLine + "\n",
		"cut-at-64k.jsonl":      pad(quickSniffSize-40) + "\n" + claudeLine + "\n" + codexLine + "\n",
		"second-after.jsonl":    pad(quickSniffSize-10) + "\n" + codexLine + "\n" + claudeLine + "\n",
		"blank-lines.jsonl":     strings.Repeat("\n", 19) + pad(quickSniffSize) + "\n" + claudeLine + "\n",
		"many-unknown.jsonl":    strings.Repeat(pad(10)+"\n", 25) + claudeLine + "\n" + pad(quickSniffSize) + "\n",
		"undecided.jsonl":       strings.Repeat(pad(5000)+"\n", 30),
		"codex-after-pad.jsonl": pad(1000) + "\n" + codexLine + "\n" + pad(quickSniffSize) + "\n",
	}
	for name, body := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		want := refDetect(t, p)
		got, err := Detect(p)
		if want == "" {
			if err == nil {
				t.Errorf("%s: Detect = %q, want an error", p, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: Detect = %q, %v; want %q", p, got, err, want)
		}
	}
}
