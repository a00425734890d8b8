package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// APIKey is the key the harness gives Claude Code. The mock accepts any.
const APIKey = "sk-ant-api03-ben10-e2e-mock-key-0000000000000000000000000000000000000000-AAAAAAAA"

// Home is a temporary Claude Code installation: a HOME with the files
// that let the CLI run unattended, a project directory it trusts, and the
// environment that points it at a mock API.
type Home struct {
	// Dir is HOME; Project the trusted project directory (symlinks
	// resolved), where the CLI runs.
	Dir, Project string
	// Claude is the path of the claude executable.
	Claude string
	// Env is the environment for claude and for ben10 commands.
	Env []string
}

// Options configure NewHome.
type Options struct {
	// Claude is the claude executable (default: "claude" on PATH).
	Claude string
	// APIURL is the mock's base URL (API.URL).
	APIURL string
	// Allow is settings.json's permissions.allow, e.g. "Bash".
	Allow []string
	// Env is added to the environment (KEY=VALUE).
	Env []string
}

// NewHome lays out a HOME under dir: ~/.claude.json (onboarding done,
// the API key approved, the project trusted), ~/.claude/settings.json
// (permissions.allow) and a project directory, and builds the
// environment: HOME, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, auto-update,
// telemetry and non-essential traffic off, and nothing else of the
// caller's environment but PATH and the locale.
func NewHome(dir string, opts Options) (*Home, error) {
	claude := opts.Claude
	if claude == "" {
		claude = "claude"
	}
	claude, err := exec.LookPath(claude)
	if err != nil {
		return nil, fmt.Errorf("claudetest: %w", err)
	}
	h := &Home{Dir: filepath.Join(dir, "home"), Project: filepath.Join(dir, "project"), Claude: claude}
	for _, d := range []string{filepath.Join(h.Dir, ".claude"), h.Project, filepath.Join(h.Dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("claudetest: %w", err)
		}
	}
	if h.Project, err = filepath.EvalSymlinks(h.Project); err != nil {
		return nil, fmt.Errorf("claudetest: %w", err)
	}
	version := "2.1.0"
	if out, err := exec.Command(claude, "--version").Output(); err == nil {
		if m := regexp.MustCompile(`\d+\.\d+\.\d+`).Find(out); m != nil {
			version = string(m)
		}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  version,
		"numStartups":            1,
		"autoUpdates":            false,
		"customApiKeyResponses":  map[string]any{"approved": []string{APIKey[len(APIKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{h.Project: map[string]any{
			"hasTrustDialogAccepted":        true,
			"hasCompletedProjectOnboarding": true,
			"allowedTools":                  []string{},
		}},
	}
	if err := writeJSONFile(filepath.Join(h.Dir, ".claude.json"), cfg); err != nil {
		return nil, err
	}
	allow := opts.Allow
	if allow == nil {
		allow = []string{}
	}
	if err := writeJSONFile(h.SettingsPath(), map[string]any{"permissions": map[string]any{"allow": allow}}); err != nil {
		return nil, err
	}
	h.Env = []string{
		"HOME=" + h.Dir,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + filepath.Join(h.Dir, "tmp"),
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"ANTHROPIC_BASE_URL=" + opts.APIURL,
		"ANTHROPIC_API_KEY=" + APIKey,
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"DISABLE_AUTO_COMPACT=1",
		"IS_SANDBOX=1",
	}
	h.Env = append(h.Env, opts.Env...)
	return h, nil
}

// SettingsPath is ~/.claude/settings.json.
func (h *Home) SettingsPath() string { return filepath.Join(h.Dir, ".claude", "settings.json") }

// TranscriptPath is where Claude Code keeps session id's transcript for
// the project: every non-alphanumeric character of the path becomes '-'.
func (h *Home) TranscriptPath(id string) string {
	enc := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(h.Project, "-")
	return filepath.Join(h.Dir, ".claude", "projects", enc, id+".jsonl")
}

// Result is what a finished command printed.
type Result struct {
	Stdout, Stderr string
	Err            error
	Elapsed        time.Duration
}

// Run runs name with args in the project directory with the home's
// environment, killing it when timeout passes.
func (h *Home) Run(timeout time.Duration, stdin []byte, name string, args ...string) Result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = h.Project
	cmd.Env = h.Env
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String(), Err: err, Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("%s %s: killed after %v: %w", filepath.Base(name), strings.Join(args, " "), timeout, ctx.Err())
	} else if err != nil {
		r.Err = fmt.Errorf("%s %s: %w (stderr: %s)", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return r
}

// Print runs `claude -p PROMPT` with extra args (e.g. --resume ID) and
// JSON output, and returns the session id Claude Code reported.
func (h *Home) Print(timeout time.Duration, prompt string, args ...string) (string, Result) {
	all := append([]string{"-p", prompt, "--output-format", "json"}, args...)
	r := h.Run(timeout, nil, h.Claude, all...)
	var out struct {
		SessionID string `json:"session_id"`
	}
	if r.Err == nil {
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &out); err != nil {
			r.Err = fmt.Errorf("claude -p: output is not JSON: %w: %q", err, r.Stdout)
		}
	}
	return out.SessionID, r
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("claudetest: %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("claudetest: %w", err)
	}
	return nil
}
