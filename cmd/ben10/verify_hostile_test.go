package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/hostile"
)

// TestArchiveVerifyHostile: `archive verify --deep` refuses every archive
// of the hostile corpus with exit 2 and one line naming the file (none is
// called sound), except the one valid if large archive; `doctor` reports
// a hostile current.ctx as damaged instead of "verified".
func TestArchiveVerifyHostile(t *testing.T) {
	t.Parallel()
	family := map[string]bool{}
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			// -short: one case of each family (meta, conversation, raw, …)
			// through the binary; archive's TestHostileArchives checks them
			// all in the library, make test-long all of them here too.
			if f, _, _ := strings.Cut(c.Name, "-"); testing.Short() && family[f] {
				t.Skip("-short: another " + f + " case ran; make test-long runs this one")
			} else {
				family[f] = true
			}
			path, err := hostile.SharedPath(c.Name)
			if err != nil {
				t.Fatal(err)
			}
			r := runBen10(t, nil, nil, "archive", "verify", "--deep", path)
			if c.Name == "raw-zstd-bomb" {
				if r.code != 0 {
					t.Fatalf("a valid archive: exit %d, %s", r.code, r.stderr)
				}
				return
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], filepath.Base(path)) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming the file", r.code, r.stderr)
			}
		})
	}

	project := t.TempDir()
	ctxDir := filepath.Join(project, ".claude", "context")
	if err := os.MkdirAll(ctxDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"meta-raw-count", "conversation-nil-array", "raw-lz4-lie"} {
		path, err := hostile.SharedPath(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctxDir, "current.ctx"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := runBen10(t, nil, nil, "doctor", "--dir", project)
		if r.code != 1 || !strings.Contains(r.stdout, "damaged") || !strings.Contains(r.stdout, "current.ctx") {
			t.Fatalf("doctor with %s as current.ctx: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
}
