package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ben10ctx/ben10/snapshot"
)

// runOnTTY runs the real binary with stdin, stdout and stderr on a
// pseudo-terminal, typing answer once the prompt appears; it returns
// what the terminal showed and the exit code. Every wait is bounded.
func runOnTTY(t *testing.T, env []string, answer string, args ...string) (string, int) {
	t.Helper()
	return runOnTTYEnv(t, append(append(os.Environ(), "NO_COLOR=1"), env...), answer, args...)
}

// runOnTTYEnv is runOnTTY with exactly the environment env.
func runOnTTYEnv(t *testing.T, env []string, answer string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(ben10Bin, args...)
	cmd.Env = env
	f, err := pty.Start(cmd)
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer f.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, f); close(done) }()
	deadline := time.Now().Add(20 * time.Second)
	for answer != "" && !strings.Contains(out.String(), "[y/N]") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if answer != "" {
		f.Write([]byte(answer + "\n"))
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("ben10 %v did not finish; terminal:\n%s", args, out.String())
	}
	// Read what the child wrote before it exited: the copy ends (EIO)
	// once the terminal's buffer is drained. Closing first could lose the
	// last lines.
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	f.Close()
	<-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return out.String(), code
}

// Deleting a snapshot asks first on a terminal: "n" keeps it, "y" (or
// --yes) deletes it and says exactly what was deleted.
func TestCompactionDeleteConfirmsOnTTY(t *testing.T) {
	t.Parallel()
	p := newProject(t, 18)
	var res snapshot.CreateResult
	p.runJSON(t, &res, "context", "compaction", "snapshot")
	id := snapshot.ShortID(res.Snapshot.ID)
	list := func() int {
		var ix struct{ Snapshots []snapshot.Snapshot }
		p.runJSON(t, &ix, "context", "compaction", "list")
		return len(ix.Snapshots)
	}
	screen, code := runOnTTY(t, p.env, "n", "context", "compaction", "delete", id, "--dir", p.dir)
	if code == 0 || !strings.Contains(screen, "Delete snapshot "+res.Snapshot.ID) || !strings.Contains(screen, "--yes") {
		t.Fatalf("answering n: exit %d\n%s", code, screen)
	}
	if list() != 1 {
		t.Fatal("answering n deleted the snapshot")
	}
	screen, code = runOnTTY(t, p.env, "y", "context", "compaction", "delete", id, "--dir", p.dir)
	if code != 0 || !strings.Contains(screen, "deleted "+res.Snapshot.ID) {
		t.Fatalf("answering y: exit %d\n%s", code, screen)
	}
	if list() != 0 {
		t.Fatal("answering y kept the snapshot")
	}
	// --yes on a terminal: no question.
	p.runJSON(t, &res, "context", "compaction", "snapshot", "--force")
	screen, code = runOnTTY(t, p.env, "", "context", "compaction", "prune", "--yes", "--dir", p.dir)
	if code != 0 || strings.Contains(screen, "[y/N]") {
		t.Fatalf("prune --yes asked: exit %d\n%s", code, screen)
	}
	// Without a terminal (a script), no question either.
	r := runBen10(t, nil, p.env, "context", "compaction", "delete", snapshot.ShortID(res.Snapshot.ID), "--dir", p.dir, "--json")
	var out map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out["deleted"] != res.Snapshot.ID {
		t.Fatalf("scripted delete: %+v", r)
	}
}

// Shell completion offers the project's snapshot ids and fixed flag
// values, as the shell scripts ask for them (cobra's __complete).
func TestCompletionOfIDsAndFlagValues(t *testing.T) {
	t.Parallel()
	p := newProject(t, 18)
	var res snapshot.CreateResult
	p.runJSON(t, &res, "context", "compaction", "snapshot")
	r := runBen10(t, nil, p.env, "__complete", "context", "compaction", "show", "--dir", p.dir, "")
	if r.code != 0 || !strings.Contains(r.stdout, res.Snapshot.ID) {
		t.Fatalf("snapshot id completion: %+v", r)
	}
	short := snapshot.ShortID(res.Snapshot.ID)
	r = runBen10(t, nil, p.env, "__complete", "context", "compaction", "restore", "--dir", p.dir, short[:3])
	if !strings.Contains(r.stdout, short) {
		t.Fatalf("short id completion of %q: %s", short[:3], r.stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "export", "x.ctx", "--format", ""}, "markdown"},
		{[]string{"context", "save", "--harness", ""}, "kimi"},
		{[]string{"context", "restore", "--mode", ""}, "selective"},
		{[]string{"archive", "pack", "--level", ""}, "max"},
		{[]string{"hooks", "install", "--scope", ""}, "project"},
	} {
		r := runBen10(t, nil, p.env, append([]string{"__complete"}, c.args...)...)
		if !strings.Contains(r.stdout, c.want) {
			t.Errorf("completing %v: %q lacks %q", c.args, r.stdout, c.want)
		}
	}
}

// `ben10 hook` typed on a terminal (often for `ben10 hooks …`) says what
// it is instead of waiting silently for stdin, and still exits 0.
func TestHookRefusesTerminal(t *testing.T) {
	t.Parallel()
	screen, code := runOnTTY(t, []string{"HOME=" + t.TempDir()}, "", "hook", "install")
	if code != 0 || !strings.Contains(screen, "not by hand") || !strings.Contains(screen, "ben10 hooks install") {
		t.Fatalf("ben10 hook install on a terminal: exit %d\n%s", code, screen)
	}
}
