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
package hookentry

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/hook"
)

// Timeout bounds one hook call.
const Timeout = 55 * time.Second

func init() {
	if len(os.Args) < 2 || os.Args[1] != "hook" || WantsHelp(os.Args[2:]) {
		return
	}
	os.Exit(Run(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
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

// Run is `ben10 hook [EVENT] [--input FILE] [--prompt-counted]`: EVENT as
// Claude Code names it or in kebab-case (default: the input's
// hook_event_name); --input reads the hook JSON from FILE instead of
// stdin (benchmarks, replays); --prompt-counted tells UserPromptSubmit that
// the ben10-hook shim already counted the prompt. It returns the exit
// code, which is always 0 (see hook.Handler.Run).
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
		case "--prompt-counted":
			h.PromptCounted = true
			args = append(args[:i:i], args[i+1:]...)
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
