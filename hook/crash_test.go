package hook

import (
	"github.com/ben10ctx/ben10/internal/hooknote"
	"strings"
	"testing"
	"time"
)

// TestCrashCheckpointOfferedAtOnce is issue 14 item 6: a session started
// within 15 minutes of another one that crashed (no SessionEnd, its
// assistant process gone) gets the crashed session's newest checkpoint at
// once; a session whose process still runs (another terminal) gets
// nothing, and when nothing is known about processes the 15-minute window
// still decides.
func TestCrashCheckpointOfferedAtOnce(t *testing.T) {
	procA := ProcessID{PID: 4242, Start: 1000}
	procB := ProcessID{PID: 5151, Start: 2000}
	tests := []struct {
		name    string
		selfB   ProcessID          // the process B's hooks run under
		running map[ProcessID]bool // nil: liveness unknown
		wait    time.Duration      // from A's last event to B's start
		want    bool               // A's checkpoint injected into B
	}{
		{name: "A's process gone", selfB: procB, running: map[ProcessID]bool{procB: true}, wait: 2 * time.Minute, want: true},
		{name: "A's PID reused by another process", selfB: procB, running: map[ProcessID]bool{{PID: 4242, Start: 9999}: true, procB: true}, wait: 2 * time.Minute, want: true},
		{name: "B under A's process (it moved on)", selfB: procA, running: map[ProcessID]bool{procA: true}, wait: time.Minute, want: true},
		{name: "A still running in another terminal", selfB: procB, running: map[ProcessID]bool{procA: true, procB: true}, wait: 2 * time.Minute},
		{name: "A still running, quiet for an hour", selfB: procB, running: map[ProcessID]bool{procA: true, procB: true}, wait: time.Hour},
		{name: "liveness unknown, within the window", selfB: procB, wait: 2 * time.Minute},
		{name: "liveness unknown, past the window", selfB: procB, wait: hooknote.LiveWindow + time.Minute, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.procs.self = procA
			tp := e.transcript(demoSession, 0)
			// A edits a file (a checkpoint), then crashes: no SessionEnd.
			if r := e.fire("PostToolUse", map[string]any{"session_id": demoSession, "transcript_path": tp, "tool_name": "Edit"}); r.stderr != "" {
				t.Fatal(r.stderr)
			}
			if ss := e.state().Sessions[demoSession]; ss.PID != procA.PID || ss.PIDStart != procA.Start {
				t.Fatalf("A's process not recorded: pid %d start %d", ss.PID, ss.PIDStart)
			}
			e.procs.self, e.procs.running = tc.selfB, tc.running
			e.now = e.now.Add(tc.wait)
			r := e.fire("SessionStart", map[string]any{"session_id": "bbbbbbbb-0000-4000-8000-000000000001", "source": "startup"})
			if r.stderr != "" {
				t.Fatal(r.stderr)
			}
			got := r.out != nil && r.out.HookSpecificOutput != nil && strings.Contains(r.out.HookSpecificOutput.AdditionalContext, "latest checkpoint")
			if got != tc.want {
				t.Fatalf("checkpoint injected: %v, want %v (stdout %q)", got, tc.want, r.stdout)
			}
		})
	}
}
