// Command ben10-hook is the light front of `ben10 hook` that Claude Code
// starts on every hook event: `ben10 hooks install` registers it for
// every event when it sits next to the ben10 executable.
//
// A Go program's start-up grows with what it links: `ben10` links the
// archive format, compressors, the search index and the CLI, and starts
// in several times the time of an empty Go program. This one links the
// standard library, package store and internal helpers only. It handles
// every event that only takes note itself, with the code `ben10 hook`
// runs for it (internal/hooknote): read the bounded hook JSON, find the
// project's store, update the session's hook state and, for a save that
// is due (a checkpoint, PreCompact, SessionEnd), queue its job and start
// the user's worker, `ben10 internal work`, detached. A transcript found
// rewritten has its job done before the hook returns, by `ben10 internal
// work --once` as a supervised child.
//
// SessionStart of a new, cleared or compacted session is handled here
// when it reads no archive (internal/hookstart), with the same code as
// `ben10 hook`: after a compaction, when the worker prepared the recall
// of the session's snapshot, and at a start when every saved context file
// of the project has the startup record the worker wrote after saving it
// (each a file authenticated under the user's key and bound to the
// archive it describes) or there is none.
//
// PostCompact is handled here too: its summary is redacted with the
// project's rules and kept, tagged, for SessionStart(compact)
// (hookstart.PostCompact).
//
// Everything else — a SessionStart that reads archives,
// BEN10_HOOK_WORK=sync, unreadable input — is handed to
// `ben10 hook` with the same arguments and the same stdin bytes, as a
// supervised child (hookfast.Supervise): whatever happens to the child (a
// crash, a fatal runtime error, a hang past the event's deadline) the
// shim exits 0 with one line on stderr and an entry in the error log, and
// forwards the child's output only when it succeeded.
//
// Like every Ben10 hook it exits 0: a failure is one line on stderr and
// one entry in ~/.claude-code/ben10-errors.log.
//
// Usage (as installed): ben10-hook EVENT   (hook JSON on stdin)
//
//	ben10-hook pre-compact < input.json
//	ben10-hook user-prompt-submit --input input.json
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/store"
)

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
	data, rerr := io.ReadAll(io.LimitReader(stdin, hooknote.MaxInputBytes+1))
	in := &hooknote.Input{}
	var perr error
	if rerr == nil && len(data) <= hooknote.MaxInputBytes {
		if parsed, err := hooknote.ParseInput(data); err == nil {
			in = parsed
		} else {
			perr = err
		}
	}
	name := event
	if name == "" {
		name = in.HookEventName
	}
	if rerr != nil {
		// Hand on what was read; the rest of stdin is still on fd 0 only
		// when nothing was read from it, so report the read error here.
		fail(stderr, name, in, fmt.Errorf("reading stdin: %w", rerr))
		return 0
	}
	if perr == nil && hookfast.EventKey(name) == "sessionstart" && sessionStart(&hooknote.Env{}, in, stdout, stderr) {
		return 0
	}
	bin, err := fullBinary()
	if err != nil {
		fail(stderr, name, in, err)
		return 0
	}
	env := &hooknote.Env{Bin: bin, SyncWork: syncWork(bin)}
	if ev, eerr := hooknote.ParseEvent(name); perr == nil && eerr == nil && env.InProcess(ev, in) {
		return note(env, ev, in, stderr)
	}
	full := []string{"hook"}
	if event != "" {
		full = append(full, event)
	}
	full = append(full, rest...)
	home, _ := hookfast.HomeDir()
	return hookfast.Supervise(hookfast.Supervision{
		Bin: bin, Args: full, Input: data,
		Event: name, Session: in.SessionID, Project: in.Cwd, Home: home,
	}, stdout, stderr)
}

// note handles an event that only takes note in this process
// (hooknote.Call.Note), as `ben10 hook` does: a failure or a panic is one
// line on stderr and an entry in the error log. It returns the exit code,
// always 0.
func note(env *hooknote.Env, ev hooknote.Event, in *hooknote.Input, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fail(stderr, string(ev), in, fmt.Errorf("the hook's work failed: panic: %v", r))
			code = 0
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), hookfast.EventDeadline(string(ev)))
	defer cancel()
	c, err := env.Open(ctx, ev, in)
	if err == nil && c != nil {
		if ev == hooknote.PostCompact {
			err = hookstart.PostCompact(c)
		} else {
			err = c.Note(ev)
		}
	}
	if err != nil {
		fail(stderr, string(ev), in, err)
	}
	return 0
}

// sessionStart handles SessionStart of a new, cleared or compacted
// session when that reads no archive (internal/hookstart): after a
// compaction when the worker prepared the recall of the session's
// snapshot, at a start when every saved context file has a valid startup
// record. done is false, with nothing changed, otherwise: `ben10 hook`
// reads the archives.
func sessionStart(env *hooknote.Env, in *hooknote.Input, stdout, stderr io.Writer) (done bool) {
	ev := hooknote.SessionStart
	var handle func(*hooknote.Call) (*hooknote.Output, error)
	switch in.Source {
	case "compact":
		handle = func(c *hooknote.Call) (*hooknote.Output, error) { return hookstart.Compact(c, hookstart.Prepared(c)) }
	case "startup", "clear", "":
		handle = func(c *hooknote.Call) (*hooknote.Output, error) { return hookstart.Startup(c, hookstart.Recorded(c)) }
	default:
		return false // resume: hooknote takes note (Env.InProcess)
	}
	defer func() {
		if r := recover(); r != nil {
			fail(stderr, string(ev), in, fmt.Errorf("the hook's work failed: panic: %v", r))
			done = true
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), hookfast.EventDeadline(string(ev)))
	defer cancel()
	c, err := env.Open(ctx, ev, in)
	if err != nil || c == nil {
		return false
	}
	out, err := handle(c)
	if errors.Is(err, hookstart.ErrNotPrepared) {
		return false
	}
	if err == nil {
		err = out.Write(stdout)
	}
	if err != nil {
		fail(stderr, string(ev), in, err)
	}
	return true
}

// syncWork does a job that must be done before the hook returns (a
// rewritten transcript's) with `ben10 internal work --once`, a supervised
// child, as `ben10 hook` does: no archive is decoded in this process.
func syncWork(bin string) func(context.Context, *store.Store, store.Job) error {
	return func(ctx context.Context, st *store.Store, _ store.Job) error {
		home, err := hookfast.HomeDir()
		if err != nil {
			return err
		}
		if err := hooknote.RegisterProject(home, st.ProjectDir()); err != nil {
			return err
		}
		return hookfast.RunChild(ctx, bin, "internal", "work", "--once")
	}
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
func fail(stderr io.Writer, event string, in *hooknote.Input, err error) {
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
