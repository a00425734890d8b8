package hookfast

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// RunChild runs bin with args as a child in its own process group, killed
// whole when ctx ends, and waits for it. Its output is discarded but for
// what says why it failed: a non-zero exit, a crash or the end of ctx
// is an error naming the child and, when it printed one, its crash line.
// A hook running unsupervised uses it for work that decodes archives.
func RunChild(ctx context.Context, bin string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	out := &capWriter{max: maxChildStderr}
	errb := &capWriter{max: maxChildStderr}
	cmd.Stdout, cmd.Stderr = out, errb
	err := runInGroup(cmd)
	if ctx.Err() != nil {
		return fmt.Errorf("%s %v: stopped: %w", bin, args, ctx.Err())
	}
	if err == nil {
		return nil
	}
	if why := firstCrashLine(errb.buf.Bytes()); why != "" {
		return fmt.Errorf("%s %v: %w: %s", bin, args, err, why)
	}
	return fmt.Errorf("%s %v: %w", bin, args, err)
}

// runInGroup runs cmd in a process group of its own, killed whole when
// cmd's context ends and once cmd has exited (what the child started in
// its group dies with it; the detached worker runs in a session of its
// own). A grandchild that kept the output pipes open does not hold the
// caller past 200 ms, and a child that succeeded is a success even then.
func runInGroup(cmd *exec.Cmd) error {
	setGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 200 * time.Millisecond
	err := cmd.Run()
	_ = killGroup(cmd)
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	return err
}
