package watch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

func TestDefaults(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("GEMINI_CLI_HOME", "")
	t.Setenv("KIMI_SHARE_DIR", "")
	c := DefaultConfig("/home/u")
	if c.PollInterval != 10*time.Second || c.Cooldown != 10*time.Minute || c.ActiveWindow != 5*time.Minute {
		t.Fatalf("global defaults: %+v", c)
	}
	want := []struct {
		h        archive.Harness
		thr      Thresholds
		trg      Triggers
		cooldown time.Duration
		glob     string
	}{
		{archive.HarnessClaude, Thresholds{75, 75, 83}, Triggers{ContextPercent: true}, 10 * time.Minute, "/home/u/.claude/projects/*/*.jsonl"},
		{archive.HarnessCodex, Thresholds{80, 85, 90}, Triggers{ContextPercent: true}, 10 * time.Minute, "/home/u/.codex/sessions/**/rollout-*.jsonl"},
		{archive.HarnessGemini, Thresholds{40, 45, 50}, Triggers{ContextPercent: true}, 10 * time.Minute, "/home/u/.gemini/tmp/*/chats/session-*.jsonl"},
		{archive.HarnessKimi, Thresholds{70, 79, 80}, Triggers{true, 5, 15, 10}, 5 * time.Minute, "/home/u/.kimi/sessions/*/*/wire.jsonl"},
	}
	for i, w := range want {
		l := c.LLMs[i]
		if l.Name != w.h || !l.Enabled || l.Thresholds != w.thr || l.Triggers != w.trg || l.Cooldown != w.cooldown {
			t.Errorf("%s: got %+v", w.h, l)
		}
		found := false
		for _, g := range l.SessionPaths {
			found = found || filepath.ToSlash(g) == w.glob
		}
		if !found {
			t.Errorf("%s: globs %v lack %s", w.h, l.SessionPaths, w.glob)
		}
		// Every default keeps the export below the assistant's compaction.
		if l.Thresholds.ExportPercent >= l.Thresholds.CompactionStartsAt || l.Thresholds.WarnPercent > l.Thresholds.ExportPercent {
			t.Errorf("%s: default thresholds out of order: %+v", w.h, l.Thresholds)
		}
	}
}

func TestMissingAndEmptyConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := LoadConfig(filepath.Join(dir, "none.yaml"), dir)
	if err != nil || c.Path != "" || len(c.Problems) != 0 || len(namesOf(c)) != 4 {
		t.Fatalf("missing file: %v %+v", err, c)
	}
	for _, doc := range []string{"", "---\n", "~\n", "# only a comment\n"} {
		c, err := ParseConfig("w.yaml", []byte(doc), dir)
		if err != nil || len(c.Problems) != 0 || len(namesOf(c)) != 4 {
			t.Errorf("%q: %v %+v", doc, err, c.Problems)
		}
	}
}

func TestConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"syntax":   "llms: [unclosed\n",
		"sequence": "- a\n- b\n",
	} {
		_, err := ParseConfig(name, []byte(doc), dir)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v, want ErrConfig naming the file", name, err)
		}
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, make([]byte, MaxConfigBytes+1), 0o600)
	if _, err := LoadConfig(big, dir); !errors.Is(err, ErrConfig) {
		t.Errorf("oversized file: %v", err)
	}
}

func TestConfigOverrides(t *testing.T) {
	doc := `version: "1.0.0"
global:
  poll_interval_seconds: 0.5
  cooldown_minutes: 3
  active_minutes: 2
llms:
  claude:
    thresholds: {warn_percent: 70, export_percent: 72, compaction_starts_at: 83}
  codex: false
  gemini:
    session_paths: ["~/g/**/*.jsonl"]
    triggers: {context_percent: true, size_mb: null, time_minutes: 30, turns: 4}
  kimi:
    cooldown_minutes: 1.5
    binary: kimi
`
	c, err := ParseConfig("w.yaml", []byte(doc), "/h")
	if err != nil {
		t.Fatal(err)
	}
	if c.PollInterval != 500*time.Millisecond || c.Cooldown != 3*time.Minute || c.ActiveWindow != 2*time.Minute {
		t.Errorf("global: %+v", c)
	}
	cl := c.LLM(archive.HarnessClaude)
	if cl.Thresholds != (Thresholds{70, 72, 83}) || cl.Cooldown != 3*time.Minute || !cl.Enabled {
		t.Errorf("claude: %+v", cl)
	}
	if c.LLM(archive.HarnessCodex).Enabled || c.LLM(archive.HarnessCodex).Disabled != "" {
		t.Errorf("codex: false should disable without an error: %+v", c.LLM(archive.HarnessCodex))
	}
	g := c.LLM(archive.HarnessGemini)
	if g.Triggers != (Triggers{ContextPercent: true, TimeMinutes: 30, Turns: 4}) || g.SessionPaths[0] != "~/g/**/*.jsonl" || g.Thresholds != DefaultThresholds(archive.HarnessGemini) {
		t.Errorf("gemini: %+v", g)
	}
	k := c.LLM(archive.HarnessKimi)
	if k.Cooldown != 90*time.Second || !k.Enabled {
		t.Errorf("kimi: %+v", k)
	}
	if len(errorsOf(c)) != 0 || len(c.Problems) != 1 || !strings.Contains(c.Problems[0].String(), "llms.kimi.binary: not used") {
		t.Errorf("problems: %v", c.Problems)
	}
}

// An invalid entry disables only its assistant, with file, line and key.
func TestInvalidEntryDisablesOnlyThatAssistant(t *testing.T) {
	cases := []struct {
		name, entry, msg string
	}{
		{"export above compaction", "thresholds: {export_percent: 90, compaction_starts_at: 85}", "export_percent (90) must be below compaction_starts_at (85)"},
		{"warn above export", "thresholds: {warn_percent: 80, export_percent: 79}", "warn_percent (80) must not exceed export_percent (79)"},
		{"percent over 100", "thresholds: {export_percent: 150}", "at most 100"},
		{"percent zero", "thresholds: {warn_percent: 0}", "above 0"},
		{"percent string", "thresholds: {export_percent: high}", `got "high"`},
		{"threshold typo", "thresholds: {export_percnt: 70}", "thresholds.export_percnt: unknown key"},
		{"negative size", "triggers: {size_mb: -1}", "triggers.size_mb: must be a positive number"},
		{"fractional turns", "triggers: {turns: 2.5}", "triggers.turns: must be a whole number"},
		{"bool as string", "enabled: \"yes\"", "enabled: must be true or false"},
		{"no trigger", "triggers: {context_percent: false}", "no trigger is enabled"},
		{"relative glob", "session_paths: [\"sessions/*.jsonl\"]", "must be absolute or start with ~/"},
		{"bad glob", "session_paths: [\"/x/[a\"]", "bad pattern"},
		{"partial doublestar", "session_paths: [\"/x/a**/y\"]", "** must be a whole path element"},
		{"empty globs", "session_paths: []", "is empty"},
		{"cooldown negative", "cooldown_minutes: -2", "cooldown_minutes: must be between"},
		{"unknown key", "exprt: 1", "exprt: unknown key"},
		{"not a mapping", "", "must be a mapping"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := "llms:\n  codex:\n    " + tc.entry + "\n  kimi:\n    cooldown_minutes: 2\n"
			if tc.entry == "" {
				doc = "llms:\n  codex: [1, 2]\n  kimi:\n    cooldown_minutes: 2\n"
			}
			c, err := ParseConfig("/etc/w.yaml", []byte(doc), "/h")
			if err != nil {
				t.Fatal(err)
			}
			cx := c.LLM(archive.HarnessCodex)
			if cx.Enabled || !strings.Contains(cx.Disabled, tc.msg) {
				t.Errorf("codex: enabled %v, disabled %q, want %q", cx.Enabled, cx.Disabled, tc.msg)
			}
			errs := errorsOf(c)
			if len(errs) != 1 || errs[0].LLM != "codex" || errs[0].Line < 2 {
				t.Fatalf("errors: %+v", errs)
			}
			s := errs[0].String()
			if !strings.HasPrefix(s, "/etc/w.yaml:") || !strings.Contains(s, tc.msg) || !strings.HasSuffix(s, "(codex disabled until fixed)") {
				t.Errorf("message %q, want file:line, %q and the consequence", s, tc.msg)
			}
			// The others are untouched; kimi's valid entry applied.
			for _, h := range []archive.Harness{archive.HarnessClaude, archive.HarnessGemini, archive.HarnessKimi} {
				if !c.LLM(h).Enabled {
					t.Errorf("%s disabled too", h)
				}
			}
			if c.LLM(archive.HarnessKimi).Cooldown != 2*time.Minute {
				t.Errorf("kimi's entry was not applied")
			}
		})
	}
}

func TestInvalidGlobalKeyKeepsDefault(t *testing.T) {
	c, err := ParseConfig("w.yaml", []byte("global:\n  poll_interval_seconds: 0\n  cooldown_minutes: soon\n  colour: red\nextra: 1\nllms:\n  qwen: {}\n"), "/h")
	if err != nil {
		t.Fatal(err)
	}
	if c.PollInterval != DefaultPollInterval || c.Cooldown != DefaultCooldown {
		t.Errorf("defaults not kept: %v %v", c.PollInterval, c.Cooldown)
	}
	if len(errorsOf(c)) != 2 || len(c.Problems) != 5 || len(namesOf(c)) != 4 {
		t.Errorf("problems: %v", c.Problems)
	}
	for _, p := range errorsOf(c) {
		if !strings.HasSuffix(p.String(), "(using the default)") {
			t.Errorf("%q", p)
		}
	}
}

// errorsOf returns the problems of c that disabled something.
func errorsOf(c *Config) []Problem {
	var out []Problem
	for _, p := range c.Problems {
		if p.Disabled {
			out = append(out, p)
		}
	}
	return out
}

// namesOf returns the enabled assistants of c.
func namesOf(c *Config) []string {
	var out []string
	for _, l := range c.LLMs {
		if l.Enabled {
			out = append(out, string(l.Name))
		}
	}
	return out
}
