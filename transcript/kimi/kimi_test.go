package kimi_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imptest"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

const (
	workDir = "/home/dev/proj"
	uuid    = "0b9c5d2e-1111-4a2b-9c3d-000000000001"
)

var sessDir = filepath.Join("testdata", "share", "sessions", kimi.MD5Dir(workDir), uuid)

func TestMD5Dir(t *testing.T) {
	if got := kimi.MD5Dir(workDir); got != "2b8c70fb72d8a087e5dee109778f74cf" {
		t.Errorf("md5 %s", got)
	}
}

func kinds(s *archive.State) []string {
	var out []string
	for _, m := range s.Messages {
		k := m.Role + "/" + m.Kind
		if m.Sidechain {
			k = "side:" + k
		}
		out = append(out, k)
	}
	return out
}

func TestSession(t *testing.T) {
	for _, path := range []string{sessDir, filepath.Join(sessDir, "context.jsonl"), filepath.Join(sessDir, "wire.jsonl")} {
		s, err := kimi.Import(context.Background(), path, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkSession(t, s)
	}
}

func checkSession(t *testing.T, s *archive.State) {
	t.Helper()
	imptest.CheckRefs(t, s)
	var names []string
	for _, r := range s.Raw {
		names = append(names, r.Name)
		imptest.CheckRaw(t, s, r.Name, filepath.Join(sessDir, strings.TrimPrefix(r.Name, uuid+"/")))
	}
	sort.Strings(names)
	wantNames := []string{uuid + "/context.jsonl", uuid + "/context_1.jsonl", uuid + "/state.json",
		uuid + "/subagents/agent-1/context.jsonl", uuid + "/subagents/agent-1/meta.json", uuid + "/wire.jsonl"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("raw names %v", names)
	}
	want := []string{
		"system/meta", "user/prompt", "assistant/thinking", "assistant/text", "user/tool_result", "assistant/text", "user/tool_result", "user/tool_result", "assistant/text",
		"user/summary", "user/prompt", "user/meta", "assistant/text", "user/tool_result", "user/tool_result",
		"side:user/prompt", "side:assistant/text", "side:user/tool_result", "side:assistant/text",
	}
	if got := kinds(s); !reflect.DeepEqual(got, want) {
		t.Errorf("messages\n got %v\nwant %v", got, want)
	}
	m := s.Meta
	if m.SessionID != uuid || m.DirectoryPath != workDir || m.DirectoryHash != kimi.MD5Dir(workDir) || m.Title != "Rename foo" ||
		m.Model != "kimi-k2-turbo-preview" || m.ContextTokens != 41000 || m.ContextWindow != 262144 || m.TotalTokens != 64200 ||
		!reflect.DeepEqual(m.SubagentIDs, []string{"agent-1"}) {
		t.Errorf("meta %+v", m)
	}
	t0 := time.Unix(1761000000, 0).UTC()
	if !m.FirstActivity.Equal(t0.Add(time.Second)) || !m.LastActivity.Equal(t0.Add(43*time.Second)) {
		t.Errorf("activity %v %v", m.FirstActivity, m.LastActivity)
	}
	if !s.Messages[1].Timestamp.Equal(t0.Add(time.Second)) || !s.Messages[10].Timestamp.Equal(t0.Add(30*time.Second)) {
		t.Errorf("prompt times %v %v", s.Messages[1].Timestamp, s.Messages[10].Timestamp)
	}
	if len(s.Compactions) != 1 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	c := s.Compactions[0]
	if c.MessageIndex != 9 || c.PreTokens != 200000 || c.PostTokens != 30000 || !strings.Contains(c.Summary, "pytest has one failure") || c.Trigger != "auto" {
		t.Errorf("compaction %+v", c)
	}
	byID := map[string]archive.ToolExec{}
	for _, x := range s.Tools {
		byID[x.ID] = x
	}
	if len(s.Tools) != 6 {
		t.Errorf("%d tools", len(s.Tools))
	}
	if sh := byID["tc3"]; sh.Command != "pytest -q" || sh.Success || sh.DurationMS != 4000 || !strings.Contains(sh.Output, "1 failed") {
		t.Errorf("shell %+v", sh)
	}
	if ed := byID["tc2"]; !ed.Success || !reflect.DeepEqual(ed.RelatedFiles, []string{"util.py"}) {
		t.Errorf("edit %+v", ed)
	}
	if st := byID["stc1"]; !st.Sidechain {
		t.Errorf("subagent tool %+v", st)
	}
	wantFiles := []archive.FileRecord{{Path: "test_util.py", AccessCount: 1, Reads: 1}, {Path: "util.py", AccessCount: 2, Reads: 1, Edits: 1}}
	if !reflect.DeepEqual(s.Files, wantFiles) {
		t.Errorf("files %+v", s.Files)
	}
	if len(s.Tasks.Completed) != 1 || len(s.Tasks.Active) != 1 || s.Tasks.Active[0].Content != "Fix test" || len(s.Tasks.Pending) != 1 {
		t.Errorf("tasks %+v", s.Tasks)
	}
	if s.Import.UnknownTypes["context/mystery"] != 1 || s.Import.UnknownTypes["wire/FutureEvent"] != 1 || s.Import.Skipped != 0 {
		t.Errorf("report %+v", s.Import)
	}
}

func TestNoSubagents(t *testing.T) {
	s, err := kimi.Import(context.Background(), sessDir, archive.ImportOptions{NoSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Raw {
		if strings.Contains(r.Name, "subagents/") {
			t.Errorf("raw %s kept", r.Name)
		}
	}
	for _, m := range s.Messages {
		if m.Sidechain {
			t.Errorf("sidechain message %+v", m)
		}
	}
}

func TestClearRotationAndNoWire(t *testing.T) {
	files := []archive.RawFile{
		{Name: "s/context_1.jsonl", Data: []byte(`{"role":"user","content":"first"}` + "\n" + `{"role":"_usage","token_count":900}` + "\n")},
		{Name: "s/context.jsonl", Data: []byte(`{"role":"_system_prompt","content":"sys"}` + "\n" + `{"role":"user","content":"after clear"}` + "\n" + `{"role":"_usage","token_count":100}` + "\n")},
	}
	s, err := kimi.ImportFiles(files, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) != 2 || len(s.Compactions) != 1 || s.Compactions[0].Trigger != "manual" || s.Meta.ContextTokens != 100 || s.Meta.SessionID != "s" {
		t.Errorf("messages %v compactions %+v meta %+v", kinds(s), s.Compactions, s.Meta)
	}
	if _, err := kimi.ImportFiles([]archive.RawFile{{Name: "s/wire.jsonl"}}, archive.ImportOptions{}); err != kimi.ErrNoContext {
		t.Errorf("no context: %v", err)
	}
}

func TestHostile(t *testing.T) {
	in := "{\"role\":\"user\",\"content\":\"caf\xe9\"}\r\n\n\nnot json\n{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"tool_calls\":[{\"id\":\"x\",\"function\":{\"name\":\"Shell\",\"arguments\":\"{bad\"}}]}\n{\"role\":\"tool\",\"tool_call_id\":\"nope\",\"content\":\"orphan\"}\n{\"role\":\"assistant\",\"content\":\"cu"
	s, err := kimi.ImportFiles([]archive.RawFile{{Name: "s/context.jsonl", Data: []byte(in)}}, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Import
	if r.Lines != 5 || r.Skipped != 2 || !r.Truncated || r.InvalidUTF8 != 1 {
		t.Errorf("report %+v", r)
	}
	if len(s.Tools) != 1 || s.Tools[0].Input != `"{bad"` {
		t.Errorf("tools %+v", s.Tools)
	}
}

func TestWorkDirKaos(t *testing.T) {
	share := t.TempDir()
	os.WriteFile(filepath.Join(share, "kimi.json"), []byte(`{"work_dirs":[{"path":"/r","kaos":"ssh"}]}`), 0o600)
	if got := kimi.WorkDir(share, "ssh_"+kimi.MD5Dir("/r")); got != "/r" {
		t.Errorf("kaos work dir %q", got)
	}
	if got := kimi.WorkDir(share, kimi.MD5Dir("/nope")); got != "" {
		t.Errorf("unknown hash %q", got)
	}
}

func TestOutsideLayout(t *testing.T) {
	d := filepath.Join(t.TempDir(), "loose")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "context.jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := kimi.Import(context.Background(), filepath.Join(d, "context.jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta.DirectoryHash != "" || s.Meta.DirectoryPath != "" || s.Meta.SessionID != "loose" || len(s.Messages) != 1 {
		t.Errorf("meta %+v", s.Meta)
	}
	if _, err := kimi.Import(context.Background(), filepath.Join(d, "missing"), archive.ImportOptions{}); err == nil {
		t.Error("missing path accepted")
	}
}
