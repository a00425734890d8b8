package claudetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// quietTimeout bounds how long a test's cleanup waits for the processes
// still working in its directory (Ben10's background worker after a
// PreCompact or SessionEnd, a hook Claude Code left running).
const quietTimeout = time.Minute

// processesUnder returns the ids of the processes (other than this one)
// whose command line or environment mentions dir (Ben10's background
// worker, `ben10 internal work`, names no directory: its HOME is under
// dir). It reads /proc and finds nothing where there is none.
func processesUnder(dir string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if !bytes.Contains(cmdline, []byte(dir)) {
			environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err != nil || !bytes.Contains(environ, []byte(dir)) {
				continue
			}
		}
		if p, err := os.FindProcess(pid); err == nil && alive(p) {
			out = append(out, pid)
		}
	}
	return out
}

// waitQuiet waits, quietTimeout at most, until no process mentions dir
// on its command line, and returns those still running then.
func waitQuiet(dir string) []int {
	deadline := time.Now().Add(quietTimeout)
	for {
		left := processesUnder(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}
