package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWatchInstallUninstall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := cleanEnv(home)
	for _, c := range []struct{ platform, file string }{{"linux", "ben10-watch.service"}, {"darwin", "dev.ben10.watch.plist"}} {
		dir := t.TempDir()
		r := runBen10(t, nil, env, "watch", "install", "--platform", c.platform, "--unit-dir", dir, "--binary", "/opt/ben 10/bin/ben10")
		if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(dir, c.file)) {
			t.Fatalf("%s install: %d %s %s", c.platform, r.code, r.stdout, r.stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		// The same bytes as the package's golden file, home aside.
		want, err := os.ReadFile(filepath.Join("..", "..", "watch", "testdata", c.file+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.ReplaceAll(string(got), home, "/home/u") != string(want) {
			t.Errorf("%s unit:\n%s", c.platform, got)
		}
		hint := map[string]string{"linux": "systemctl --user enable --now ben10-watch.service", "darwin": "launchctl load -w"}[c.platform]
		if !strings.Contains(r.stdout, hint) {
			t.Errorf("%s: no enable hint in %q", c.platform, r.stdout)
		}
		r = runBen10(t, nil, env, "watch", "uninstall", "--platform", c.platform, "--unit-dir", dir)
		if _, err := os.Stat(filepath.Join(dir, c.file)); r.code != 0 || err == nil || !strings.Contains(r.stdout, "removed") {
			t.Errorf("%s uninstall: %d %q", c.platform, r.code, r.stdout)
		}
	}
	// The default binary is this executable.
	dir := t.TempDir()
	r := runBen10(t, nil, env, "watch", "install", "--platform", "linux", "--unit-dir", dir, "--json")
	var out struct{ Binary, Path string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || filepath.Base(out.Binary) != "ben10" {
		t.Errorf("default binary: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := runBen10(t, nil, env, "watch", "install", "--platform", "plan9", "--unit-dir", dir); r.code == 0 {
		t.Error("plan9 accepted")
	}
}

func TestStatuslineCommand(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	env := cleanEnv(home)
	tr := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(tr, []byte(`{"type":"assistant","sessionId":"s1","message":{"model":"claude-opus-4-6","usage":{"input_tokens":10,"cache_creation_input_tokens":990,"cache_read_input_tokens":123000,"output_tokens":5}}}`+"\n"), 0o600)
	in := fmt.Sprintf(`{"hook_event_name":"Status","session_id":"s1","transcript_path":%q,"cwd":%q,"model":{"id":"claude-opus-4-6","display_name":"Opus"},"workspace":{"current_dir":%q,"project_dir":%q},"version":"2.1.39"}`, tr, project, project, project)
	r := runBen10(t, []byte(in), env, "statusline")
	if r.code != 0 || r.stdout != "ctx 62%\n" || r.stderr != "" {
		t.Errorf("statusline: %d %q %q", r.code, r.stdout, r.stderr)
	}
	idx := filepath.Join(project, ".claude", "context", "compaction-snapshots", "index.json")
	os.MkdirAll(filepath.Dir(idx), 0o700)
	created := time.Now().Add(-7 * time.Minute).UTC().Format(time.RFC3339)
	os.WriteFile(idx, []byte(`{"version":"1","snapshots":[{"id":"pre-compact-x-s1","session_id":"s1","created_at":"`+created+`"}]}`), 0o600)
	pend := filepath.Join(project, ".claude", "context", "pending", "snapshot-s1-1-2.pending")
	os.MkdirAll(filepath.Dir(pend), 0o700)
	os.WriteFile(pend, []byte("{}"), 0o600)
	r = runBen10(t, []byte(in), env, "statusline")
	if r.code != 0 || r.stdout != "ctx 62% · snapshot saved 7 min ago · 1 pending\n" {
		t.Errorf("statusline with snapshot: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// Never fails loudly.
	for _, bad := range []string{"", "not json", `{"session_id":"s1","transcript_path":"/nope","cwd":"/nope"}`} {
		r = runBen10(t, []byte(bad), env, "statusline")
		if r.code != 0 || r.stderr != "" || r.stdout != "ctx –\n" {
			t.Errorf("%q: %d %q %q", bad, r.code, r.stdout, r.stderr)
		}
	}
}

func TestWatchOnceDryRunAndStatus(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	project, _ = filepath.EvalSymlinks(project)
	env := cleanEnv(home)
	sessions := newFakeSessions(t, home, project, 2)
	for _, s := range sessions {
		s.turn(t, exportPercent[s.llm]+1)
	}
	// An invalid entry disables only codex, with a clear message.
	os.MkdirAll(filepath.Join(home, ".claude-code"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude-code", "watch.yaml"), []byte("llms:\n  codex:\n    thresholds: {export_percent: 95}\n"), 0o600)
	r := runBen10(t, nil, env, "watch", "--once", "--dry-run", "--llm", "claude,codex,gemini", "--json")
	if r.code != 0 {
		t.Fatalf("--once --dry-run: %s", r.stderr)
	}
	if !strings.Contains(r.stderr, "watch.yaml:3: llms.codex.thresholds: export_percent (95) must be below compaction_starts_at (90)") ||
		!strings.Contains(r.stderr, "(codex disabled until fixed)") {
		t.Errorf("config message: %s", r.stderr)
	}
	var out struct {
		Events []struct{ LLM, Session, Action string }
	}
	json.Unmarshal([]byte(r.stdout), &out)
	would := map[string]string{}
	for _, e := range out.Events {
		if strings.HasPrefix(e.Action, "would-") {
			would[e.LLM] = e.Action
		}
	}
	if len(would) != 2 || would["claude"] != "would-snapshot" || would["gemini"] != "would-snapshot" {
		t.Errorf("dry run: %v\n%s", would, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude-code", "watch-state.json")); err == nil {
		t.Error("dry run wrote the state file")
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "context")); err == nil {
		t.Error("dry run wrote into the project store")
	}
	// --once for real: kimi only.
	r = runBen10(t, nil, env, "watch", "--once", "--llm", "kimi")
	if r.code != 0 || !strings.Contains(r.stdout, "snapshot") || !strings.Contains(r.stdout, sessions[3].id) {
		t.Errorf("--once --llm kimi: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, env, "watch", "--status")
	if r.code != 0 || !strings.Contains(r.stdout, "exports 1, snapshots 1") || !strings.Contains(r.stdout, "not selected by --llm") {
		t.Errorf("--status: %s%s", r.stdout, r.stderr)
	}
	if r := runBen10(t, nil, env, "watch", "--llm", "qwen", "--once"); r.code == 0 || !strings.Contains(r.stderr, "unknown harness") {
		t.Errorf("--llm qwen: %d %s", r.code, r.stderr)
	}
}
