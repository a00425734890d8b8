package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommand(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	project := filepath.Join(base, "project")
	os.MkdirAll(filepath.Join(project, ".claude"), 0o700)
	os.MkdirAll(filepath.Join(home, ".claude-code"), 0o700)
	projectFile := filepath.Join(project, ".claude", "config.yaml")
	userFile := filepath.Join(home, ".claude-code", "config.yaml")
	os.WriteFile(userFile, []byte("context:\n  lock_timeout: 3s\n  auto_save: false\n"), 0o600)
	os.WriteFile(projectFile, []byte("# project settings\ncontext:\n  max_storage_mb: 300 # team limit\n  colour: blue\n"), 0o600)
	env := []string{"HOME=" + home}

	r := runBen10(t, nil, env, "context", "config", "--dir", project, "--json")
	if r.code != 0 {
		t.Fatalf("config: %d %s", r.code, r.stderr)
	}
	var out struct {
		Project  string `json:"project"`
		Settings []struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source struct {
				Layer string `json:"layer"`
				File  string `json:"file"`
				Line  int    `json:"line"`
			} `json:"source"`
		} `json:"settings"`
		Warnings []struct {
			File, Key, Message string
			Line               int
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, s := range out.Settings {
		b, _ := json.Marshal(s.Value)
		got[s.Key] = string(b) + " " + s.Source.Layer + " " + filepath.Base(filepath.Dir(s.Source.File)) + " " + itoa(s.Source.Line)
	}
	for k, want := range map[string]string{
		"max_storage_mb": "300 project .claude 3",
		"lock_timeout":   `"3s" user .claude-code 2`,
		"auto_save":      "false user .claude-code 3",
		"auto_restore":   "true default . 0",
	} {
		if got[k] != want {
			t.Errorf("%s: %s, want %s", k, got[k], want)
		}
	}
	if len(out.Warnings) != 1 || out.Warnings[0].Line != 4 || out.Warnings[0].Key != "context.colour" {
		t.Errorf("warnings %+v", out.Warnings)
	}
	if !strings.Contains(r.stderr, "config.yaml:4: unknown key context.colour") {
		t.Errorf("stderr lacks the warning: %q", r.stderr)
	}

	r = runBen10(t, nil, env, "context", "config", "--dir", project)
	if r.code != 0 || !strings.Contains(r.stdout, "max_storage_mb") || !strings.Contains(r.stdout, "project ("+projectFile+":3)") {
		t.Fatalf("human output: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// set keeps comments and reports the file.
	r = runBen10(t, nil, env, "context", "config", "set", "--dir", project, "max_storage_mb", "250")
	if r.code != 0 || !strings.Contains(r.stdout, "Set context.max_storage_mb = 250 in "+projectFile) {
		t.Fatalf("set: %d %s %s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(projectFile)
	if string(b) != "# project settings\ncontext:\n  max_storage_mb: 250 # team limit\n  colour: blue\n" {
		t.Fatalf("project file after set: %q", b)
	}
	// --user edits the user file; the project value still wins.
	r = runBen10(t, nil, env, "context", "config", "set", "--user", "--dir", project, "context.max_storage_mb", "50")
	if r.code != 0 || !strings.Contains(r.stdout, "effective value is 250") {
		t.Fatalf("set --user: %d %s %s", r.code, r.stdout, r.stderr)
	}
	b, _ = os.ReadFile(userFile)
	if !strings.Contains(string(b), "max_storage_mb: 50") || !strings.Contains(string(b), "lock_timeout: 3s") {
		t.Fatalf("user file: %q", b)
	}
	// Invalid values and unknown keys fail and change nothing.
	before, _ := os.ReadFile(projectFile)
	for _, args := range [][]string{
		{"default_restore_mode", "partial"},
		{"compaction_snapshots.compression_level", "30"},
		{"no_such_key", "1"},
	} {
		r = runBen10(t, nil, env, append([]string{"context", "config", "set", "--dir", project}, args...)...)
		if r.code == 0 {
			t.Errorf("set %v succeeded", args)
		}
		if args[0] == "default_restore_mode" && !strings.Contains(r.stderr, "allowed: full, summary, selective") {
			t.Errorf("error lacks the allowed values: %s", r.stderr)
		}
	}
	if after, _ := os.ReadFile(projectFile); string(after) != string(before) {
		t.Fatalf("refused set changed the file: %q", after)
	}
	// An invalid file is an error naming file and line.
	os.WriteFile(projectFile, []byte("context:\n  auto_save: maybe\n"), 0o600)
	r = runBen10(t, nil, env, "context", "config", "--dir", project)
	if r.code == 0 || !strings.Contains(r.stderr, projectFile+":2: context.auto_save: invalid value \"maybe\" (allowed: true, false)") {
		t.Fatalf("invalid file: %d %s", r.code, r.stderr)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
