package hookentry

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hookfast"
)

// TestUnsupervisedRecoversPanic: a panic in an event handled in the hook's
// own process becomes exit 0, nothing on stdout, one line on stderr and
// one error log entry naming the event.
func TestUnsupervisedRecoversPanic(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, ev := range []string{"pre-compact", "session-end", "user-prompt-submit"} {
		t.Run(ev, func(t *testing.T) {
			before, _ := os.ReadFile(hookfast.ErrorLogPath(home))
			h := &hook.Handler{Home: home, Getenv: func(string) string { panic("injected failure") }}
			in := &hook.Input{SessionID: "s1", Cwd: t.TempDir(), TranscriptPath: filepath.Join(home, "t.jsonl")}
			var out, errb bytes.Buffer
			if code := Unsupervised(h, []string{ev}, in, nil, &out, &errb); code != 0 {
				t.Fatalf("exit %d", code)
			}
			if out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "panic: injected failure") {
				t.Fatalf("stdout %q, stderr %q: want one stderr line about the panic", out.String(), errb.String())
			}
			after, _ := os.ReadFile(hookfast.ErrorLogPath(home))
			added := strings.TrimPrefix(string(after), string(before))
			if strings.Count(added, "\n") != 1 || !strings.Contains(added, "injected failure") || !strings.Contains(added, ev) {
				t.Fatalf("error log gained %q", added)
			}
		})
	}
}

// TestUnsupervisedEvents: the events that only take note run in-process;
// SessionStart that may inject a digest and the sync work mode keep the
// supervised child.
func TestUnsupervisedEvents(t *testing.T) {
	for _, tc := range []struct {
		ev     hook.Event
		source string
		work   string
		want   bool
	}{
		{hook.UserPromptSubmit, "", "", true},
		{hook.PostToolUse, "", "", true},
		{hook.PreCompact, "", "", true},
		{hook.PostCompact, "", "", true},
		{hook.Stop, "", "", true},
		{hook.SessionEnd, "", "defer", true},
		{hook.SessionStart, "resume", "", true},
		{hook.SessionStart, "compact", "", false},
		{hook.SessionStart, "startup", "", false},
		{hook.SessionStart, "clear", "", false},
		{hook.SessionStart, "", "", false},
		{hook.PreCompact, "", "sync", false},
		{hook.SessionEnd, "", "nonsense", false},
		{hook.Event("Notification"), "", "", false},
	} {
		h := &hook.Handler{Getenv: func(k string) string {
			if k == "BEN10_HOOK_WORK" {
				return tc.work
			}
			return ""
		}}
		if got := h.Unsupervised(tc.ev, &hook.Input{Source: tc.source}); got != tc.want {
			t.Errorf("%s(%s) with BEN10_HOOK_WORK=%q: Unsupervised %v, want %v", tc.ev, tc.source, tc.work, got, tc.want)
		}
	}
}
