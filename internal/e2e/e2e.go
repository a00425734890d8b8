// Package e2e gates the end-to-end tests that need real outside programs
// (the Claude Code CLI, tmux, Chromium, a MinIO server).
//
// Such a test's name starts with "TestReal" and it calls Require first. Under
// `make test` (BEN10_E2E unset) it is skipped when a program is missing;
// under `make test-e2e` (BEN10_E2E=1, what .ci/run runs after installing
// the programs) a missing program fails the test, so CI cannot pass by
// skipping.
package e2e

import (
	"os"
	"os/exec"
	"testing"
)

// Enabled reports whether the end-to-end suite was asked for
// (BEN10_E2E=1).
func Enabled() bool { return os.Getenv("BEN10_E2E") == "1" }

// Require skips tb unless the end-to-end suite is enabled, and fails it
// when one of the named programs is not on PATH while it is. It returns
// the programs' paths in order.
func Require(tb testing.TB, programs ...string) []string {
	tb.Helper()
	if !Enabled() {
		tb.Skip("end-to-end test: run with BEN10_E2E=1 (make test-e2e)")
	}
	paths := make([]string, len(programs))
	for i, p := range programs {
		path, err := exec.LookPath(p)
		if err != nil {
			tb.Fatalf("end-to-end test needs %s on PATH (scripts/ci-deps.sh installs it): %v", p, err)
		}
		paths[i] = path
	}
	return paths
}
