// Package hookentry runs `ben10 hook` from the earliest point a Go program
// offers: its own package initialisation, which runs before package main's.
//
// Claude Code starts `ben10 hook EVENT` on every hook event, and ben10's
// package main builds its whole cobra command tree (every command, its
// flags and help) in init functions — about a tenth of a hook's CPU time,
// none of which a hook uses. cmd/ben10 imports this package for its side
// effect; when the process's arguments are `hook …` (without --help, which
// needs the command tree), init handles the event with Run and exits, so
// package main's initialisation never runs. The result is the same as
// through the command tree: `ben10 hook --help` and a global flag before
// "hook" take the ordinary path, and cmd/ben10's hook command calls Run
// too.
//
// # Supervision
//
// A hook must never block Claude Code, whatever its input does to it, and
// a Go program cannot recover from a fatal runtime error (out of memory,
// a stack overflow) in-process. Such an error needs input that makes the
// program allocate or recurse without bound, and the only such input a
// hook reads is the store's archives (files in a project directory, so
// untrusted): SessionStart decodes them to inject a digest, and a job done
// inside the hook decodes them to save. So `ben10 hook` started by Claude
// Code reads the hook JSON and either
//
//   - handles the event in its own process when it only takes note
//     (hook.Handler.Unsupervised: internal/hooknote reads the bounded
//     JSON, the store's configuration, state and queue, appends a job,
//     starts the worker),
//     a panic recovered into one stderr line and an error log entry; a
//     job it must see done before returning runs in a supervised child,
//     `ben10 internal work --once` (hook.Handler.SyncWork); or
//   - runs the same command as a child process (marked with
//     hookfast.ChildEnv) that does the work, with a hard deadline per
//     event (hookfast.EventDeadline). Every failure of the child (a
//     non-zero exit, a signal, the deadline) becomes exit 0, one line on
//     stderr and an entry in the error log (hookfast.Supervise).
//
// The ben10-hook shim runs the same take-note code itself
// (internal/hooknote) and supervises the child when it hands an event on.
package hookentry

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/internal/hookfast"
)

// Timeout bounds one hook call.
const Timeout = 55 * time.Second

func init() {
	if len(os.Args) < 2 || os.Args[1] != "hook" || WantsHelp(os.Args[2:]) {
		return
	}
	os.Exit(Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
}

// Main is the entry point of `ben10 hook ARGS`: in a supervised child
// (hookfast.IsChild) it does the work (Run); otherwise it supervises a
// child doing it (Supervise). It returns the exit code, always 0.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if hookfast.IsChild() {
		return Run(args, stdin, stdout, stderr)
	}
	return Supervise(args, stdin, stdout, stderr)
}

// Supervise runs `ben10 hook ARGS` as a supervised child of this
// executable (see the package doc) with the hook JSON read from stdin
// (or --input's file, which the child reads itself).
func Supervise(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	home, _ := hookfast.HomeDir()
	var data []byte
	hasInput := false
	for _, a := range args {
		hasInput = hasInput || a == "--input"
	}
	ev := ""
	for i := 0; i < len(args) && ev == ""; i++ {
		if args[i] == "--input" {
			i++
		} else if args[i] != "" && args[i][0] != '-' {
			ev = args[i]
		}
	}
	in := &hook.Input{}
	var perr error
	if !hasInput && isTerminal(stdin) {
		// Claude Code always pipes the hook JSON; a terminal means a person
		// typed `ben10 hook …` (often for `ben10 hooks …`). Say so instead
		// of waiting for input that will not come.
		hint := ""
		if _, err := hook.ParseEvent(ev); err != nil && ev != "" {
			hint = fmt.Sprintf(" (%q is not a hook event; did you mean 'ben10 hooks %s'?)", ev, ev)
		}
		fmt.Fprintf(stderr, "ben10 hook: reads Claude Code's hook JSON on stdin and is run by Claude Code, not by hand%s; use --input FILE to replay a call\n", hint)
		return 0
	}
	if !hasInput {
		var err error
		data, err = io.ReadAll(io.LimitReader(stdin, hook.MaxInputBytes+1))
		if err != nil {
			hookfast.Fail(stderr, home, ev, "", "", fmt.Errorf("reading stdin: %w", err), time.Now())
			return 0
		}
		if len(data) > hook.MaxInputBytes {
			perr = fmt.Errorf("%w: stdin is larger than %d bytes", hook.ErrBadInput, hook.MaxInputBytes)
		} else if parsed, err := hook.ParseInput(data); err == nil {
			in = parsed
		} else {
			perr = err
		}
	}
	if ev == "" {
		ev = in.HookEventName
	}
	if !hasInput {
		h := &hook.Handler{}
		e, eerr := hook.ParseEvent(ev)
		if perr != nil || eerr != nil || h.Unsupervised(e, in) {
			// Bad input is reported without a child, as is an event that
			// only takes note.
			return Unsupervised(h, args, in, perr, stdout, stderr)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		hookfast.Fail(stderr, home, ev, in.SessionID, in.Cwd, fmt.Errorf("finding ben10's executable: %w", err), time.Now())
		return 0
	}
	return hookfast.Supervise(hookfast.Supervision{
		Bin: bin, Args: append([]string{"hook"}, args...), Input: data,
		Event: ev, Session: in.SessionID, Project: in.Cwd, Home: home,
	}, stdout, stderr)
}

// Unsupervised handles `ben10 hook ARGS` in this process with the hook
// input in (perr: why it could not be read), which h.Unsupervised
// accepted: a panic becomes exit 0, one line on stderr and an entry in the
// error log; a job that must be done before the hook returns runs in a
// supervised child (h.SyncWork, unless set). It returns the exit code,
// always 0.
func Unsupervised(h *hook.Handler, args []string, in *hook.Input, perr error, stdout, stderr io.Writer) (code int) {
	ev := ""
	for i := 0; i < len(args) && ev == ""; i++ {
		if args[i] != "" && args[i][0] != '-' {
			ev = args[i]
		}
	}
	name := ev
	if name == "" {
		name = in.HookEventName
	}
	defer func() {
		if r := recover(); r != nil {
			home, _ := hookfast.HomeDir()
			hookfast.Fail(stderr, home, name, in.SessionID, in.Cwd, fmt.Errorf("the hook's work failed: panic: %v", r), time.Now())
			code = 0
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), hookfast.EventDeadline(name))
	defer cancel()
	if h.SyncWork == nil {
		h.SyncWork = func(ctx context.Context) error {
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding ben10's executable: %w", err)
			}
			return hookfast.RunChild(ctx, bin, "internal", "work", "--once")
		}
	}
	return h.RunInput(ctx, ev, in, perr, stdout, stderr)
}

// isTerminal reports whether r is a terminal (a character device).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// WantsHelp reports whether the hook arguments ask for help.
func WantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" {
			return true
		}
	}
	return false
}

// Run is `ben10 hook [EVENT] [--input FILE]`: EVENT as Claude Code names
// it or in kebab-case (default: the input's hook_event_name); --input
// reads the hook JSON from FILE instead of stdin (benchmarks, replays). It
// returns the exit code, which is always 0 (see hook.Handler.Run).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	h := &hook.Handler{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--input":
			if i+1 < len(args) {
				f, err := os.Open(args[i+1])
				if err != nil {
					fmt.Fprintf(stderr, "ben10 hook: %v\n", err)
					return 0
				}
				defer f.Close()
				stdin = f
			}
			args = append(args[:i:i], args[min(i+2, len(args)):]...)
			i--
		}
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "ben10 hook: expected at most one EVENT, got %q (ignored the rest)\n", strings.Join(args, " "))
	}
	ev := ""
	if len(args) > 0 {
		ev = args[0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	return h.Run(ctx, ev, stdin, stdout, stderr)
}
