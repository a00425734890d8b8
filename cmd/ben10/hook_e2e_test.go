package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/fidelity"
	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hookstart"
)

// hookWorld is a temporary HOME with a project and a Claude Code
// transcript location, driven through the real binary.
type hookWorld struct {
	t          *testing.T
	home       string
	project    string
	transcript string
	session    string
	env        []string
}

func newHookWorld(t *testing.T, session string) *hookWorld {
	t.Helper()
	base := t.TempDir()
	w := &hookWorld{t: t, home: filepath.Join(base, "home"), project: filepath.Join(base, "cart-service"), session: session}
	for _, d := range []string{w.home, w.project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w.project, _ = filepath.EvalSymlinks(w.project)
	w.transcript = filepath.Join(w.home, ".claude", "projects", archive.ProjectDirName(w.project), session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(w.transcript), 0o700); err != nil {
		t.Fatal(err)
	}
	// The hooks' queued work is done inside the hook, so that no detached
	// worker outlives a test; the tests of the worker itself unset it.
	w.env = []string{"HOME=" + w.home, "CLAUDE_CONFIG_DIR=", "BEN10_HOOK_WORK=sync"}
	return w
}

func (w *hookWorld) writeTranscript(data []byte) {
	w.t.Helper()
	if err := os.WriteFile(w.transcript, data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// fire runs the hook for EVENT with the hook JSON Claude Code would send:
// the command `ben10 hooks install` wrote into the user settings when
// there are any (through sh, as Claude Code runs it on Unix), else
// `ben10 hook EVENT`. It fails the test unless the hook exits 0 with an
// empty stderr.
func (w *hookWorld) fire(event string, fields map[string]any, env ...string) *hook.Output {
	w.t.Helper()
	in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": event}
	for k, v := range fields {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	allEnv := append(append([]string(nil), w.env...), env...)
	var r result
	if cmd := installedCommand(w.t, filepath.Join(w.home, ".claude", "settings.json"), hook.Event(event)); cmd != "" && runtime.GOOS != "windows" {
		r = runShell(w.t, data, allEnv, cmd)
	} else {
		r = runBen10(w.t, data, allEnv, "hook", hook.Event(event).Kebab())
	}
	if r.code != 0 || r.stderr != "" {
		w.t.Fatalf("hook %s: exit %d, stderr %q", event, r.code, r.stderr)
	}
	if strings.TrimSpace(r.stdout) == "" {
		return nil
	}
	var out hook.Output
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		w.t.Fatalf("hook %s printed non-JSON stdout %q", event, r.stdout)
	}
	return &out
}

// writeDemo writes the bundled demo session (testdata/demo) as the
// transcript, its project path replaced by the world's project.
func (w *hookWorld) writeDemo() {
	w.t.Helper()
	full, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		w.t.Fatal(err)
	}
	w.writeTranscript(bytes.ReplaceAll(full, []byte("/home/dev/cart-service"), []byte(w.project)))
}

// writeConfig writes the project's .claude/config.yaml.
func (w *hookWorld) writeConfig(yaml string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte(yaml), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *hookWorld) contextDir() string { return filepath.Join(w.project, ".claude", "context") }

const demoSessionID = "5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b"

// TestHookE2EDemo is `make demo` with assertions: the bundled synthetic
// session through install → SessionStart → prompts → PreCompact →
// SessionStart(compact) → SessionEnd → a new SessionStart(startup).
func TestHookE2EDemo(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	full, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	full = bytes.ReplaceAll(full, []byte("/home/dev/cart-service"), []byte(w.project))
	cut := bytes.Index(full, []byte(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"`+w.project+`","sessionId":"`+demoSessionID+`","version":"2.1.39","gitBranch":"main","slug":"tidy-wandering-cart","type":"system","subtype":"compact_boundary"`))
	if cut < 0 {
		t.Fatal("no compact_boundary line in the demo transcript")
	}
	w.writeTranscript(full[:cut])

	// Install, idempotently.
	r := runBen10(t, nil, w.env, "hooks", "install")
	if r.code != 0 || !strings.Contains(r.stdout, "Installed") {
		t.Fatalf("hooks install: %d %q %q", r.code, r.stdout, r.stderr)
	}
	settings := filepath.Join(w.home, ".claude", "settings.json")
	first, _ := os.ReadFile(settings)
	if r := runBen10(t, nil, w.env, "hooks", "install"); r.code != 0 || !strings.Contains(r.stdout, "nothing changed") {
		t.Fatalf("second install: %q", r.stdout)
	}
	if second, _ := os.ReadFile(settings); !bytes.Equal(first, second) {
		t.Fatalf("second install changed the settings file")
	}
	// The shim sits next to the binary: every event goes through it.
	for _, ev := range []string{"session-start", "user-prompt-submit", "post-tool-use", "pre-compact", "session-end"} {
		if !bytes.Contains(first, []byte("ben10-hook' "+ev)) {
			t.Errorf("settings do not run the shim for %s:\n%s", ev, first)
		}
	}
	if err := os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte("context:\n  checkpoint_interval: 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	if out := w.fire("SessionStart", map[string]any{"source": "startup"}); out != nil {
		t.Fatalf("startup in an empty project injected %+v", out)
	}
	for i := 1; i <= 4; i++ {
		if out := w.fire("UserPromptSubmit", map[string]any{"prompt": fmt.Sprint("prompt ", i)}); out != nil {
			t.Fatalf("prompt %d printed %+v", i, out)
		}
	}
	if cps, _ := filepath.Glob(filepath.Join(w.contextDir(), "checkpoints", "cp-*.ctx")); len(cps) != 1 {
		t.Fatalf("checkpoints after 4 prompts (interval 3): %v", cps)
	}

	// PreCompact with the default background recompression.
	if out := w.fire("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": ""}); out != nil {
		t.Fatalf("PreCompact printed %+v", out)
	}
	index := filepath.Join(w.contextDir(), "compaction-snapshots", "index.json")
	deadline := time.Now().Add(60 * time.Second)
	for {
		data, err := os.ReadFile(index)
		if err != nil {
			t.Fatalf("no snapshot index after PreCompact: %v", err)
		}
		// index.json is compact JSON (one snapshot per line) since the
		// snapshot package's summary head; accept either spacing. The
		// default compression_level 6 maps to ctxfmt's level "better".
		if bytes.Contains(data, []byte(`"level":"better"`)) || bytes.Contains(data, []byte(`"level": "better"`)) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(hookfast.ErrorLogPath(w.home))
			t.Fatalf("background recompression did not finish:\n%s\nerrors: %s", data, log)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Compaction: the full transcript, then SessionStart(compact).
	w.writeTranscript(full)
	out := w.fire("SessionStart", map[string]any{"source": "compact"})
	if out == nil || out.HookSpecificOutput == nil || out.HookSpecificOutput.HookEventName != hook.SessionStart {
		t.Fatalf("SessionStart(compact) output %+v", out)
	}
	text := out.HookSpecificOutput.AdditionalContext
	if n := archive.DigestLen(text); n > archive.RecoveryDigestBudget {
		t.Fatalf("recovery context is %d characters", n)
	}
	if !strings.Contains(out.SystemMessage, "restored after compaction") || strings.Contains(out.SystemMessage, "\n") {
		t.Fatalf("systemMessage %q", out.SystemMessage)
	}
	for _, want := range []string{"testdata/carts/threshold.json", "internal/cart/total_test.go", "go vet ./...", "[pending] Check the free-shipping threshold"} {
		if !strings.Contains(text, want) {
			t.Errorf("recovery context lacks %q", want)
		}
	}
	if again := w.fire("SessionStart", map[string]any{"source": "compact"}); again != nil {
		t.Fatalf("re-fired SessionStart(compact) injected again")
	}

	// SessionEnd: current.ctx.
	if out := w.fire("SessionEnd", map[string]any{"reason": "prompt_input_exit"}); out != nil {
		t.Fatalf("SessionEnd printed %+v", out)
	}
	if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err != nil {
		t.Fatal(err)
	}
	if r := runBen10(t, nil, w.env, "context", "inspect", filepath.Join(w.contextDir(), "current.ctx")); r.code != 0 || !strings.Contains(r.stdout, demoSessionID) {
		t.Fatalf("inspect current.ctx: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// A new session: the handoff, once.
	next := newHookWorld(t, "0b6c1d2e-3f40-4a51-8b62-7c8d9e0f1a2b")
	next.home, next.project, next.env = w.home, w.project, w.env
	next.transcript = filepath.Join(filepath.Dir(w.transcript), next.session+".jsonl")
	out = next.fire("SessionStart", map[string]any{"source": "startup"})
	if out == nil || out.HookSpecificOutput == nil || archive.DigestLen(out.HookSpecificOutput.AdditionalContext) > 2000 {
		t.Fatalf("startup handoff: %+v", out)
	}
	if !strings.Contains(out.HookSpecificOutput.AdditionalContext, "5e1f0c2a") {
		t.Fatalf("handoff does not name the previous session:\n%s", out.HookSpecificOutput.AdditionalContext)
	}
	if again := next.fire("SessionStart", map[string]any{"source": "startup"}); again != nil {
		t.Fatalf("re-fired startup injected again")
	}
	if log, err := os.ReadFile(hookfast.ErrorLogPath(w.home)); err == nil && len(log) > 0 {
		t.Fatalf("error log:\n%s", log)
	}

	// Doctor: everything healthy; then a damaged current.ctx fails it.
	if r := runBen10(t, nil, w.env, "doctor", "--dir", w.project); r.code != 0 || !strings.Contains(r.stdout, "1 snapshot(s) verified") {
		t.Fatalf("doctor: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cur := filepath.Join(w.contextDir(), "current.ctx")
	data, _ := os.ReadFile(cur)
	data[len(data)/2] ^= 0xff
	os.WriteFile(cur, data, 0o600)
	if r := runBen10(t, nil, w.env, "doctor", "--dir", w.project); r.code != 1 || !strings.Contains(r.stdout, "damaged") {
		t.Fatalf("doctor on a damaged archive: %d\n%s", r.code, r.stdout)
	}

	// Uninstall leaves the user's other settings.
	var s map[string]any
	_ = json.Unmarshal(first, &s)
	s["model"] = "opus"
	data, _ = json.Marshal(s)
	os.WriteFile(settings, data, 0o600)
	if r := runBen10(t, nil, w.env, "hooks", "uninstall"); r.code != 0 {
		t.Fatalf("uninstall: %q", r.stderr)
	}
	if after, _ := os.ReadFile(settings); bytes.Contains(after, []byte("ben10")) || !bytes.Contains(after, []byte(`"opus"`)) {
		t.Fatalf("after uninstall:\n%s", after)
	}
}

func TestHookE2EFailuresExitZero(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, "s-fail")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"garbage stdin", "not json", []string{"hook", "pre-compact"}},
		{"empty stdin", "", []string{"hook"}},
		{"missing transcript", `{"session_id":"s1","transcript_path":"/nonexistent.jsonl","cwd":"` + w.project + `","trigger":"auto"}`, []string{"hook", "PreCompact"}},
		{"unknown event", `{"session_id":"s1","cwd":"/"}`, []string{"hook", "no-such-event"}},
	} {
		r := runBen10(t, []byte(tc.stdin), w.env, tc.args...)
		if r.code != 0 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d stdout %q stderr %q", tc.name, r.code, r.stdout, r.stderr)
		}
	}
	log, _ := os.ReadFile(hookfast.ErrorLogPath(w.home))
	if n := bytes.Count(log, []byte("\n")); n != 4 {
		t.Errorf("error log has %d lines:\n%s", n, log)
	}
}

// ---- corpus: summary + digest fidelity after a real compaction ----

// hookCorpusDir finds the shared corpus like the other corpus tests.
func hookCorpusDir(t *testing.T) string {
	d, ok := fidelity.CorpusDir()
	if !ok {
		t.Skip("corpus not found (set BEN10_CORPUS)")
	}
	return d
}

var sessionIDRe = regexp.MustCompile(`"sessionId":"([^"]+)"`)

// TestHookE2ECorpus cuts each corpus transcript at its compact_boundary to
// reproduce the state PreCompact sees, then feeds the full file for
// SessionStart(compact): the compaction summary plus the injected digest
// must hold ≥ 85% of the distinct file paths and shell commands used before
// the compaction.
func TestHookE2ECorpus(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(hookCorpusDir(t), "claude")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	sort.Strings(files)
	found := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		cut := -1
		for i, l := range lines {
			if bytes.Contains(l, []byte(`"subtype":"compact_boundary"`)) {
				cut = i
				break
			}
		}
		if cut < 0 {
			continue
		}
		found++
		t.Run(filepath.Base(f), func(t *testing.T) {
			m := sessionIDRe.FindSubmatch(data)
			if m == nil {
				t.Fatal("no sessionId")
			}
			w := newHookWorld(t, string(m[1]))
			pre := append(bytes.Join(lines[:cut], []byte("\n")), '\n')
			w.writeTranscript(pre)
			w.fire("PreCompact", map[string]any{"trigger": "auto"}, "BEN10_HOOK_RECOMPRESS=off")
			// The transcript as SessionStart(compact) sees it: up to the
			// summary that follows this boundary (a file may hold later
			// compactions too).
			post := data
			for i := cut + 1; i < len(lines); i++ {
				if bytes.Contains(lines[i], []byte(`"isCompactSummary":true`)) {
					post = append(bytes.Join(lines[:i+1], []byte("\n")), '\n')
					break
				}
			}
			w.writeTranscript(post)
			out := w.fire("SessionStart", map[string]any{"source": "compact"})
			if out == nil || out.HookSpecificOutput == nil {
				t.Fatal("nothing injected")
			}
			text := out.HookSpecificOutput.AdditionalContext
			if n := archive.DigestLen(text); n > archive.RecoveryDigestBudget {
				t.Fatalf("digest is %d characters", n)
			}
			summary, err := hookstart.CompactSummary(w.transcript)
			if err != nil || summary == "" {
				t.Fatalf("compact summary: %q, %v", summary, err)
			}
			// The measure of docs/FIDELITY.md (package internal/fidelity).
			u := fidelity.CollectUsed(lines[:cut])
			alone := u.Measure(summary)
			both := u.Measure(summary + "\n" + text)
			ratio := both.Ratio()
			t.Logf("%s: %d paths + %d commands; summary alone %d (%.0f%%), summary + digest %d (%.0f%%); digest %d chars",
				filepath.Base(f), len(u.Paths), len(u.Commands), alone.PathsOK+alone.CommandsOK, 100*alone.Ratio(), both.PathsOK+both.CommandsOK, 100*ratio, archive.DigestLen(text))
			if ratio < 0.85 {
				t.Errorf("summary + digest hold %.1f%% of paths and commands, want ≥ 85%%", 100*ratio)
			}
		})
	}
	if found == 0 {
		t.Skip("no corpus transcript with a compact_boundary")
	}
}
