//go:build unix

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An index.json that is a FIFO or a link (it comes with the repository)
// is skipped: the statusline neither hangs nor follows the link.
func TestReadStatusHostileIndex(t *testing.T) {
	real := filepath.Join(t.TempDir(), "index.json")
	mkfile(t, real, `{"version":"1","snapshots":[{"id":"pre-compact-20260501-115500-s1","session_id":"s1","created_at":"2026-05-01T11:55:00Z"}]}`)
	for _, kind := range []string{"fifo", "link"} {
		t.Run(kind, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			dir := filepath.Join(project, ".claude", "context", "compaction-snapshots")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			ix := filepath.Join(dir, "index.json")
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(ix, 0o600)
			} else {
				err = os.Symlink(real, ix)
			}
			if err != nil {
				t.Fatal(err)
			}
			in := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"context_window":{"used_percentage":10}}`, project)
			st, err := ReadStatus(strings.NewReader(in), home)
			if err != nil || !st.HavePercent || !st.LastSnapshot.IsZero() {
				t.Errorf("%+v %v, want the percentage and no snapshot", st, err)
			}
		})
	}
}
