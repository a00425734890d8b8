package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/export"
	"github.com/ben10ctx/ben10/transcript/codex"
	"github.com/ben10ctx/ben10/transcript/gemini"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

func ExampleCUSF() {
	s := &archive.State{
		Meta:     archive.Metadata{Harness: archive.HarnessCodex, SessionID: "s1", Model: "gpt-5", TotalTokens: 42},
		Messages: []archive.Message{{ID: "m1", Role: "user", Kind: "prompt", Text: "hi"}},
	}
	export.Now = func() time.Time { return time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC) }
	_ = export.CUSF(os.Stdout, s)
	// Output:
	// {"_meta":{"format":"cusf","version":"1.0.0","exported_at":"2026-05-01T00:00:00Z","exporter":"ben10/1"}}
	// {"type":"session_start","session_id":"s1","llm_source":"codex","llm_model":"gpt-5"}
	// {"type":"message","role":"user","content":"hi","message_id":"m1","kind":"prompt"}
	// {"type":"session_end","session_id":"s1","total_messages":1,"total_tool_calls":0,"total_files":0,"compactions":0,"total_tokens":{"total":42,"context":0}}
}

var update = flag.Bool("update", false, "rewrite golden files")

func fixedNow() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }

// fixtures are the importers' own test sessions.
var fixtures = []struct {
	name string
	load func() (*archive.State, error)
}{
	{"codex", func() (*archive.State, error) {
		return codex.Import(context.Background(), "../transcript/codex/testdata/basic.jsonl", archive.ImportOptions{})
	}},
	{"gemini", func() (*archive.State, error) {
		return gemini.Import(context.Background(), "../transcript/gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl", archive.ImportOptions{ProjectDir: "/home/dev/proj"})
	}},
	{"kimi", func() (*archive.State, error) {
		return kimi.Import(context.Background(), "../transcript/kimi/testdata/share/sessions/2b8c70fb72d8a087e5dee109778f74cf/0b9c5d2e-1111-4a2b-9c3d-000000000001", archive.ImportOptions{})
	}},
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./export -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run go test ./export -update and review the diff)\n got: %.600s", name, got)
	}
}

func TestGolden(t *testing.T) {
	export.Now = fixedNow
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, err := f.load()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				ext string
				fn  func(*bytes.Buffer, *archive.State) error
			}{
				{"cusf.jsonl", func(b *bytes.Buffer, s *archive.State) error { return export.CUSF(b, s) }},
				{"md", func(b *bytes.Buffer, s *archive.State) error { return export.Markdown(b, s) }},
				{"json", func(b *bytes.Buffer, s *archive.State) error { return export.JSON(b, s) }},
			} {
				var buf bytes.Buffer
				if err := w.fn(&buf, s); err != nil {
					t.Fatal(err)
				}
				golden(t, f.name+"."+w.ext, buf.Bytes())
			}
		})
	}
}

// TestCUSFShape checks the CUSF invariants on every fixture: _meta first,
// session_start second, session_end last with matching totals, every
// tool_result after its tool_use, every tool exported once.
func TestCUSFShape(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, err := f.load()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := export.CUSF(&buf, s); err != nil {
				t.Fatal(err)
			}
			var recs []map[string]any
			sc := bufio.NewScanner(&buf)
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				var r map[string]any
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("line %d: %v", len(recs)+1, err)
				}
				recs = append(recs, r)
			}
			if _, ok := recs[0]["_meta"]; !ok || recs[1]["type"] != "session_start" || recs[len(recs)-1]["type"] != "session_end" {
				t.Fatalf("framing: %v … %v", recs[0], recs[len(recs)-1])
			}
			if recs[1]["llm_source"] != string(s.Meta.Harness) || recs[1]["session_id"] != s.Meta.SessionID {
				t.Errorf("session_start %v", recs[1])
			}
			used := map[string]int{}
			results := map[string]int{}
			messages := 0
			for _, r := range recs[2 : len(recs)-1] {
				switch r["type"] {
				case "message":
					if r["kind"] == "tool_use" && r["content"] == "" {
						t.Errorf("empty tool_use carrier exported: %v", r)
					}
					messages++ // compaction boundaries too: total_messages counts every message record
				case "tool_use":
					used[r["tool_id"].(string)]++
				case "tool_result":
					id := r["tool_id"].(string)
					if used[id] == 0 {
						t.Errorf("result for %s before its use", id)
					}
					results[id]++
				default:
					t.Errorf("unexpected record %v", r)
				}
			}
			for _, x := range s.Tools {
				if used[x.ID] != 1 || results[x.ID] > 1 {
					t.Errorf("tool %s: %d uses, %d results", x.ID, used[x.ID], results[x.ID])
				}
			}
			end := recs[len(recs)-1]
			if int(end["total_messages"].(float64)) != messages || int(end["total_tool_calls"].(float64)) != len(s.Tools) {
				t.Errorf("session_end %v (messages %d)", end, messages)
			}
			tt := end["total_tokens"].(map[string]any)
			if int64(tt["total"].(float64)) != s.Meta.TotalTokens {
				t.Errorf("total tokens %v", tt)
			}
		})
	}
}

func TestMarkdownFences(t *testing.T) {
	s := &archive.State{Meta: archive.Metadata{Harness: archive.HarnessCodex, SessionID: "x"},
		Messages: []archive.Message{{ID: "1", Role: "assistant", Kind: "text", Text: "hi", ToolCallIDs: []string{"t"}}},
		Tools:    []archive.ToolExec{{ID: "t", Name: "shell", Command: "echo '```'", Output: strings.Repeat("y", export.MarkdownOutputLimit+10), Success: true}},
	}
	var buf bytes.Buffer
	if err := export.Markdown(&buf, s); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "````sh\necho '```'\n````") || !strings.Contains(out, "(10 more bytes)") {
		t.Errorf("markdown:\n%s", out)
	}
}

func TestOrphansAndEmpty(t *testing.T) {
	// A tool no message references and a tool_result for an unknown call
	// are still exported.
	s := &archive.State{
		Messages: []archive.Message{{ID: "r", Role: "user", Kind: "tool_result", Text: "lost", ToolCallIDs: []string{"ghost"}}},
		Tools:    []archive.ToolExec{{ID: "lone", Name: "x", Input: "not json", Output: "o", Success: true}},
	}
	var buf bytes.Buffer
	if err := export.CUSF(&buf, s); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"tool_id":"ghost","result":"lost"`, `"tool_input":"not json","tool_id":"lone"`, `"tool_id":"lone","result":"o"`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	for _, fn := range []func(*bytes.Buffer, *archive.State) error{
		func(b *bytes.Buffer, s *archive.State) error { return export.CUSF(b, s) },
		func(b *bytes.Buffer, s *archive.State) error { return export.Markdown(b, s) },
		func(b *bytes.Buffer, s *archive.State) error { return export.JSON(b, s) },
	} {
		var b bytes.Buffer
		if err := fn(&b, &archive.State{}); err != nil || b.Len() == 0 {
			t.Errorf("empty state: %v", err)
		}
	}
}

// TestStartIsFirstActivity: a session's start is its first activity, not
// the time it was saved (the archive's CreatedAt), in the Markdown
// "Started" row and CUSF's session_start (issue 14 item 11).
func TestStartIsFirstActivity(t *testing.T) {
	first := time.Date(2026, 3, 2, 9, 11, 58, 0, time.UTC)
	saved := first.Add(5 * time.Hour)
	s := &archive.State{Meta: archive.Metadata{SessionID: "s1", Harness: archive.HarnessClaude,
		CreatedAt: saved, UpdatedAt: saved, FirstActivity: first, LastActivity: first.Add(time.Hour)}}
	var cusf, md bytes.Buffer
	if err := export.CUSF(&cusf, s); err != nil {
		t.Fatal(err)
	}
	if err := export.Markdown(&md, s); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(cusf.String(), "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], `"session_start"`) || !strings.Contains(lines[1], `"timestamp":"2026-03-02T09:11:58Z"`) {
		t.Errorf("CUSF session_start does not start at the first activity:\n%s", lines[1])
	}
	started := false
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.Contains(l, "Started") {
			started = true
			if !strings.Contains(l, "2026-03-02 09:11:58 UTC") {
				t.Errorf("Markdown %q, want the first activity 2026-03-02 09:11:58 UTC", l)
			}
		}
	}
	if !started {
		t.Errorf("no Started row:\n%s", md.String())
	}
}

// TestCUSFTotalMessages is issue 14 item 10 (Kimi's total was one short):
// session_end's total_messages counts every "message" record the export
// wrote, compaction boundaries included, for every assistant.
func TestCUSFTotalMessages(t *testing.T) {
	export.Now = fixedNow
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, err := f.load()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := export.CUSF(&buf, s); err != nil {
				t.Fatal(err)
			}
			lines, total, compactions := 0, -1, 0
			for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
				var v struct {
					Type          string `json:"type"`
					Kind          string `json:"kind"`
					TotalMessages int    `json:"total_messages"`
				}
				if err := json.Unmarshal(l, &v); err != nil {
					t.Fatal(err)
				}
				switch v.Type {
				case "message":
					lines++
					if v.Kind == "compaction" {
						compactions++
					}
				case "session_end":
					total = v.TotalMessages
				}
			}
			if total != lines || compactions != len(s.Compactions) {
				t.Fatalf("total_messages %d, but %d message records (%d of them the %d compaction boundaries)", total, lines, compactions, len(s.Compactions))
			}
		})
	}
}

// TestExportsNameBothTokenCounts is issue 14 item 9 for the exports: the
// Markdown names the context tokens (the last request's context) and the
// tokens used (the sum over the session) separately, and CUSF's
// total_tokens carries both under their own keys.
func TestExportsNameBothTokenCounts(t *testing.T) {
	export.Now = fixedNow
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, err := f.load()
			if err != nil {
				t.Fatal(err)
			}
			m := s.Meta
			if m.ContextTokens == 0 || m.TotalTokens <= m.ContextTokens {
				t.Fatalf("fixture tokens: context %d, used %d", m.ContextTokens, m.TotalTokens)
			}
			var md bytes.Buffer
			if err := export.Markdown(&md, s); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{fmt.Sprintf("**Context tokens:** %d tokens", m.ContextTokens), fmt.Sprintf("**Tokens used:** %d ", m.TotalTokens)} {
				if !bytes.Contains(md.Bytes(), []byte(want)) {
					t.Errorf("Markdown lacks %q", want)
				}
			}
			var cusf bytes.Buffer
			if err := export.CUSF(&cusf, s); err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSpace(cusf.Bytes()), []byte("\n"))
			var end struct {
				TotalTokens struct {
					Total   int64 `json:"total"`
					Context int64 `json:"context"`
				} `json:"total_tokens"`
			}
			if err := json.Unmarshal(lines[len(lines)-1], &end); err != nil {
				t.Fatal(err)
			}
			if end.TotalTokens.Total != m.TotalTokens || end.TotalTokens.Context != m.ContextTokens {
				t.Errorf("CUSF total_tokens %+v, want total %d and context %d", end.TotalTokens, m.TotalTokens, m.ContextTokens)
			}
		})
	}
}
