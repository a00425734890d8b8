package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"
)

// TestClearCurrent: `context clear` moves current.ctx into history/ with
// its .meta (it used to drop the meta) and applies the history retention
// (it used to skip it) (issue 14 item 7).
func TestClearCurrent(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.HistoryRetentionCount = 2
	s := e.open(t, Options{Config: cfg})
	if _, _, err := s.ClearCurrent(); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("ClearCurrent without the lock: %v", err)
	}
	unlock := lock(t, s)
	defer unlock()
	for i := range 3 {
		if _, err := s.SaveCurrent(testPayload(i), Meta{SessionID: fmt.Sprint("s", i), Messages: i}, SaveOptions{Rotate: true}); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(time.Duration(i-10) * time.Second)
		os.Chtimes(s.CurrentPath(), mt, mt)
	}
	moved, pruned, err := s.ClearCurrent()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := verifyPayload(moved); err != nil || n != 2 {
		t.Fatalf("moved file holds state %d (%v)", n, err)
	}
	if b, err := os.ReadFile(moved + ".meta"); err != nil || len(b) == 0 {
		t.Fatalf("the meta did not follow current.ctx into history: %v", err)
	}
	for _, p := range []string{s.CurrentPath(), s.MetaPath()} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there after clear (%v)", p, err)
		}
	}
	hs, err := s.History()
	if err != nil || len(hs) != 2 || len(pruned) != 1 {
		t.Fatalf("history %d files, %d pruned (%v); want retention 2 applied", len(hs), len(pruned), err)
	}
	if _, _, err := s.ClearCurrent(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second clear: %v, want not exist", err)
	}
}
