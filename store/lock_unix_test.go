//go:build unix

package store

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

// TestLockFile: the bare file lock excludes another process's holder and
// times out with ErrFileLockTimeout; it is free again after unlock.
func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "side.lock")
	unlock, err := LockFile(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file description: a second open in
	// this process contends like another process would.
	if _, err := LockFile(path, 20*time.Millisecond); !errors.Is(err, ErrFileLockTimeout) {
		t.Fatalf("second LockFile while held: %v, want ErrFileLockTimeout", err)
	}
	unlock()
	again, err := LockFile(path, time.Second)
	if err != nil {
		t.Fatalf("LockFile after unlock: %v", err)
	}
	again()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file mode: %v %v", fi, err)
	}
}
