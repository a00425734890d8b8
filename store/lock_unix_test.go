//go:build unix

package store

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStaleLock: a lock held through a descriptor whose recorded holder
// process is dead is broken after the timeout; a lock whose holder is alive
// is not.
func TestStaleLock(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.LockTimeout = 100 * time.Millisecond
	s := e.open(t, Options{Config: cfg})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command(exe, "-test.run=^$")
	dead.Env = childCommandEnv("exit")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		pid    int
		break_ bool
	}{
		{"holder alive", os.Getppid(), false},
		{"holder dead", dead.Process.Pid, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := exec.Command(exe, "-test.run=^$")
			c.Env = childCommandEnv("holdstale", "STORE_LOCK="+s.LockPath(), "STORE_DEADPID="+strconv.Itoa(tc.pid))
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { c.Process.Kill(); c.Wait() }()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || strings.TrimSpace(line) != "locked" {
				t.Fatalf("child: %q %v", line, err)
			}
			before, _ := os.Stat(s.LockPath())
			unlock, err := s.Lock(context.Background())
			if !tc.break_ {
				if err == nil {
					unlock()
					t.Fatal("took a lock whose holder is alive")
				}
				return
			}
			if err != nil {
				t.Fatalf("stale lock not broken: %v", err)
			}
			defer unlock()
			after, _ := os.Stat(s.LockPath())
			if os.SameFile(before, after) {
				t.Fatal("stale lock file was not replaced")
			}
			found := false
			for _, w := range s.Warnings() {
				if strings.Contains(w.Message, "broke stale lock") {
					found = true
				}
			}
			if !found {
				t.Fatalf("no warning about the broken lock: %v", s.Warnings())
			}
		})
	}
}
