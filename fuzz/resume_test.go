package fuzz

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// FuzzSubagentResume: a session whose subagent file (any bytes) grows
// from a cut to a longer one while the main file grows is saved
// incrementally; the archive holds what a full save holds (metadata,
// import report, file registry, tools, recall).
func FuzzSubagentResume(f *testing.F) {
	dir := filepath.Join("..", "transcript", "claude", "testdata")
	main, err := os.ReadFile(filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl"))
	if err != nil {
		f.Skip("fixture missing")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "11111111-2222-4333-8444-555555555555", "subagents", "agent-abc.jsonl")); err == nil {
		f.Add(b, uint16(300), uint16(2000))
	}
	f.Add([]byte(`{"type":"assistant","isSidechain":true,"uuid":"a","timestamp":"2026-01-01T11:00:00Z","requestId":"r","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/home/dev/proj/x.go","content":"x"}}],"usage":{"input_tokens":1}}}`+"\n"+
		`{"type":"user","isSidechain":true,"uuid":"b","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"type":"text","file":{"content":"y","numLines":1,"startLine":1,"totalLines":1}}}`+"\n"+
		`{"type":"custom-title","customTitle":"t"}`+"\n"+`{"type":"weird"}`+"\n\n"+`not json`+"\n"), uint16(100), uint16(600))
	n := bytes.Count(main, []byte{'\n'})
	cut := func(k int) []byte {
		off := 0
		for range k {
			i := bytes.IndexByte(main[off:], '\n')
			if i < 0 {
				break
			}
			off += i + 1
		}
		return main[:off]
	}
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	f.Fuzz(func(t *testing.T, sub []byte, a, b uint16) {
		if len(sub) > 1<<16 {
			return
		}
		ca := min(int(a), len(sub))
		cb := max(ca, min(int(b), len(sub)))
		const name = "11111111-2222-4333-8444-555555555555"
		files := func(m, s []byte) []archive.RawFile {
			return []archive.RawFile{{Name: name + ".jsonl", Data: m}, {Name: name + "/subagents/agent-f.jsonl", Data: s}}
		}
		save := func(fs []archive.RawFile, prev *archive.Archive) *archive.Archive {
			var buf bytes.Buffer
			if _, _, err := claude.SaveFiles(context.Background(), &buf, fs, archive.ImportOptions{}, archive.EncodeOptions{Now: now, Previous: prev}); err != nil {
				t.Fatalf("SaveFiles: %v", err)
			}
			ar, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return ar
		}
		prev := save(files(cut(n/2), sub[:ca]), nil)
		inc := save(files(main, sub[:cb]), prev)
		full := save(files(main, sub[:cb]), nil)
		gm, wm := inc.Meta(), full.Meta()
		gm.CreatedAt, wm.CreatedAt = time.Time{}, time.Time{}
		if !reflect.DeepEqual(gm, wm) {
			t.Fatalf("metadata differs\n got %+v\nwant %+v", gm, wm)
		}
		if g, w := inc.ImportReport(), full.ImportReport(); !reflect.DeepEqual(g, w) {
			t.Fatalf("import report differs\n got %+v\nwant %+v", g, w)
		}
		for _, c := range []struct {
			name string
			get  func(*archive.Archive) (any, error)
		}{
			{"files", func(x *archive.Archive) (any, error) { return x.Files() }},
			{"tools", func(x *archive.Archive) (any, error) { return x.Tools() }},
			{"recall", func(x *archive.Archive) (any, error) { r, _, err := x.Recall(); return r, err }},
		} {
			g, err := c.get(inc)
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.get(full)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s differ\n got %+v\nwant %+v", c.name, g, w)
			}
		}
	})
}
