package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLookupMarker(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BEN10_E2E_MARKERS", dir)
	const missing = "ben10-e2e-no-such-program"
	if err := os.WriteFile(filepath.Join(dir, missing+"-marked"), []byte("npm registry unreachable\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sh"), []byte("stale marker\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		program string
		found   bool   // on PATH
		why     string // the skip reason
	}{
		{missing, false, ""}, // missing, no marker: the test fails
		{missing + "-marked", false, "npm registry unreachable"}, // missing, marker: skipped
		{"sh", true, ""}, // installed: a stale marker is ignored
	} {
		path, why, err := lookup(tc.program)
		if (err == nil) != tc.found || (path != "") != tc.found || why != tc.why {
			t.Errorf("lookup(%q) = %q, %q, %v; want found %v, reason %q", tc.program, path, why, err, tc.found, tc.why)
		}
	}
}
