package web

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func importFixture(t testing.TB, path string) *archive.State {
	t.Helper()
	st, err := transcript.Import(context.Background(), path, "", archive.ImportOptions{})
	if err != nil {
		t.Fatalf("importing %s: %v", path, err)
	}
	return st
}

// splitPage cuts a rendered page into the markup before the session JSON,
// the JSON and the markup after it.
func splitPage(t *testing.T, page string) (before, data, after string) {
	t.Helper()
	const open = `<script type="application/json" id="ben10-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatalf("no session JSON element in the page")
	}
	rest := page[i+len(open):]
	j := strings.Index(strings.ToLower(rest), "</script")
	if j < 0 {
		t.Fatalf("session JSON element not closed")
	}
	return page[:i], rest[:j], rest[j:]
}

func TestRenderHostileTranscriptIsInert(t *testing.T) {
	st := importFixture(t, filepath.Join("testdata", "hostile-claude.jsonl"))
	var buf bytes.Buffer
	if err := Render(&buf, st, ViewOptions{Nonce: "TESTNONCE", Now: time.Unix(0, 0),
		Commands: []string{`claude --resume '<script>x</script>'`}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	before, data, after := splitPage(t, page)
	markup := before + after
	lower := strings.ToLower(markup)
	if n := strings.Count(lower, "<script"); n != 1 {
		t.Errorf("markup outside the JSON has %d <script> tags, want 1 (the page's own)", n)
	}
	if !strings.Contains(markup, `<script nonce="TESTNONCE">`) {
		t.Errorf("the page's script does not carry the nonce")
	}
	for _, bad := range []string{"javascript:", "onerror", "__pwned", "<img"} {
		if strings.Contains(lower, bad) {
			t.Errorf("markup outside the JSON contains %q", bad)
		}
	}
	for _, bad := range []string{"<", ">", "&"} {
		if strings.Contains(data, bad) {
			t.Errorf("session JSON contains a raw %q", bad)
		}
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(csp[1], "script-src &#39;nonce-TESTNONCE&#39;") || !strings.Contains(csp[1], "default-src &#39;none&#39;") {
		t.Errorf("Content-Security-Policy meta tag missing or wrong: %v", csp)
	}
	var d viewData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatalf("session JSON: %v", err)
	}
	if len(d.Messages) != 6 || len(d.Tools) != 1 || len(d.Compactions) != 1 {
		t.Errorf("got %d messages, %d tools, %d compactions; want 6, 1, 1", len(d.Messages), len(d.Tools), len(d.Compactions))
	}
	if !strings.Contains(d.Messages[0].Text, "<script>window.__pwned=1</script>") {
		t.Errorf("message text not kept as text: %q", d.Messages[0].Text)
	}
	var imgs []string
	for _, m := range d.Messages {
		imgs = append(imgs, m.Images...)
	}
	if len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/png;base64,") {
		t.Errorf("images = %d %.40q, want the PNG only (the SVG refused)", len(imgs), imgs)
	}
}

func TestDataURI(t *testing.T) {
	for _, c := range []struct {
		mt, data string
		ok       bool
	}{
		{"image/png", "iVBORw0KGgoAAA==", true},
		{"IMAGE/JPEG", "/9j/4AA=", true},
		{"image/webp", "UklGRgAAAABXRUJQVlA4IA==", true},
		{"image/gif", "R0lGODlhAQA=", true},
		{"image/png", "/9j/4AA=", false}, // a JPEG said to be a PNG
		{"image/png", "AAAA", false},
		{"image/svg+xml", "PHN2Zy8+", false},
		{"text/html", "PGI+", false},
		{"image/png", "not base64!", false},
		{"image/png", "", false},
		{"image/png\";x", "iVBORw0KGgoAAA==", false},
	} {
		u, ok := dataURI(c.mt, c.data)
		if ok != c.ok {
			t.Errorf("dataURI(%q, %q) ok = %v, want %v", c.mt, c.data, ok, c.ok)
		}
		if ok && !strings.HasPrefix(u, "data:image/") {
			t.Errorf("dataURI(%q) = %q", c.mt, u)
		}
	}
}

func TestWalkImagesDataURL(t *testing.T) {
	var v any
	line := `{"payload":{"content":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgoAAA=="},{"type":"input_image","image_url":"data:image/svg+xml;base64,PHN2Zy8+"},{"type":"input_image","image_url":"https://example.com/x.png"}]}}`
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	walkImages(v, 0, &out)
	if len(out) != 1 || out[0] != "data:image/png;base64,iVBORw0KGgoAAA==" {
		t.Errorf("images = %q, want the one base64 PNG", out)
	}
}

// TestViewDataGolden freezes what a page shows of the Claude fixture (a
// main session with a sub-agent, tools, todos, a compaction).
func TestViewDataGolden(t *testing.T) {
	for _, c := range []struct{ name, path string }{
		{"claude", filepath.Join("..", "transcript", "claude", "testdata", "11111111-2222-4333-8444-555555555555.jsonl")},
		{"codex", filepath.Join("..", "transcript", "codex", "testdata", "basic.jsonl")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.MarshalIndent(buildViewData(importFixture(t, c.path)), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "view-"+c.name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./web -run TestViewDataGolden -update)", err)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("the view data of %s changed; if intended, rerun with -update\n got: %.600s", c.path, got)
			}
		})
	}
}

func TestRedactState(t *testing.T) {
	st := &archive.State{
		Messages:    []archive.Message{{Text: "key SECRET"}},
		Tools:       []archive.ToolExec{{Input: "SECRET in", Output: "SECRET out", Command: "echo SECRET"}},
		Compactions: []archive.Compaction{{Summary: "SECRET summary"}},
		Tasks:       archive.TaskState{Active: []archive.Task{{Content: "SECRET task"}}},
		Files:       []archive.FileRecord{{Path: "SECRET.txt"}},
	}
	RedactState(st, func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") })
	var buf bytes.Buffer
	if err := Render(&buf, st, ViewOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "SECRET") {
		t.Errorf("a redacted string reached the page")
	}
	if n := strings.Count(buf.String(), "[REDACTED]"); n != 7 {
		t.Errorf("%d redaction markers in the page, want 7", n)
	}
}
