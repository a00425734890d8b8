package hookfast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ChildEnv marks the process that does a hook's work. The supervisor
// (Supervise) starts the work as a child with ChildEnv=1 in its
// environment; a process that sees it runs the handler in-process (and
// removes the variable from its environment, so nothing it starts
// inherits it).
const ChildEnv = "BEN10_HOOK_CHILD"

// DeadlineEnv overrides the per-event deadline of the supervised child
// (a Go duration, e.g. "30s"), for users whose settings give the hooks a
// different timeout than `ben10 hooks install` registers.
const DeadlineEnv = "BEN10_HOOK_DEADLINE"

// Limits on what the supervisor keeps of the child's output.
const (
	maxChildStdout = 16 << 20 // a hook's JSON output (a digest is ~100 KB)
	maxChildStderr = 64 << 10 // warnings; a crash's goroutine dump is cut
)

// EventDeadline is the hard deadline of one hook event's work: half a
// second inside the timeout `ben10 hooks install` registers for it
// (hook.Registrations), so the supervisor's own report still reaches
// Claude Code in time. Events without a registered timeout get 9 s.
func EventDeadline(event string) time.Duration {
	switch EventKey(event) {
	case "sessionstart", "userpromptsubmit":
		return 9500 * time.Millisecond // registered with 10 s
	case "posttooluse":
		return 14500 * time.Millisecond // 15 s
	case "precompact":
		return 59500 * time.Millisecond // 60 s
	case "sessionend":
		return 4500 * time.Millisecond // 5 s: the budget all SessionEnd hooks share
	}
	return 9 * time.Second
}

// IsChild reports whether this process is a supervised hook child, and if
// so removes the marker from its environment.
func IsChild() bool {
	if os.Getenv(ChildEnv) != "1" {
		return false
	}
	_ = os.Unsetenv(ChildEnv)
	return true
}

// Supervision is one supervised hook call.
type Supervision struct {
	Bin   string   // the executable doing the work (ben10)
	Args  []string // its arguments ("hook", EVENT, …)
	Input []byte   // the hook JSON, given to the child on stdin
	// Event, Session and Project name the call in a failure report.
	Event, Session, Project string
	Home                    string        // for the error log
	Deadline                time.Duration // 0: EventDeadline(Event), or $BEN10_HOOK_DEADLINE
}

// Supervise runs the hook's work as a child process and makes its outcome
// safe for Claude Code, whatever happens in the child: a panic, a fatal
// runtime error such as running out of memory (which no Go program can
// recover from in-process), a signal, or a hang past the deadline. When
// the child exits 0 its stdout and stderr are forwarded; in every other
// case nothing it printed is forwarded (a partial JSON output would be
// worse than none), and the failure is one line on stderr and one entry
// in the error log. The child runs in its own process group, killed
// whole at the deadline. Supervise returns the exit code for the hook,
// which is always 0.
func Supervise(s Supervision, stdout, stderr io.Writer) int {
	d := s.Deadline
	if d <= 0 {
		d = EventDeadline(s.Event)
		if v, err := time.ParseDuration(os.Getenv(DeadlineEnv)); err == nil && v > 0 {
			d = v
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, s.Args...)
	cmd.Env = append(os.Environ(), ChildEnv+"=1")
	cmd.Stdin = bytes.NewReader(s.Input)
	out := &capWriter{max: maxChildStdout}
	errb := &capWriter{max: maxChildStderr}
	cmd.Stdout, cmd.Stderr = out, errb
	err := runInGroup(cmd)
	if err == nil && ctx.Err() == nil && !out.cut {
		_, _ = stdout.Write(out.buf.Bytes())
		_, _ = stderr.Write(errb.buf.Bytes())
		return 0
	}
	Fail(stderr, s.Home, s.Event, s.Session, s.Project, childFailure(ctx, d, err, out, errb), time.Now())
	return 0
}

// childFailure says why the supervised child failed.
func childFailure(ctx context.Context, d time.Duration, err error, out, errb *capWriter) error {
	why := firstCrashLine(errb.buf.Bytes())
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the hook's work did not finish within its %v deadline and was stopped", d)
	case err == nil && out.cut:
		return fmt.Errorf("the hook's output exceeded %d bytes and was dropped", maxChildStdout)
	case why != "":
		return fmt.Errorf("the hook's work failed (%w): %s", err, why)
	}
	return fmt.Errorf("the hook's work failed: %w", err)
}

// firstCrashLine picks the line of a child's stderr that says what went
// wrong: a Go runtime's "fatal error: …" or "panic: …", else its
// "runtime: …", else the first non-empty line.
func firstCrashLine(b []byte) string {
	first, rt := "", ""
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:"):
			return l
		case strings.HasPrefix(l, "runtime:") && rt == "":
			rt = l
		case first == "":
			first = l
		}
	}
	if rt != "" {
		return rt
	}
	return first
}

// capWriter keeps at most max bytes and records whether it dropped any.
type capWriter struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capWriter) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}
