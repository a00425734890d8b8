package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	claudeFixture = "../../transcript/claude/testdata/11111111-2222-4333-8444-555555555555.jsonl"
	codexFixture  = "../../transcript/codex/testdata/basic.jsonl"
	geminiFixture = "../../transcript/gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl"
	kimiFixture   = "../../transcript/kimi/testdata/share/sessions/2b8c70fb72d8a087e5dee109778f74cf/0b9c5d2e-1111-4a2b-9c3d-000000000001"
)

// runIn runs the real binary in dir with HOME=home.
func runIn(t *testing.T, dir, home string, args ...string) result {
	t.Helper()
	return runBen10In(t, dir, nil, []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude")}, args...)
}

func absFixture(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type viewJSON struct {
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Messages int    `json:"messages"`
	Tools    int    `json:"tools"`
}

func TestViewCommandTranscripts(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		name, path string
		harness    string
	}{
		{"claude", claudeFixture, "claude"},
		{"codex", codexFixture, "codex"},
		{"gemini", geminiFixture, "gemini"},
		{"kimi", kimiFixture, "kimi"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".html")
			r := runIn(t, dir, home, "view", "--json", "-o", out, absFixture(t, c.path))
			if r.code != 0 {
				t.Fatalf("view: exit %d: %s", r.code, r.stderr)
			}
			var v viewJSON
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("view --json: %v: %q", err, r.stdout)
			}
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if v.Path != out || v.Bytes != fi.Size() || v.Messages == 0 || fi.Mode().Perm() != 0o600 {
				t.Errorf("view wrote %+v; file %d bytes mode %04o", v, fi.Size(), fi.Mode().Perm())
			}
			page, _ := os.ReadFile(out)
			if !bytes.Contains(page, []byte(`<span class="tag harness">`+c.harness+`</span>`)) || !bytes.Contains(page, []byte(`id="ben10-data"`)) {
				t.Errorf("the page does not show a %s session", c.harness)
			}
		})
	}
}

func TestViewCommandRedactsTranscripts(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	secret := "ghp_" + "Zq8Rk2Lm4Np6Tv0Xw3Yb5Cd7Fg9Hj1Ks4EaU"
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u1","sessionId":"5ec7e700-0000-4000-8000-000000000001","timestamp":"2026-01-01T10:00:00Z","cwd":"/tmp","message":{"role":"user","content":"my token is ` + secret + `"}}` + "\n"
	tr := filepath.Join(dir, "5ec7e700-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(tr, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		leak  bool
	}{{nil, false}, {[]string{"--no-redact"}, true}} {
		out := filepath.Join(dir, "out.html")
		r := runIn(t, dir, home, append(append([]string{"view", "-q", "-o", out}, c.flags...), tr)...)
		if r.code != 0 {
			t.Fatalf("view %v: exit %d: %s", c.flags, r.code, r.stderr)
		}
		page, _ := os.ReadFile(out)
		if got := bytes.Contains(page, []byte(secret)); got != c.leak {
			t.Errorf("view %v: secret in the page = %v, want %v", c.flags, got, c.leak)
		}
	}
}

func TestViewCommandProject(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	for _, tr := range []string{claudeFixture, codexFixture} {
		if r := runIn(t, dir, home, "context", "save", "-q", "--transcript", absFixture(t, tr)); r.code != 0 {
			t.Fatalf("save %s: exit %d: %s", tr, r.code, r.stderr)
		}
	}
	if r := runIn(t, dir, home, "context", "compaction", "snapshot", "-q", "--transcript", absFixture(t, claudeFixture)); r.code != 0 {
		t.Fatalf("snapshot: exit %d: %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		ref, harness string
		code         int
		stderr       string
	}{
		{"", "codex", 0, ""},
		{"current", "codex", 0, ""},
		{"11111111", "claude", 0, ""}, // the session (its snapshot, the newest of it)
		{"019c0000", "codex", 0, ""},
		{"checkpoint/7", "", 1, "no checkpoint \"7\""},
		{"no-such-thing", "", 1, "not a file"},
	} {
		args := []string{"view", "--json", "-o", "out.html"}
		if c.ref != "" {
			args = append(args, c.ref)
		}
		r := runIn(t, dir, home, args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("view %q: exit %d, stderr %q; want %d and %q", c.ref, r.code, r.stderr, c.code, c.stderr)
			continue
		}
		if c.code == 0 {
			page, _ := os.ReadFile(filepath.Join(dir, "out.html"))
			if !bytes.Contains(page, []byte(`<span class="tag harness">`+c.harness+`</span>`)) {
				t.Errorf("view %q: the page is not the %s session", c.ref, c.harness)
			}
		}
	}
}

// TestViewCommandOutSymlink: --out never writes through a symlink.
func TestViewCommandOutSymlink(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "page.html")
	if err := os.Symlink(victim, out); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, dir, home, "view", "-q", "-o", out, absFixture(t, claudeFixture)); r.code != 0 {
		t.Fatalf("view: exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the symlink's target was overwritten")
	}
	if fi, err := os.Lstat(out); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s is not a regular file after view: %v", out, err)
	}
}

func TestServeCommand(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	if r := runIn(t, dir, home, "context", "save", "-q", "--transcript", absFixture(t, claudeFixture)); r.code != 0 {
		t.Fatalf("save: exit %d: %s", r.code, r.stderr)
	}
	if r := runIn(t, dir, home, "serve", "--addr", "0.0.0.0:0"); r.code == 0 || !strings.Contains(r.stderr, "--allow-remote") {
		t.Errorf("serve on 0.0.0.0 without --allow-remote: exit %d, %q", r.code, r.stderr)
	}

	cmd := exec.Command(ben10Bin, "serve", "--json", "--addr", "127.0.0.1:0", "--project", dir)
	cmd.Env = append(os.Environ(), "HOME="+home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var info struct {
		URL, LoginURL, TokenFile string
		Projects                 int
	}
	dec := json.NewDecoder(bufio.NewReader(stdout))
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("serve --json: %v (stderr %s)", err, stderr.String())
	}
	info.URL, _ = raw["url"].(string)
	info.LoginURL, _ = raw["login_url"].(string)
	info.TokenFile, _ = raw["token_file"].(string)
	if n, _ := raw["projects"].(float64); n != 1 || info.TokenFile != filepath.Join(home, ".claude-code", "serve-token") {
		t.Fatalf("serve said %v", raw)
	}
	tok, err := os.ReadFile(info.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(info.TokenFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o", fi.Mode().Perm())
	}
	if !strings.HasSuffix(info.LoginURL, "/login?token="+strings.TrimSpace(string(tok))) {
		t.Errorf("login link %q does not carry the token", info.LoginURL)
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", strings.TrimSuffix(info.URL, "/")+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/api/checkpoints", ""); code != 401 {
		t.Errorf("without the token: %d, want 401", code)
	}
	code, body := get("/api/checkpoints", strings.TrimSpace(string(tok)))
	if code != 200 || !strings.Contains(body, `"session_id": "11111111-2222-4333-8444-555555555555"`) {
		t.Errorf("with the token: %d %.300s", code, body)
	}
	if strings.Contains(stderr.String(), strings.TrimSpace(string(tok))) {
		t.Errorf("the token reached the request log")
	}
}
