package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const userSettings = `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(ls:*)"]
  },
  "hooks": {
    "PreCompact": [
      {
        "matcher": "auto",
        "hooks": [
          {"type": "command", "command": "/usr/local/bin/other-tool snapshot", "timeout": 30}
        ]
      }
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "notify-send hi"}]}
    ]
  },
  "cleanupPeriodDays": 99
}
`

func TestInstallMergesIdempotentlyAndUninstallRestores(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "my tools", "ben10")
	changed, err := install(path, bin)
	if err != nil || !changed {
		t.Fatalf("Install: changed=%v err=%v", changed, err)
	}
	first, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatalf("installed settings are not JSON: %v\n%s", err, first)
	}
	// Other settings keep their values and their order.
	for _, want := range []string{`"model": "opus"`, `"Bash(ls:*)"`, `other-tool snapshot`, `notify-send hi`, `"cleanupPeriodDays": 99`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("installed settings lost %s:\n%s", want, first)
		}
	}
	if strings.Index(string(first), `"model"`) > strings.Index(string(first), `"cleanupPeriodDays"`) {
		t.Errorf("key order changed:\n%s", first)
	}
	st, err := Status(path, ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Missing) != 0 || st.Binary != bin {
		t.Fatalf("status after install: missing %v, binary %q", st.Missing, st.Binary)
	}
	if st.Timeout[SessionEnd] <= 0 || st.Timeout[SessionEnd] > 60 {
		t.Errorf("SessionEnd timeout %v, want an explicit one", st.Timeout[SessionEnd])
	}
	if !strings.Contains(st.Events[PreCompact], "hook pre-compact") {
		t.Errorf("PreCompact command %q", st.Events[PreCompact])
	}

	changed, err = install(path, bin)
	if err != nil || changed {
		t.Fatalf("second Install: changed=%v err=%v", changed, err)
	}
	second, _ := os.ReadFile(path)
	if string(first) != string(second) {
		t.Fatalf("second install changed the file:\n%s\n---\n%s", first, second)
	}

	// A moved binary is updated in place, not added twice.
	moved := filepath.Join(dir, "bin2", "ben10")
	if changed, err = install(path, moved); err != nil || !changed {
		t.Fatalf("Install moved: changed=%v err=%v", changed, err)
	}
	third, _ := os.ReadFile(path)
	if n := strings.Count(string(third), "hook pre-compact"); n != 1 {
		t.Fatalf("%d pre-compact handlers after moving the binary:\n%s", n, third)
	}

	changed, err = uninstall(path)
	if err != nil || !changed {
		t.Fatalf("Uninstall: changed=%v err=%v", changed, err)
	}
	after, _ := os.ReadFile(path)
	if strings.Contains(string(after), "ben10") {
		t.Fatalf("uninstall left Ben10 entries:\n%s", after)
	}
	for _, want := range []string{`other-tool snapshot`, `notify-send hi`, `"cleanupPeriodDays": 99`} {
		if !strings.Contains(string(after), want) {
			t.Errorf("uninstall lost %s:\n%s", want, after)
		}
	}
	if changed, err = uninstall(path); err != nil || changed {
		t.Fatalf("second Uninstall: changed=%v err=%v", changed, err)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(path)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("settings mode %v, want 0600", fi.Mode().Perm())
		}
	}
}

func TestInstallCreatesMissingFileAndRefusesBadJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.local.json")
	if changed, err := install(path, "/opt/ben10"); err != nil || !changed {
		t.Fatalf("Install into missing file: %v %v", changed, err)
	}
	st, err := Status(path, ScopeLocal)
	if err != nil || len(st.Missing) != 0 {
		t.Fatalf("status: %+v %v", st, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"hooks": [1,2`), 0o600)
	if _, err := install(bad, "/opt/ben10"); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("Install on broken JSON: %v", err)
	}
	if data, _ := os.ReadFile(bad); string(data) != `{"hooks": [1,2` {
		t.Fatalf("broken settings file was modified")
	}
	if _, err := install(path, "relative/ben10"); err == nil {
		t.Fatalf("relative binary path accepted")
	}
}

func TestParseEvent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Event
		ok   bool
	}{
		{"PreCompact", PreCompact, true},
		{"pre-compact", PreCompact, true},
		{"SESSION_START", SessionStart, true},
		{"session-end", SessionEnd, true},
		{"user-prompt-submit", UserPromptSubmit, true},
		{"PostToolUse", PostToolUse, true},
		{"nope", "", false},
		{"", "", false},
	} {
		got, err := ParseEvent(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseEvent(%q) = %q, %v", tc.in, got, err)
		}
		if tc.ok && got.Kebab() != strings.ToLower(strings.ReplaceAll(tc.in, "_", "-")) && tc.in == got.Kebab() {
			t.Errorf("Kebab(%q) = %q", got, got.Kebab())
		}
	}
	if PreCompact.Kebab() != "pre-compact" || UserPromptSubmit.Kebab() != "user-prompt-submit" {
		t.Errorf("Kebab: %q %q", PreCompact.Kebab(), UserPromptSubmit.Kebab())
	}
}

func TestIsOurs(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		bin  string
		ours bool
	}{
		{`'/usr/local/bin/ben10' hook pre-compact`, "/usr/local/bin/ben10", true},
		{`'/home/a b/ben10' hook session-end`, "/home/a b/ben10", true},
		{`"C:\Program Files\ben10.exe" hook session-start`, `C:\Program Files\ben10.exe`, true},
		{`/usr/bin/other hook pre-compact`, "", false},
		{`'/usr/local/bin/ben10' hook nonsense`, "", false},
		{`notify-send hi`, "", false},
		{`'/opt/b 1/ben10-hook' user-prompt-submit`, "/opt/b 1/ben10-hook", true},
		{`"C:\Program Files\ben10-hook.exe" user-prompt-submit`, `C:\Program Files\ben10-hook.exe`, true},
		{`'/opt/ben10-hook' hook pre-compact`, "/opt/ben10-hook", true},
		{`'/opt/ben10' user-prompt-submit`, "", false},
		{`'/opt/ben10-hook' nonsense`, "", false},
		{`/usr/bin/other user-prompt-submit`, "", false},
	} {
		bin, _, ok := parseOurs(tc.cmd)
		if ok != tc.ours || (ok && bin != tc.bin) {
			t.Errorf("parseOurs(%q) = %q, %v", tc.cmd, bin, ok)
		}
	}
}

func TestParseInputAndOutput(t *testing.T) {
	in, err := ParseInput([]byte(`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":"","extra":{"x":1}}`))
	if err != nil || in.SessionID != "s1" || in.Trigger != "auto" || in.HookEventName != "PreCompact" {
		t.Fatalf("ParseInput: %+v %v", in, err)
	}
	for _, bad := range []string{"", "   ", "not json", `{"session_id":`} {
		if _, err := ParseInput([]byte(bad)); err == nil {
			t.Errorf("ParseInput(%q) accepted", bad)
		}
	}
	var b strings.Builder
	if err := (&Output{}).Write(&b); err != nil || b.Len() != 0 {
		t.Fatalf("empty output printed %q (%v)", b.String(), err)
	}
	o := &Output{SystemMessage: "saved", HookSpecificOutput: &SpecificOutput{HookEventName: SessionStart, AdditionalContext: "ctx <b>&"}}
	if err := o.Write(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != `{"systemMessage":"saved","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx <b>&"}}`+"\n" {
		t.Fatalf("output %q", got)
	}
	big := &Output{HookSpecificOutput: &SpecificOutput{HookEventName: SessionStart, AdditionalContext: strings.Repeat("x", MaxAdditionalContext+1)}}
	if err := big.Write(&b); err == nil {
		t.Fatalf("over-long additionalContext accepted")
	}
}

// TestInstallWithShim: with ben10-hook next to ben10, UserPromptSubmit runs
// the shim and every other event ben10; an install of the other form is
// upgraded (or downgraded) in place, never duplicated, and Status reports
// both binaries.
func TestInstallWithShim(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "my tools", "ben10")
	shim := ShimPath(bin)
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The old form first: no shim yet.
	if _, err := install(path, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if ShimFor(bin) != shim {
		t.Fatalf("ShimFor(%q) = %q, want %q", bin, ShimFor(bin), shim)
	}
	countOurs := func() map[Event]int {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Hooks map[string][]struct {
				Hooks []struct{ Command string } `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		n := map[Event]int{}
		for e, groups := range doc.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					if _, _, ok := parseOurs(h.Command); ok {
						n[Event(e)]++
					}
				}
			}
		}
		return n
	}
	for _, want := range []struct {
		shim    bool
		changed bool
	}{{true, true}, {true, false}, {false, true}, {false, false}} {
		if !want.shim {
			if err := os.Remove(shim); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		changed, err := install(path, bin)
		if err != nil || changed != want.changed {
			t.Fatalf("Install (shim %v): changed %v, want %v (%v)", want.shim, changed, want.changed, err)
		}
		st, err := Status(path, ScopeUser)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Missing) != 0 || st.Binary != bin {
			t.Fatalf("status: missing %v, binary %q", st.Missing, st.Binary)
		}
		for _, reg := range Registrations {
			wantCmd := Command(bin, reg.Event)
			if want.shim {
				wantCmd = ShimCommand(shim, reg.Event)
			}
			if st.Events[reg.Event] != wantCmd {
				t.Errorf("shim %v: %s runs %q, want %q", want.shim, reg.Event, st.Events[reg.Event], wantCmd)
			}
		}
		if (st.Shim == shim) != want.shim || (!want.shim && st.Shim != "") {
			t.Errorf("shim %v: Status.Shim = %q", want.shim, st.Shim)
		}
		for e, n := range countOurs() {
			if n != 1 {
				t.Errorf("shim %v: %d Ben10 entries for %s, want 1", want.shim, n, e)
			}
		}
	}
	if err := os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := install(path, bin); err != nil {
		t.Fatal(err)
	}
	if changed, err := uninstall(path); err != nil || !changed {
		t.Fatalf("Uninstall: %v %v", changed, err)
	}
	if n := countOurs(); len(n) != 0 {
		t.Fatalf("Uninstall left %v", n)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{`other-tool snapshot`, `notify-send hi`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Uninstall lost %s", want)
		}
	}
}

// install and uninstall edit the settings file at path as `ben10 hooks
// install` and `uninstall` do, and report whether it changed.
func install(path, bin string) (bool, error) {
	r, err := InstallFile(path, EditOptions{Bin: bin})
	return r.Changed, err
}

func uninstall(path string) (bool, error) {
	r, err := UninstallFile(path, EditOptions{})
	return r.Changed, err
}
