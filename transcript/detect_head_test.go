package transcript_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript"
)

// Inconclusive complete lines filling the first 64 KiB, then a conclusive
// one: Detect reads the whole head.
func TestDetectLateLine(t *testing.T) {
	p := write(t, filepath.Join(t.TempDir(), "late.jsonl"),
		strings.Repeat(`{"type":"mystery","pad":"`+strings.Repeat("y", 30<<10)+`"}`+"\n", 3)+codexLine+"\n")
	if h, err := transcript.Detect(p); err != nil || h != archive.HarnessCodex {
		t.Fatalf("%q %v, want codex", h, err)
	}
}

// On every corpus file, on lines cut around 64 KiB and on a long line
// that only its end decides, Detect says what sniffing the file's first
// MiB says.
func TestDetectHeadCorpus(t *testing.T) {
	var paths []string
	for _, sub := range []string{"claude", "codex", "gemini"} {
		if dir, ok := testcorpus.Find(sub); ok {
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
					paths = append(paths, p)
				}
				return nil
			})
		}
	}
	if len(paths) == 0 {
		t.Skip("no corpus")
	}
	d := t.TempDir()
	check := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want := transcript.Sniff(name, data[:min(len(data), 1<<20)])
		got, err := transcript.Detect(p)
		if want == "" {
			if err == nil {
				t.Fatalf("%s: detected %q, full-head sniff inconclusive", name, got)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("%s: %q %v, full-head sniff %q", name, got, err, want)
		}
	}
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("c%d-%s", i, filepath.Base(p)), data)
	}
	// One long line (over 64 KiB) at the start, cut at many points.
	long := `{"type":"mystery","pad":"` + strings.Repeat("z", 70<<10) + `"}` + "\n"
	for k, cut := range []int{64<<10 - 1, 64 << 10, 64<<10 + 1, len(long) - 1, len(long)} {
		data := []byte(long[:cut] + "\n" + claudeLine + "\n")
		check(fmt.Sprintf("cut%d.jsonl", k), data)
	}
	// A Claude line longer than 64 KiB whose opening bytes look like
	// Codex's: only the whole line tells.
	check("nested.jsonl", []byte(`{"type":"user","sessionId":"s1","uuid":"u1","message":{"x":{"type":"session_meta"},"pad":"`+strings.Repeat("w", 80<<10)+`"}}`+"\n"))
}
