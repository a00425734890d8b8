// Package e2e gates the end-to-end tests that need real outside programs
// (the Claude Code CLI, tmux, Chromium, a MinIO server).
//
// Such a test's name starts with "TestReal" and it calls Require first. Under
// `make test` (BEN10_E2E unset) it is skipped when a program is missing;
// under `make test-e2e` (BEN10_E2E=1, what .ci/run runs after installing
// the programs) a missing program fails the test, so CI cannot pass by
// skipping. The one exception: when scripts/ci-deps.sh could not reach a
// program's source (say, the npm registry), it leaves a marker naming the
// program (MarkerDir), and a test needing that program is skipped, loudly,
// instead of failed.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Enabled reports whether the end-to-end suite was asked for
// (BEN10_E2E=1).
func Enabled() bool { return os.Getenv("BEN10_E2E") == "1" }

// MarkerDir is where scripts/ci-deps.sh leaves a file named after each
// program it could not install because the program's source could not be
// reached; the file says why. It is $BEN10_E2E_MARKERS, else
// ben10-e2e in the user's cache directory ($XDG_CACHE_HOME or ~/.cache).
func MarkerDir() string {
	if d := os.Getenv("BEN10_E2E_MARKERS"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "ben10-e2e")
}

// lookup finds program on PATH; when it is missing, why is ci-deps'
// reason for it ("" without a marker: a failure) and err the lookup error.
func lookup(program string) (path, why string, err error) {
	path, err = exec.LookPath(program)
	if err != nil {
		why = unavailable(program)
	}
	return path, why, err
}

// unavailable returns the reason ci-deps left for program, or "".
func unavailable(program string) string {
	dir := MarkerDir()
	if dir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, program))
	if err != nil {
		return ""
	}
	if r := strings.TrimSpace(string(b)); r != "" {
		return r
	}
	return "marked unavailable"
}

// Require skips tb unless the end-to-end suite is enabled, and fails it
// when one of the named programs is not on PATH while it is — unless
// ci-deps left a marker saying it could not reach that program's source:
// then tb is skipped, with a warning on stderr. It returns the programs'
// paths in order.
func Require(tb testing.TB, programs ...string) []string {
	tb.Helper()
	if !Enabled() {
		tb.Skip("end-to-end test: run with BEN10_E2E=1 (make test-e2e)")
	}
	paths := make([]string, len(programs))
	for i, p := range programs {
		path, why, err := lookup(p)
		if why != "" {
			fmt.Fprintf(os.Stderr, "e2e: WARNING: SKIPPING %s: %s is not installed: %s (marker in %s)\n", tb.Name(), p, why, MarkerDir())
			tb.Skipf("SKIPPED: %s is not installed: %s", p, why)
		}
		if err != nil {
			tb.Fatalf("end-to-end test needs %s on PATH (scripts/ci-deps.sh installs it): %v", p, err)
		}
		paths[i] = path
	}
	return paths
}

// Deps lists the packages the package in the test's directory depends
// on, itself included (`go list -deps .`); the test is skipped when there
// is no go command.
func Deps(t testing.TB) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), out)
	}
	return deps
}
