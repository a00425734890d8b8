package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorReportsGitTrackedStore: a store committed to the project's
// repository is reported by doctor, an untracked one is not.
func TestDoctorReportsGitTrackedStore(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	for _, tracked := range []bool{true, false} {
		home, project := t.TempDir(), t.TempDir()
		env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
		store := filepath.Join(project, ".claude", "context")
		if err := os.MkdirAll(store, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(store, "hook-state.json"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args := [][]string{{"init", "-q"}}
		if tracked {
			args = append(args, []string{"add", "-f", ".claude/context/hook-state.json"})
		}
		for _, a := range args {
			cmd := exec.Command(git, append([]string{"-C", project}, a...)...)
			cmd.Env = append(os.Environ(), env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", a, err, out)
			}
		}
		r := runBen10(t, nil, env, "doctor", "--dir", project, "--json")
		var checks []check
		if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
		}
		found := false
		for _, c := range checks {
			found = found || (c.Status == "warn" && strings.Contains(c.Detail, "git tracks 1 file(s) of the store"))
		}
		if found != tracked {
			t.Errorf("tracked %v: doctor reported it %v: %+v", tracked, found, checks)
		}
	}
}
