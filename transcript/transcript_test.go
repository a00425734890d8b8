package transcript_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

func write(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	claudeLine = `{"type":"user","sessionId":"s1","uuid":"u1","message":{"role":"user","content":"hi"}}`
	codexLine  = `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/p"}}`
	geminiMeta = `{"sessionId":"g1","projectHash":"ab","startTime":"2026-01-01T00:00:00Z"}`
	kimiLine   = `{"role":"_system_prompt","content":"sys"}`
)

func TestDetect(t *testing.T) {
	d := t.TempDir()
	for _, tc := range []struct {
		path, data string
		want       archive.Harness
	}{
		{"a/claude.jsonl", claudeLine + "\n", archive.HarnessClaude},
		{"a/codex.jsonl", codexLine + "\n", archive.HarnessCodex},
		{"a/g.jsonl", geminiMeta + "\n", archive.HarnessGemini},
		{"a/legacy.json", `{"sessionId":"g","projectHash":"x","messages":[]}`, archive.HarnessGemini},
		{"a/context.jsonl", kimiLine + "\n", archive.HarnessKimi},
		{"a/wire.jsonl", `{"type":"metadata","protocol_version":"1.10"}` + "\n", archive.HarnessKimi},
		{"b/blank-first.jsonl", "\n\n" + codexLine + "\n", archive.HarnessCodex},
		{"c/.codex/sessions/2026/01/01/rollout-x.jsonl", "garbage\n", archive.HarnessCodex},
		{"c/.gemini/tmp/p/chats/session-x.jsonl", "", archive.HarnessGemini},
		{"c/.kimi/sessions/h/u/context.jsonl", "", archive.HarnessKimi},
		{"c/.claude/projects/p/x.jsonl", "", archive.HarnessClaude},
		// A huge first line cut by the sniff limit is still recognized.
		{"d/huge.jsonl", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"base":"` + strings.Repeat("x", 2<<20) + `"}}` + "\n", archive.HarnessCodex},
	} {
		p := write(t, filepath.Join(d, tc.path), tc.data)
		got, err := transcript.Detect(p)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.path, got, err, tc.want)
		}
	}
	p := write(t, filepath.Join(d, "x/unknown.txt"), "hello\n")
	if _, err := transcript.Detect(p); !errors.Is(err, transcript.ErrUnknownHarness) {
		t.Errorf("unknown: %v", err)
	}
	kd := filepath.Join(d, "kimisess")
	write(t, filepath.Join(kd, "context.jsonl"), kimiLine+"\n")
	if h, err := transcript.Detect(kd); err != nil || h != archive.HarnessKimi {
		t.Errorf("kimi dir: %q %v", h, err)
	}
	if _, err := transcript.Detect(filepath.Join(d, "missing")); err == nil {
		t.Error("missing file detected")
	}
}

func TestImportDispatch(t *testing.T) {
	d := t.TempDir()
	p := write(t, filepath.Join(d, "rollout.jsonl"), codexLine+"\n")
	s, err := transcript.Import(context.Background(), p, "", archive.ImportOptions{})
	if err != nil || s.Meta.Harness != archive.HarnessCodex || s.Meta.SessionID != "c1" {
		t.Fatalf("codex: %v %+v", err, s)
	}
	g := write(t, filepath.Join(d, "g.jsonl"), geminiMeta+"\n")
	if s, err := transcript.Import(context.Background(), g, archive.HarnessGemini, archive.ImportOptions{}); err != nil || s.Meta.SessionID != "g1" {
		t.Fatalf("gemini: %v", err)
	}
	k := write(t, filepath.Join(d, "ks", "context.jsonl"), kimiLine+"\n")
	if s, err := transcript.Import(context.Background(), k, "", archive.ImportOptions{}); err != nil || s.Meta.Harness != archive.HarnessKimi {
		t.Fatalf("kimi: %v", err)
	}
	if _, err := transcript.Import(context.Background(), p, "vim", archive.ImportOptions{}); !errors.Is(err, transcript.ErrBadHarness) {
		t.Errorf("bad harness: %v", err)
	}
	if h, err := transcript.ParseHarness("Claude-Code"); err != nil || h != archive.HarnessClaude {
		t.Errorf("parse: %q %v", h, err)
	}
	if _, err := transcript.ParseHarness("emacs"); !errors.Is(err, transcript.ErrBadHarness) {
		t.Errorf("parse bad: %v", err)
	}
}

func TestContextUsage(t *testing.T) {
	d := t.TempDir()
	pad := strings.Repeat(`{"type":"progress","data":"`+strings.Repeat("p", 1000)+`"}`+"\n", 600) // > tail start
	for _, tc := range []struct {
		name         string
		h            archive.Harness
		files        map[string]string
		used, window int64
		err          error
	}{
		{"claude", archive.HarnessClaude, map[string]string{"c.jsonl": `{"type":"assistant","message":{"model":"claude-opus-4","usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":5}}}` + "\n" +
			pad + `{"type":"assistant","isSidechain":true,"message":{"usage":{"input_tokens":99999}}}` + "\n"}, 1110, 200000, nil},
		{"claude-compacted", archive.HarnessClaude, map[string]string{"c.jsonl": `{"type":"assistant","message":{"usage":{"input_tokens":150000}}}` + "\n" + `{"type":"system","subtype":"compact_boundary"}` + "\n"}, 0, 200000, nil},
		{"claude-none", archive.HarnessClaude, map[string]string{"c.jsonl": claudeLine + "\n"}, 0, 0, transcript.ErrNoUsage},
		{"codex", archive.HarnessCodex, map[string]string{"r.jsonl": `{"type":"event_msg","payload":{"type":"task_started","model_context_window":258400}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":5000},"model_context_window":null}}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":null}}` + "\n"}, 5000, 258400, nil},
		{"codex-model-table", archive.HarnessCodex, map[string]string{"r.jsonl": `{"type":"turn_context","payload":{"model":"gpt-4o"}}` + "\n" +
			`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":7000}}}}` + "\n"}, 7000, 128000, nil},
		{"gemini-jsonl", archive.HarnessGemini, map[string]string{"s.jsonl": geminiMeta + "\n" + `{"id":"a","type":"gemini","model":"gemini-1.5-pro","tokens":{"input":300,"output":20}}` + "\n" + `{"$set":{"lastUpdated":"x"}}` + "\n"}, 320, 2097152, nil},
		{"gemini-compressed", archive.HarnessGemini, map[string]string{"s.jsonl": `{"id":"a","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":600000,"output":20}}` + "\n" + `{"$set":{"messages":[{"id":"s","type":"user","content":"<state_snapshot>"}]}}` + "\n"}, 0, 1048576, nil},
		{"codex-compacted", archive.HarnessCodex, map[string]string{"r.jsonl": `{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":200000},"model_context_window":258400}}}` + "\n" + `{"type":"compacted","payload":{"message":"s"}}` + "\n"}, 0, 258400, nil},
		{"gemini-legacy", archive.HarnessGemini, map[string]string{"s.json": `{"sessionId":"g","messages":[{"type":"gemini","content":"say \"tokens\": no","tokens":{"input":1,"output":1},"model":"m"},{"type":"gemini","tokens": {"input": 40, "output": 2}, "model":"gemini-2.5-pro"}]}`}, 42, 1048576, nil},
		{"kimi-wire", archive.HarnessKimi, map[string]string{"context.jsonl": `{"role":"_usage","token_count":5}` + "\n",
			"wire.jsonl": `{"timestamp":1,"message":{"type":"StatusUpdate","payload":{"context_tokens":900,"max_context_tokens":131072}}}` + "\n" + `{"timestamp":2,"message":{"type":"TurnEnd","payload":{}}}` + "\n"}, 900, 131072, nil},
		{"kimi-context", archive.HarnessKimi, map[string]string{"context.jsonl": `{"role":"_usage","token_count":5}` + "\n" + `{"role":"user","content":"x"}` + "\n"}, 5, 262144, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(d, tc.name)
			var first string
			for name, data := range tc.files {
				p := write(t, filepath.Join(dir, name), data)
				if first == "" || name == "context.jsonl" {
					first = p
				}
			}
			used, window, err := transcript.ContextUsage(first, tc.h)
			if !errors.Is(err, tc.err) || used != tc.used || window != tc.window {
				t.Errorf("got %d/%d %v, want %d/%d %v", used, window, err, tc.used, tc.window, tc.err)
			}
		})
	}
}

func TestWindows(t *testing.T) {
	if transcript.ClaudeWindow("claude-sonnet-4-5[1m]") != 1_000_000 || transcript.ClaudeWindow("claude-opus-4-5") != 200_000 {
		t.Error("claude windows")
	}
	if transcript.CodexWindow("o3") != 200_000 || transcript.CodexWindow("gpt-4.1") != 1_047_576 || transcript.CodexWindow("x") != 258_400 {
		t.Error("codex windows")
	}
}

func TestImportClaude(t *testing.T) {
	p := filepath.Join("claude", "testdata", "v1.jsonl")
	if h, err := transcript.Detect(p); err != nil || h != archive.HarnessClaude {
		t.Fatalf("detect: %q %v", h, err)
	}
	s, err := transcript.Import(context.Background(), p, "", archive.ImportOptions{})
	if err != nil || s.Meta.Harness != archive.HarnessClaude || len(s.Messages) == 0 {
		t.Fatalf("import: %v", err)
	}
}

// Dirs honours each assistant's own directory variable and falls back on
// the home directory.
func TestDirs(t *testing.T) {
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "KIMI_SHARE_DIR"} {
		t.Setenv(k, "")
	}
	home := "/home/u"
	cases := []struct {
		h        archive.Harness
		env, val string
		want     []string
	}{
		{archive.HarnessClaude, "", "", []string{"/home/u/.claude"}},
		{archive.HarnessCodex, "", "", []string{"/home/u/.codex"}},
		{archive.HarnessGemini, "", "", []string{"/home/u/.gemini"}},
		{archive.HarnessKimi, "", "", []string{"/home/u/.kimi", "/home/u/.local/share/kimi"}},
		{archive.HarnessClaude, "CLAUDE_CONFIG_DIR", "/alt/c", []string{"/alt/c"}},
		{archive.HarnessCodex, "CODEX_HOME", "/alt/x", []string{"/alt/x"}},
		{archive.HarnessGemini, "GEMINI_CLI_HOME", "/alt/g", []string{"/alt/g/.gemini"}},
		{archive.HarnessKimi, "KIMI_SHARE_DIR", "/alt/k", []string{"/alt/k"}},
		{"emacs", "", "", nil},
	}
	for _, c := range cases {
		if c.env != "" {
			t.Setenv(c.env, c.val)
		}
		var got []string
		for _, d := range transcript.Dirs(home, c.h) {
			got = append(got, filepath.ToSlash(d))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s=%q: %v, want %v", c.h, c.env, c.val, got, c.want)
		}
		if c.env != "" {
			t.Setenv(c.env, "")
		}
	}
}
