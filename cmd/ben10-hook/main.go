// Command ben10-hook is the small front of `ben10 hook` that Claude Code
// starts on every prompt and session start. `ben10 hooks install`
// registers it for UserPromptSubmit and SessionStart (hook.ShimEvents) when
// it sits next to the ben10 executable, and ben10 itself for the other
// events, which `ben10 hook` handles in one process.
//
// A Go program's start-up grows with what it links: `ben10` links the
// archive format, compressors, YAML and the CLI, and starts in about
// 2.5 times the time of an empty Go program. This one links the standard
// library and internal/hookfast only. It answers a prompt with no
// checkpoint due itself — read the hook JSON, find the project's store and
// checkpoint pacing through the ticket the full hook keeps (hookfast.Ticket),
// append one byte to the session's prompt counter — with exactly the code
// `ben10 hook` runs for it. Everything else (a checkpoint due, no valid
// ticket, another event, unreadable input) is handed to `ben10 hook` with
// the same arguments and the same stdin bytes, as a supervised child
// (hookfast.Supervise): whatever happens to the child (a crash, a fatal
// runtime error, a hang past the event's deadline) the shim exits 0 with
// one line on stderr and an entry in the error log, and forwards the
// child's output only when it succeeded. A prompt the shim already counted
// is passed with --prompt-counted so it is not counted twice.
//
// Like every Ben10 hook it exits 0: if ben10 cannot be started or fails,
// one line on stderr and one entry in ~/.claude-code/ben10-errors.log.
//
// Usage (as installed): ben10-hook EVENT   (hook JSON on stdin)
//
//	ben10-hook user-prompt-submit < input.json
//	ben10-hook user-prompt-submit --input input.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
)

// maxInputBytes is ben10 hook's own bound on stdin (hook.MaxInputBytes):
// the shim reads at most one byte more and hands on what it read, so the
// full hook sees an oversized input as oversized.
const maxInputBytes = 64 << 20

// input is what the fast path reads of the hook JSON.
type input struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run handles one hook call and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var event, inputFile string
	var rest []string // arguments handed on unchanged
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:] // the full binary's form, "hook EVENT", works too
	}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--input" && i+1 < len(args):
			inputFile = args[i+1]
			i++
		case event == "" && len(a) > 0 && a[0] != '-':
			event = a
		default:
			rest = append(rest, a)
		}
	}
	if inputFile != "" {
		f, err := os.Open(inputFile)
		if err != nil {
			fail(stderr, event, nil, err)
			return 0
		}
		defer f.Close()
		stdin = f
	}
	data, rerr := io.ReadAll(io.LimitReader(stdin, maxInputBytes+1))
	var in input
	if rerr == nil && len(data) <= maxInputBytes {
		if json.Unmarshal(bytes.TrimSpace(data), &in) != nil {
			in = input{}
		}
	}
	name := event
	if name == "" {
		name = in.HookEventName
	}
	counted := false
	if rerr == nil && in.SessionID != "" && hookfast.EventKey(name) == "userpromptsubmit" {
		var done bool
		if done, counted = fastPrompt(&in); done {
			return 0
		}
	}
	full := []string{"hook"}
	if event != "" {
		full = append(full, event)
	}
	full = append(full, rest...)
	if counted {
		full = append(full, "--prompt-counted")
	}
	if rerr != nil {
		// Hand on what was read; the rest of stdin is still on fd 0 only
		// when nothing was read from it, so report the read error here.
		fail(stderr, name, &in, fmt.Errorf("reading stdin: %w", rerr))
		return 0
	}
	bin, err := fullBinary()
	if err != nil {
		fail(stderr, name, &in, err)
		return 0
	}
	home, _ := hookfast.HomeDir()
	return hookfast.Supervise(hookfast.Supervision{
		Bin: bin, Args: full, Input: data,
		Event: name, Session: in.SessionID, Project: in.Cwd, Home: home,
	}, stdout, stderr)
}

// fastPrompt is UserPromptSubmit's fast path through the project's ticket.
func fastPrompt(in *input) (done, counted bool) {
	home, err := hookfast.HomeDir()
	if err != nil {
		return false, false
	}
	project, err := hookfast.ProjectDir(os.Getenv, in.Cwd)
	if err != nil {
		return false, false
	}
	t, ok := hookfast.LoadTicket(home, project)
	if !ok {
		return false, false
	}
	return hookfast.CountPrompt(t.Root, in.SessionID, t.Pacing, time.Now())
}

// fullBinary is the ben10 executable next to this one.
func fullBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding ben10: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	name := "ben10"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(filepath.Dir(exe), name)
	if fi, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("ben10 is not next to ben10-hook: %w (reinstall both, then run `ben10 hooks install`)", err)
	} else if fi.IsDir() {
		return "", fmt.Errorf("ben10 is not next to ben10-hook: %s is a directory", bin)
	}
	return bin, nil
}

// fail reports a failure of the shim itself, as ben10 hook reports its own.
func fail(stderr io.Writer, event string, in *input, err error) {
	home, _ := hookfast.HomeDir()
	sid, cwd := "", ""
	if in != nil {
		sid, cwd = in.SessionID, in.Cwd
	}
	ev := event
	if ev == "" {
		ev = "hook"
	}
	hookfast.Fail(stderr, home, ev, sid, cwd, err, time.Now())
}
