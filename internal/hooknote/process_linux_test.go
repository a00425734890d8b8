package hooknote

import (
	"os/exec"
	"testing"
)

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
