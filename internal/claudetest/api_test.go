package claudetest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sse reads a server-sent event stream into event names and data.
func sse(t *testing.T, r io.Reader) ([]string, []map[string]any) {
	t.Helper()
	var names []string
	var datas []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
			if d["type"] != names[len(names)-1] {
				t.Errorf("event %s carries type %v", names[len(names)-1], d["type"])
			}
			datas = append(datas, d)
		}
	}
	return names, datas
}

func TestAPIStreams(t *testing.T) {
	api, err := NewAPI(func(r Request) Reply {
		return Reply{Blocks: []ReplyBlock{{Text: "Running it."}, {Tool: "Bash", Input: map[string]any{"command": "ls"}}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	resp := post(t, api.URL+"/v1/messages?beta=true", `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"Bash"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	names, datas := sse(t, resp.Body)
	want := []string{"message_start",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	if d := datas[2]["delta"].(map[string]any); d["type"] != "text_delta" || d["text"] != "Running it." {
		t.Errorf("text delta %v", d)
	}
	if cb := datas[4]["content_block"].(map[string]any); cb["type"] != "tool_use" || cb["name"] != "Bash" {
		t.Errorf("tool block %v", cb)
	}
	if d := datas[5]["delta"].(map[string]any); d["type"] != "input_json_delta" || d["partial_json"] != `{"command":"ls"}` {
		t.Errorf("tool input delta %v", d)
	}
	md := datas[7]
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" || md["usage"].(map[string]any)["output_tokens"] == nil {
		t.Errorf("message_delta %v", md)
	}
	reqs := api.Requests()
	if len(reqs) != 1 || reqs[0].Seq != 1 || reqs[0].Path != "/v1/messages" || !reqs[0].IsMain() || reqs[0].Messages.Model != "m" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestAPIOtherRequests(t *testing.T) {
	api, err := NewAPI(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	for _, tc := range []struct {
		path, body string
		want       map[string]any
	}{
		{"/v1/messages", `{"model":"haiku","messages":[{"role":"user","content":"title?"}]}`,
			map[string]any{"type": "message", "role": "assistant", "stop_reason": "end_turn"}},
		{"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"12345678"}]}`,
			nil},
		{"/api/oauth/whatever", `{}`, map[string]any{}},
	} {
		resp := post(t, api.URL+tc.path, tc.body)
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if strings.HasSuffix(tc.path, "/count_tokens") {
			if n, _ := got["input_tokens"].(float64); n <= 0 {
				t.Errorf("%s: %v, want input_tokens > 0", tc.path, got)
			}
			continue
		}
		for k, v := range tc.want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %s = %v, want %v (%v)", tc.path, k, got[k], v, got)
			}
		}
		if len(tc.want) == 0 && len(got) != 0 {
			t.Errorf("%s: %v, want {}", tc.path, got)
		}
	}
	if m := mustDecode(t, api, 0); m["model"] != "haiku" {
		t.Errorf("first request recorded as %v", m)
	}
	if n := len(api.Requests()); n != 3 {
		t.Errorf("%d requests recorded, want 3", n)
	}
	if n := len(api.MainRequests()); n != 0 {
		t.Errorf("%d main requests, want 0 (no tools offered)", n)
	}
}

func mustDecode(t *testing.T, api *API, i int) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(api.Requests()[i].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRequestHelpers(t *testing.T) {
	for _, tc := range []struct {
		name, body         string
		main, compaction   bool
		hookContext, texts string
	}{
		{"turn with hook context",
			`{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"text","text":"run it"}]},` +
				`{"role":"system","content":"Agents: x\n\nSessionStart hook additional context: # Ben10 context\n- ` + "`echo a`" + `"}]}`,
			true, false, "# Ben10 context\n- `echo a`", "run it|Agents: x\n\nSessionStart hook additional context: # Ben10 context\n- `echo a`"},
		{"tool result",
			`{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out-1"}]}]}`,
			true, false, "", "go|out-1"},
		{"compaction",
			`{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"Your task is to create a detailed summary of the conversation so far."}]}`,
			false, true, "", "Your task is to create a detailed summary of the conversation so far."},
		{"side request", `{"model":"haiku","messages":[{"role":"user","content":"title"}]}`, false, false, "", "title"},
	} {
		var r Request
		if err := json.Unmarshal([]byte(tc.body), &r.Messages); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.IsMain() != tc.main || r.IsCompaction() != tc.compaction {
			t.Errorf("%s: main %v compaction %v, want %v %v", tc.name, r.IsMain(), r.IsCompaction(), tc.main, tc.compaction)
		}
		if got := r.HookContext(); got != tc.hookContext {
			t.Errorf("%s: hook context %q, want %q", tc.name, got, tc.hookContext)
		}
		if got := strings.Join(r.Texts(), "|"); got != tc.texts {
			t.Errorf("%s: texts %q, want %q", tc.name, got, tc.texts)
		}
	}
}

func TestNewHome(t *testing.T) {
	h, err := NewHome(t.TempDir(), Options{Claude: "sh", APIURL: "http://127.0.0.1:1", Allow: []string{"Bash"}, Env: []string{"X=1"}})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HasCompletedOnboarding bool   `json:"hasCompletedOnboarding"`
		LastOnboardingVersion  string `json:"lastOnboardingVersion"`
		CustomAPIKeyResponses  struct {
			Approved []string `json:"approved"`
		} `json:"customApiKeyResponses"`
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	readJSON(t, filepath.Join(h.Dir, ".claude.json"), &cfg)
	if !cfg.HasCompletedOnboarding || cfg.LastOnboardingVersion == "" || !reflect.DeepEqual(cfg.CustomAPIKeyResponses.Approved, []string{APIKey[len(APIKey)-20:]}) ||
		!cfg.Projects[h.Project].HasTrustDialogAccepted {
		t.Errorf(".claude.json: %+v", cfg)
	}
	var settings struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	readJSON(t, h.SettingsPath(), &settings)
	if !reflect.DeepEqual(settings.Permissions.Allow, []string{"Bash"}) {
		t.Errorf("settings.json: %+v", settings)
	}
	env := strings.Join(h.Env, "\n")
	for _, want := range []string{"HOME=" + h.Dir, "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "ANTHROPIC_API_KEY=" + APIKey, "DISABLE_AUTOUPDATER=1", "X=1"} {
		if !strings.Contains(env, want+"\n") && !strings.HasSuffix(env, want) {
			t.Errorf("env lacks %s", want)
		}
	}
	if got, want := h.TranscriptPath("abc"), filepath.Join(h.Dir, ".claude", "projects"); !strings.HasPrefix(got, want) || strings.ContainsAny(filepath.Base(filepath.Dir(got)), "/._") {
		t.Errorf("transcript path %s", got)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTraceHooks runs the trace hooks' script as Claude Code would and
// reads the trace back.
func TestTraceHooks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the trace hook is a POSIX shell script")
	}
	h, err := NewHome(t.TempDir(), Options{Claude: "sh"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddTraceHooks(); err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, h.SettingsPath(), &settings)
	transcript := h.TranscriptPath("s1")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, []byte("{\"type\":\"user\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash"}`,
		`{"session_id":"s1","hook_event_name":"PreCompact","trigger":"manual"}`,
		`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
	} {
		var ev struct {
			Event string `json:"hook_event_name"`
		}
		_ = json.Unmarshal([]byte(in), &ev)
		entries := settings.Hooks[ev.Event]
		if len(entries) != 1 || len(entries[0].Hooks) != 1 {
			t.Fatalf("%s: hook entries %+v", ev.Event, entries)
		}
		cmd := exec.Command("sh", "-c", entries[0].Hooks[0].Command)
		cmd.Env = h.Env
		cmd.Stdin = strings.NewReader(in)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("%s hook: %v, output %q", ev.Event, err, out)
		}
	}
	calls, err := h.Trace()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SessionStart(startup)", "PostToolUse(Bash)", "PreCompact(manual)", "SessionEnd(prompt_input_exit)"}
	if got := Events(calls); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for _, c := range calls {
		if c.At.IsZero() || c.Field("session_id") != "s1" {
			t.Errorf("call %+v", c)
		}
	}
	copies, err := h.PreCompactCopies()
	if err != nil {
		t.Fatal(err)
	}
	if got := copies["s1.jsonl"]; len(got) != 1 {
		t.Fatalf("PreCompact copies %v", copies)
	} else if b, _ := os.ReadFile(got[0]); string(b) != "{\"type\":\"user\"}\n" {
		t.Errorf("PreCompact copy %q", b)
	}
}
