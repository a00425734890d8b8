//go:build !windows

package hook

import (
	"os"
	"os/exec"
	"syscall"
)

// spawnDetached starts this executable with args in a new session, with
// stdin, stdout and stderr on the null device, and does not wait for it:
// Claude Code waits for the hook's stdout to close, so the child must not
// inherit it.
func spawnDetached(args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
