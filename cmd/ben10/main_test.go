package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/internal/hostile"
)

// ben10Bin is the real binary built once for the end-to-end tests, and
// shimBin the hook shim (cmd/ben10-hook) built beside it, as make build
// places them.
var ben10Bin, shimBin string

func TestMain(m *testing.M) {
	dir, keep, err := binDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// One go build for both: it loads the packages once and links the
	// two binaries side by side (or, in the kept directory, leaves them
	// alone when no source changed: go build's up-to-date check). Built
	// as make build builds them: pure Go, statically linked, stripped —
	// the binaries users run, which also start with fewer page faults
	// than a dynamically linked one (the tests start ben10 ~650 times).
	ben10Bin, shimBin = filepath.Join(dir, "ben10"), filepath.Join(dir, "ben10-hook")
	build := exec.Command("go", "build", "-ldflags", "-s -w", "-o", dir+string(filepath.Separator), ".", "../ben10-hook")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ben10 and ben10-hook: %v\n%s", err, out)
		if !keep {
			os.RemoveAll(dir)
		}
		os.Exit(1)
	}
	code := m.Run()
	if !keep {
		os.RemoveAll(dir)
	}
	hostile.RemoveShared()
	os.Exit(code)
}

// binDir is where TestMain builds the binaries: a directory kept between
// runs in the user's cache directory, one per checkout of the module
// (keep), so that a run after no change to the binary's sources does not
// link it again; a temporary directory when there is no cache directory.
func binDir() (dir string, keep bool, err error) {
	if cache, err := os.UserCacheDir(); err == nil {
		if wd, err := os.Getwd(); err == nil {
			sum := sha256.Sum256([]byte(wd))
			dir = filepath.Join(cache, "ben10-test", hex.EncodeToString(sum[:8]))
			if err := os.MkdirAll(dir, 0o700); err == nil {
				return dir, true, nil
			}
		}
	}
	dir, err = os.MkdirTemp("", "ben10-e2e-")
	return dir, false, err
}

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// runBen10 runs the real binary with args, stdin and extra environment
// (KEY=VALUE). HOME is always a per-test temporary directory unless env
// sets it.
func runBen10(t *testing.T, stdin []byte, env []string, args ...string) result {
	t.Helper()
	return runBen10In(t, "", stdin, env, args...)
}

// runBen10In is runBen10 in the working directory dir ("" = this one).
func runBen10In(t *testing.T, dir string, stdin []byte, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(ben10Bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running ben10 %v: %v", args, err)
	}
	return result{so.String(), se.String(), code}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runBen10(t, nil, nil, "version")
	if r.code != 0 || !bytes.HasPrefix([]byte(r.stdout), []byte("ben10 ")) {
		t.Fatalf("version: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, nil, "no-such-command")
	if r.code == 0 {
		t.Fatalf("unknown command exited 0")
	}
}

// Mistyped commands and flags at every level fail (exit 2) with a pointer
// to help and, for commands, a suggestion; the common verbs work at the
// top level; --version prints the version.
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"context", "staus"}, 2, []string{`unknown command "staus" for "ben10 context"`, "Did you mean this?", "status", "ben10 context --help"}},
		{[]string{"context", "compaction", "lsit"}, 2, []string{`unknown command "lsit"`, "list"}},
		{[]string{"statsu"}, 2, []string{"Did you mean this?", "status"}},
		{[]string{"context", "list", "--bogus"}, 2, []string{"unknown flag: --bogus", "ben10 context list --help"}},
		{[]string{"context", "restore", "a", "b", "c"}, 2, []string{"arg(s)", "ben10 context restore --help"}},
		{[]string{"--version"}, 0, []string{"ben10 "}},
	} {
		r := runBen10(t, nil, nil, c.args...)
		out := r.stdout + r.stderr
		if r.code != c.code {
			t.Errorf("ben10 %v: exit %d, want %d\n%s", c.args, r.code, c.code, out)
		}
		for _, w := range c.want {
			if !bytes.Contains([]byte(out), []byte(w)) {
				t.Errorf("ben10 %v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	// A group with no subcommand still shows its help and exits 0.
	if r := runBen10(t, nil, nil, "context"); r.code != 0 || !bytes.Contains([]byte(r.stdout), []byte("Available Commands")) {
		t.Errorf("ben10 context: %+v", r)
	}
	// `ben10 status` is `ben10 context status`, flags included.
	dir := t.TempDir()
	a := runBen10(t, nil, nil, "status", "--dir", dir, "--json")
	b := runBen10(t, nil, nil, "context", "status", "--dir", dir, "--json")
	if a.code != b.code || a.stdout != b.stdout {
		t.Errorf("status shortcut differs:\n%+v\n%+v", a, b)
	}
}

// -q leaves only what needs attention: nothing from a healthy status, and
// only failed checks from doctor.
func TestQuietStatusAndDoctor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := runBen10(t, nil, nil, "context", "status", "-q", "--dir", dir); r.code != 0 || r.stdout != "" {
		t.Errorf("status -q: %+v", r)
	}
	full := runBen10(t, nil, nil, "doctor", "--dir", dir)
	quiet := runBen10(t, nil, nil, "doctor", "-q", "--dir", dir)
	if full.code != quiet.code || len(quiet.stdout) >= len(full.stdout) || bytes.Contains([]byte(quiet.stdout), []byte("✓")) {
		t.Errorf("doctor -q:\n%s\nvs\n%s", quiet.stdout, full.stdout)
	}
}

// context save --harness is checked wherever the save goes: an unknown
// name, or one the file contradicts, fails clearly instead of importing
// nothing (or being ignored).
func TestSaveHarnessValidated(t *testing.T) {
	t.Parallel()
	tr := fixtureTranscript(t)
	out := filepath.Join(t.TempDir(), "x.ctx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, "--harness", "kimi"}, "is a claude session"},
		{[]string{"--out", out, "--harness", "bogus"}, "unknown harness"},
		{[]string{"--dir", t.TempDir(), "--harness", "bogus"}, "unknown harness"},
		{[]string{"--dir", t.TempDir(), "--harness", "codex"}, "is a claude session"},
	} {
		r := runBen10(t, nil, nil, append([]string{"context", "save", "--transcript", tr}, c.args...)...)
		if r.code == 0 || !bytes.Contains([]byte(r.stderr), []byte(c.want)) {
			t.Errorf("save %v: exit %d, stderr %q (want %q)", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused save wrote its archive")
	}
	if r := runBen10(t, nil, nil, "context", "save", "--transcript", tr, "--out", out, "--harness", "claude"); r.code != 0 {
		t.Errorf("the right --harness: %+v", r)
	}
}
