//go:build !windows

package hooknote

import (
	"fmt"
	"os"
	"syscall"
)

// spawnDetached starts the executable exe with args in a new session, with
// stdin, stdout and stderr on the null device, and does not wait for it:
// Claude Code waits for the hook's stdout to close, so the child must not
// inherit it.
//
// It calls syscall.ForkExec rather than os/exec: on Linux the first
// os.StartProcess of a process first forks a throw-away child to check
// that the kernel supports pidfds (a pidfd a detached child never needs),
// which was a second fork on every hook that starts the worker.
func spawnDetached(exe string, args ...string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", os.DevNull, err)
	}
	defer null.Close()
	fd := null.Fd()
	_, err = syscall.ForkExec(exe, append([]string{exe}, args...), &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{fd, fd, fd},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return fmt.Errorf("starting %s: %w", exe, err)
	}
	return nil
}
