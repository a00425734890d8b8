package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/e2e"
)

// `make install`, as the README gives it, puts ben10 and its hook shim
// into $(go env GOPATH)/bin, and the installed binary runs and reports a
// stamped version. GOPATH is a temporary directory; the module and build
// caches stay where they are, so nothing is downloaded.
func TestRealMakeInstall(t *testing.T) {
	bins := e2e.Require(t, "make")
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		return strings.TrimSpace(string(out))
	}
	modCache, buildCache := goEnv("GOMODCACHE"), goEnv("GOCACHE")
	tmp := t.TempDir()
	gopath := filepath.Join(tmp, "gopath")
	cmd := exec.Command(bins[0], "install", "BIN="+filepath.Join(tmp, "build", "ben10"))
	cmd.Dir = filepath.Join("..", "..") // the module root, where the Makefile is
	cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOMODCACHE="+modCache, "GOCACHE="+buildCache, "VERSION=v9.8.7-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	bin := filepath.Join(gopath, "bin")
	for _, name := range []string{"ben10", "ben10-hook"} {
		fi, err := os.Stat(filepath.Join(bin, name))
		if err != nil || fi.Mode().Perm()&0o111 == 0 {
			t.Fatalf("make install left no executable %s in %s: %v", name, bin, err)
		}
	}
	out, err := exec.Command(filepath.Join(bin, "ben10"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ben10 v9.8.7-test") {
		t.Fatalf("installed ben10 version: %v\n%s", err, out)
	}
	out, err = exec.Command(filepath.Join(bin, "ben10"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ben10 v9.8.7-test") {
		t.Fatalf("installed ben10 --version: %v\n%s", err, out)
	}
}
