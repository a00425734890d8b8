//go:build !windows

package hooknote

import (
	"os/exec"
	"syscall"
)

// spawnDetached starts the executable exe with args in a new session, with
// stdin, stdout and stderr on the null device, and does not wait for it:
// Claude Code waits for the hook's stdout to close, so the child must not
// inherit it.
func spawnDetached(exe string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
