package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ben10Bin is the real binary built once for the end-to-end tests, and
// shimBin the hook shim (cmd/ben10-hook) built beside it, as make build
// places them.
var ben10Bin, shimBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ben10-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ben10Bin = filepath.Join(dir, "ben10")
	if out, err := exec.Command("go", "build", "-o", ben10Bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ben10: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	shimBin = filepath.Join(dir, "ben10-hook")
	if out, err := exec.Command("go", "build", "-o", shimBin, "../ben10-hook").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ben10-hook: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
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
	cmd := exec.Command(ben10Bin, args...)
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
	r := runBen10(t, nil, nil, "version")
	if r.code != 0 || !bytes.HasPrefix([]byte(r.stdout), []byte("ben10 ")) {
		t.Fatalf("version: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runBen10(t, nil, nil, "no-such-command")
	if r.code == 0 {
		t.Fatalf("unknown command exited 0")
	}
}
