package hook

import (
	"os/exec"
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
		{name: "liveness unknown, past the window", selfB: procB, wait: liveWindow + time.Minute, want: true},
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

// TestSystemProcesses checks the Linux process table against real
// processes: a running child is running, the same PID with another start
// time is not, and a killed one is not.
func TestSystemProcesses(t *testing.T) {
	if _, known := SystemProcesses.Running(ProcessID{PID: 1}); !known {
		t.Skip("no process table on this platform")
	}
	self, ok := SystemProcesses.Session()
	if !ok {
		t.Fatal("Session: the process this test runs under not found")
	}
	if running, _ := SystemProcesses.Running(self); !running {
		t.Fatalf("Session %+v reported as not running", self)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("sleep: %v", err)
	}
	st, ok := readStat(cmd.Process.Pid)
	if !ok || st.comm != "sleep" || st.start == 0 {
		t.Fatalf("readStat(%d) = %+v, %v", cmd.Process.Pid, st, ok)
	}
	p := ProcessID{PID: cmd.Process.Pid, Start: st.start}
	if running, known := SystemProcesses.Running(p); !running || !known {
		t.Fatalf("a running child: running %v, known %v", running, known)
	}
	if running, _ := SystemProcesses.Running(ProcessID{PID: p.PID, Start: p.Start + 1}); running {
		t.Fatal("a reused PID (other start time) reported as the same process")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if running, known := SystemProcesses.Running(p); running || !known {
		t.Fatalf("a killed child: running %v, known %v", running, known)
	}
}
