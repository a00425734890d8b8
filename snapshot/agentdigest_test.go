package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSaveAgentDigestSession: a digest is saved under its session and
// read back authenticated; a session id that would break the header or
// leave the digests directory through the file name is refused, and
// nothing is written.
func TestSaveAgentDigestSession(t *testing.T) {
	for _, tc := range []struct {
		session string
		wantErr string
	}{
		{session: "aaaaaaaa-0000-4000-8000-00000000c0de"},
		{session: ""},
		{session: "../../escape", wantErr: "path separator"},
		{session: `..\escape`, wantErr: "path separator"},
		{session: "two\nlines", wantErr: "line break"},
	} {
		t.Run(tc.session, func(t *testing.T) {
			e := newEnv(t, "")
			k, err := UserAuthKey(e.home)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := SaveAgentDigest(e.st, k, tc.session, "Goal: the cart total.", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			good, bad := AgentDigests(e.st, k)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one about a %s", err, tc.wantErr)
				}
				if len(good)+len(bad) != 0 {
					t.Fatalf("digests written: %v %v", good, bad)
				}
				if _, err := os.Stat(filepath.Join(e.st.Root(), "escape.md")); err == nil {
					t.Fatal("a digest was written outside digests/")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(good) != 1 || len(bad) != 0 || good[0].Path != d.Path || good[0].Session != tc.session || good[0].Text != "Goal: the cart total." {
				t.Fatalf("read back %+v (unauthenticated %+v), saved %+v", good, bad, d)
			}
		})
	}
}
