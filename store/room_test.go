package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSizeLimitRetentionMakesRoom is issue 14 item 5: over
// context.max_storage_mb a save first removes the oldest history (then old
// checkpoints, never the newest), and only then refuses; a refusal is
// recorded for status and doctor, and a later successful save forgets it.
func TestSizeLimitRetentionMakesRoom(t *testing.T) {
	const kb = 1 << 10
	payload := func(tag string, n int) []byte {
		return append([]byte(tag), bytes.Repeat([]byte{'x'}, n-len(tag))...)
	}
	tests := []struct {
		name        string
		history     []int // sizes of history files, oldest first (KiB)
		checkpoints []int // sizes of checkpoints, oldest first (KiB)
		current     int   // size of current.ctx (KiB), rotated into history by the save
		save        int   // size of the new save (KiB)
		rotate      bool
		wantErr     bool
		wantRemoved int // files removed to make room
		wantKept    []string
	}{
		{name: "fits", history: []int{100}, current: 100, save: 100, rotate: true,
			wantKept: []string{"h0"}},
		{name: "oldest history goes first", history: []int{300, 300, 100}, current: 200, save: 300, rotate: true,
			wantRemoved: 1, wantKept: []string{"h1", "h2"}},
		{name: "then old checkpoints, newest checkpoint kept", history: []int{200}, checkpoints: []int{200, 200, 200}, current: 400, save: 300, rotate: true,
			wantRemoved: 3, wantKept: []string{"c2"}},
		{name: "same session replaces current.ctx", history: []int{400, 100}, current: 400, save: 600,
			wantRemoved: 1, wantKept: []string{"h1"}},
		{name: "refused when nothing else can go", checkpoints: []int{300}, current: 600, save: 600, rotate: true,
			wantErr: true, wantKept: []string{"c0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			cfg := DefaultConfig()
			cfg.MaxStorageMB = 1
			cfg.HistoryRetentionCount = 100
			s := e.open(t, Options{Config: cfg, Session: "sess-new"})
			unlock := lock(t, s)
			defer unlock()
			if _, err := s.SaveCurrent(payload("old", tc.current*kb), Meta{SessionID: "sess-old"}, SaveOptions{}); err != nil {
				t.Fatalf("setting up current.ctx: %v", err)
			}
			if err := s.EnsureDir(s.HistoryDir()); err != nil {
				t.Fatal(err)
			}
			names := map[string]string{}
			base := time.Now().Add(-time.Hour)
			for i, n := range tc.history {
				p := s.HistoryPath(base.Add(time.Duration(i) * time.Minute))
				if err := os.WriteFile(p, payload("h", n*kb), 0o600); err != nil {
					t.Fatal(err)
				}
				os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute))
				names[fmt.Sprint("h", i)] = p
			}
			for i, n := range tc.checkpoints {
				cp, err := writeCheckpoint(s, payload("c", n*kb))
				if err != nil {
					t.Fatal(err)
				}
				names[fmt.Sprint("c", i)] = cp.Path
			}
			res, err := s.SaveCurrent(payload("new", tc.save*kb), Meta{SessionID: "sess-new"}, SaveOptions{Rotate: tc.rotate})
			rs, rerr := s.Refusals()
			if rerr != nil {
				t.Fatal(rerr)
			}
			if tc.wantErr {
				var le *StorageLimitError
				if !errors.As(err, &le) || !errors.Is(err, ErrStorageLimit) {
					t.Fatalf("want a StorageLimitError, got %v", err)
				}
				if len(rs) != 1 || rs[0].Area != "context" || rs[0].Session != "sess-new" || rs[0].AddBytes != int64(tc.save*kb) || rs[0].LimitBytes != 1<<20 {
					t.Fatalf("refusal not recorded: %+v", rs)
				}
				if b, _ := os.ReadFile(s.CurrentPath()); !bytes.HasPrefix(b, []byte("old")) {
					t.Fatal("a refused save changed current.ctx")
				}
			} else {
				if err != nil {
					t.Fatalf("save: %v", err)
				}
				if len(res.Pruned) != tc.wantRemoved {
					t.Fatalf("removed %d files (%v), want %d", len(res.Pruned), res.Pruned, tc.wantRemoved)
				}
				if len(rs) != 0 {
					t.Fatalf("refusals after a successful save: %+v", rs)
				}
				u, _ := s.Usage()
				if u.Context > 1<<20 {
					t.Fatalf("context area %d bytes, over the 1 MiB limit", u.Context)
				}
			}
			for _, k := range tc.wantKept {
				if _, err := os.Stat(names[k]); err != nil {
					t.Errorf("%s (%s) was removed: %v", k, filepath.Base(names[k]), err)
				}
			}
		})
	}
}

// TestRefusalForgottenAfterSave: a refusal stays recorded until a save of
// the same area succeeds.
func TestRefusalForgottenAfterSave(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.MaxStorageMB = 1
	s := e.open(t, Options{Config: cfg})
	unlock := lock(t, s)
	defer unlock()
	if _, err := s.SaveCurrent(make([]byte, 2<<20), Meta{}, SaveOptions{}); !errors.Is(err, ErrStorageLimit) {
		t.Fatalf("2 MiB into a 1 MiB store: %v", err)
	}
	rs, err := s.Refusals()
	if err != nil || len(rs) != 1 {
		t.Fatalf("refusals %+v, %v", rs, err)
	}
	if got := rs[0].String(); !bytes.Contains([]byte(got), []byte("current.ctx")) || !bytes.Contains([]byte(got), []byte("ben10 context prune")) {
		t.Fatalf("refusal line %q names neither the file nor the way out", got)
	}
	if _, err := s.SaveCurrent([]byte("small"), Meta{}, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.Refusals(); err != nil || len(rs) != 0 {
		t.Fatalf("refusals after a successful save: %+v, %v", rs, err)
	}
}
