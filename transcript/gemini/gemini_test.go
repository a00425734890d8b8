package gemini_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript/gemini"
	"github.com/ben10ctx/ben10/transcript/internal/imptest"
)

const (
	jsonlName = "session-2026-04-23T12-00-5e550001.jsonl"
	root      = "/home/dev/proj"
)

func kinds(s *archive.State) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.ID+":"+m.Role+"/"+m.Kind)
	}
	return out
}

func TestJSONL(t *testing.T) {
	p := filepath.Join("testdata", jsonlName)
	s, err := gemini.Import(context.Background(), p, archive.ImportOptions{NoSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	imptest.CheckRaw(t, s, jsonlName, p)
	imptest.CheckRefs(t, s)
	want := []string{"u1:user/prompt", "g1#thoughts:assistant/thinking", "g1:assistant/text", "i1:system/info",
		"s1:user/summary", "s2:assistant/text", "g2:assistant/text", "u3:user/prompt", "g4:assistant/text"}
	if got := kinds(s); !reflect.DeepEqual(got, want) {
		t.Errorf("messages\n got %v\nwant %v", got, want)
	}
	if len(s.Compactions) != 1 || s.Compactions[0].MessageIndex != 4 || !strings.Contains(s.Compactions[0].Summary, "<overall_goal>verbose flag") {
		t.Errorf("compactions %+v", s.Compactions)
	}
	m := s.Meta
	if m.SessionID != "5e55-0001" || m.Title != "Verbose flag" || m.Model != "gemini-2.5-flash" || m.TotalTokens != 4690 ||
		m.ContextTokens != 540 || m.ContextWindow != 1048576 || m.UpdatedAt.Format("15:04:05") != "12:00:13" {
		t.Errorf("meta %+v", m)
	}
	if m.DirectoryHash != hash(root) || m.DirectoryPath != "" {
		t.Errorf("directory %q %q", m.DirectoryHash, m.DirectoryPath)
	}
	if len(s.Tools) != 4 {
		t.Fatalf("tools %+v", s.Tools)
	}
	if sh := s.Tools[1]; sh.Command != "go build ./..." || sh.Success || sh.Output != "exit status 1" {
		t.Errorf("shell %+v", sh)
	}
	if ed := s.Tools[3]; ed.Output != "[cancelled]" || ed.Success || !reflect.DeepEqual(ed.RelatedFiles, []string{root + "/main.go"}) {
		t.Errorf("cancelled edit %+v", ed)
	}
	if got := s.Messages[2].ToolCallIDs; !reflect.DeepEqual(got, []string{"rf1", "sh1", "td1", "ed1"}) {
		t.Errorf("tool ids %v", got)
	}
	if len(s.Tasks.Completed) != 1 || len(s.Tasks.Active) != 1 || len(s.Tasks.Pending) != 1 {
		t.Errorf("tasks %+v", s.Tasks)
	}
	r := s.Import
	if r.Lines != 15 || r.Skipped != 0 || r.UnknownTypes["record{weird}"] != 1 {
		t.Errorf("report %+v", r)
	}
}

func TestProjectDirOptionMatchesHash(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", jsonlName))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := gemini.ImportBytes("s.jsonl", data, archive.ImportOptions{ProjectDir: root})
	if s.Meta.DirectoryPath != root {
		t.Errorf("directory %q", s.Meta.DirectoryPath)
	}
	if s.Tools[3].RelatedFiles[0] != "main.go" || s.Files[0].Path != "main.go" || s.Files[0].Reads != 1 || s.Files[0].Edits != 1 {
		t.Errorf("files %+v / %+v", s.Tools[3].RelatedFiles, s.Files)
	}
	s, _ = gemini.ImportBytes("s.jsonl", data, archive.ImportOptions{ProjectDir: "/elsewhere"})
	if s.Meta.DirectoryPath != "" {
		t.Errorf("non-matching ProjectDir taken: %q", s.Meta.DirectoryPath)
	}
}

func TestLegacy(t *testing.T) {
	p := filepath.Join("testdata", "session-legacy.json")
	s, err := gemini.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	imptest.CheckRaw(t, s, "session-legacy.json", p)
	want := []string{"u1:user/prompt", "g1#thoughts:assistant/thinking", "g1:assistant/text", "g2:assistant/text"}
	if got := kinds(s); !reflect.DeepEqual(got, want) {
		t.Errorf("messages %v", got)
	}
	if s.Meta.SessionID != "1e9a-0002" || len(s.Tools) != 4 || s.Meta.TotalTokens != 4150 || s.Import.Lines != 1 {
		t.Errorf("meta %+v tools %d report %+v", s.Meta, len(s.Tools), s.Import)
	}
	// A legacy file cut while being rewritten keeps its raw bytes.
	data, _ := os.ReadFile(p)
	cut := data[:len(data)/2]
	s, err = gemini.ImportBytes("session-x.json", cut, archive.ImportOptions{})
	if err != nil || !s.Import.Truncated || s.Import.Skipped != 1 || string(s.Raw[0].Data) != string(cut) {
		t.Errorf("cut legacy: %v %+v", err, s.Import)
	}
}

func hash(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLayouts resolves the project directory from each on-disk layout
// and reads subagent sessions.
func TestLayouts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, g string) string // returns the project folder
	}{
		{"project_root", func(t *testing.T, g string) string {
			d := filepath.Join(g, "tmp", "proj")
			copyFile(t, filepath.Join("testdata", "sub.jsonl"), filepath.Join(d, ".project_root+"))
			os.WriteFile(filepath.Join(d, ".project_root"), []byte(root+"\n"), 0o600)
			return d
		}},
		{"projects.json slug", func(t *testing.T, g string) string {
			os.MkdirAll(g, 0o700)
			os.WriteFile(filepath.Join(g, "projects.json"), []byte(`{"projects":{"/other":"proj","`+root+`":"proj-1"}}`), 0o600)
			return filepath.Join(g, "tmp", "proj-1")
		}},
		{"sha256 folder", func(t *testing.T, g string) string {
			os.MkdirAll(g, 0o700)
			os.WriteFile(filepath.Join(g, "projects.json"), []byte(`{"projects":{"`+root+`":"proj"}}`), 0o600)
			return filepath.Join(g, "tmp", hash(root))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := filepath.Join(t.TempDir(), ".gemini")
			pdir := tc.setup(t, g)
			sess := filepath.Join(pdir, "chats", jsonlName)
			copyFile(t, filepath.Join("testdata", jsonlName), sess)
			copyFile(t, filepath.Join("testdata", "sub.jsonl"), filepath.Join(pdir, "chats", "5e55-0001", "sub-1.jsonl"))
			s, err := gemini.Import(context.Background(), sess, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Meta.DirectoryPath != root {
				t.Errorf("directory %q", s.Meta.DirectoryPath)
			}
			if len(s.Raw) != 2 || s.Raw[1].Name != "5e55-0001/sub-1.jsonl" || !reflect.DeepEqual(s.Meta.SubagentIDs, []string{"sub-1"}) {
				t.Fatalf("raw %d subagents %v", len(s.Raw), s.Meta.SubagentIDs)
			}
			side := 0
			for _, m := range s.Messages {
				if m.Sidechain {
					side++
					if m.AgentID != "sub-1" {
						t.Errorf("agent %q", m.AgentID)
					}
				}
			}
			if side != 2 || s.Meta.Model != "gemini-2.5-flash" {
				t.Errorf("sidechain messages %d model %s", side, s.Meta.Model)
			}
			if s.Files[0].Path != "main.go" || s.Files[0].Reads != 2 {
				t.Errorf("files %+v", s.Files)
			}
		})
	}
}

func TestHostileLines(t *testing.T) {
	in := "{\"sessionId\":\"h\",\"projectHash\":\"x\"}\r\n\n" +
		"{\"id\":\"a\",\"timestamp\":\"bad\",\"type\":\"user\",\"content\":\"caf\xe9\"}\n" +
		"not json\n" +
		"{\"id\":\"b\",\"type\":\"alien\",\"content\":\"?\"}\n" +
		"[1,2]\n" +
		"{\"$rewindTo\":\"zzz\"}\n" +
		"{\"id\":\"c\",\"type\":\"gemini\",\"content\":\"cut"
	s, err := gemini.ImportBytes("h.jsonl", []byte(in), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Import
	if r.Lines != 7 || r.Skipped != 3 || !r.Truncated || r.InvalidUTF8 != 1 || r.Partial != 1 || r.UnknownTypes["message/alien"] != 1 {
		t.Errorf("report %+v", r)
	}
	if len(s.Messages) != 1 || s.Messages[0].Text != "caf\uFFFD" {
		t.Errorf("messages %+v", s.Messages)
	}
}

func TestCorpus(t *testing.T) {
	dir := testcorpus.Dir(t, "gemini")
	for _, tc := range []struct {
		file           string
		minMsgs, tools int
	}{
		{"vct-gemini-legacy.json", 4, 7},
		{"vct-gemini-session.jsonl", 10, 12},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if _, err := os.Stat(p); err != nil {
				t.Skip(err)
			}
			s, err := gemini.Import(context.Background(), p, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			imptest.CheckRaw(t, s, tc.file, p)
			imptest.CheckRefs(t, s)
			if len(s.Messages) < tc.minMsgs || len(s.Tools) != tc.tools || s.Meta.SessionID == "" || s.Meta.Model == "" || s.Meta.TotalTokens == 0 {
				t.Errorf("meta %+v", s.Meta)
			}
			if s.Import.Skipped != 0 || s.Import.Partial != 0 || len(s.Import.UnknownTypes) != 0 {
				t.Errorf("report %+v", s.Import)
			}
		})
	}
}

// TestRewindKeepsSubagents: a $rewindTo drops the main conversation from
// the named message on, keeps the subagents' messages read so far, and a
// message upserted afterwards is appended again.
func TestRewindKeepsSubagents(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chats")
	if err := os.MkdirAll(filepath.Join(dir, "s1"), 0o700); err != nil {
		t.Fatal(err)
	}
	main := `{"sessionId":"s1","projectHash":"x"}` + "\n" +
		`{"id":"a","type":"user","content":"first"}` + "\n" +
		`{"id":"b","type":"gemini","content":"second"}` + "\n" +
		`{"id":"c","type":"user","content":"third"}` + "\n"
	sub := `{"id":"x","type":"user","content":"sub task"}` + "\n" +
		`{"$rewindTo":"b"}` + "\n" +
		`{"id":"y","type":"gemini","content":"sub answer"}` + "\n"
	p := filepath.Join(dir, "session-x.jsonl")
	if err := os.WriteFile(p, []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s1", "sub.jsonl"), []byte(sub), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := gemini.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Messages {
		got = append(got, m.Text)
	}
	if want := []string{"first", "sub task", "sub answer"}; !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
}
