package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSaveCurrentAndHistory(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.HistoryRetentionCount = 2
	s := e.open(t, Options{Config: cfg})
	if _, err := s.SaveCurrent(testPayload(0), Meta{}, SaveOptions{}); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("SaveCurrent without the lock: %v", err)
	}
	unlock := lock(t, s)
	defer unlock()
	var pruned []string
	for i := 0; i < 5; i++ {
		res, err := s.SaveCurrent(testPayload(i), Meta{SessionID: fmt.Sprint("s", i), Messages: i}, SaveOptions{Rotate: true})
		if err != nil {
			t.Fatal(err)
		}
		if (i == 0) != (res.Rotated == "") {
			t.Fatalf("save %d: rotated %q", i, res.Rotated)
		}
		pruned = append(pruned, res.Pruned...)
		sum := sha256.Sum256(testPayload(i))
		m, err := s.ReadMeta()
		if err != nil || m.SHA256 != hex.EncodeToString(sum[:]) || m.SizeBytes != int64(len(testPayload(i))) ||
			m.SessionID != fmt.Sprint("s", i) || m.Messages != i || m.SavedAt.IsZero() {
			t.Fatalf("save %d: meta %+v, %v", i, m, err)
		}
		// Distinct modification times for the history ordering.
		mt := time.Now().Add(time.Duration(i-10) * time.Second)
		os.Chtimes(s.CurrentPath(), mt, mt)
	}
	if n, _ := verifyPayload(s.CurrentPath()); n != 4 {
		t.Fatalf("current holds state %d", n)
	}
	hs, err := s.History()
	if err != nil || len(hs) != 2 {
		t.Fatalf("history %v %v", hs, err)
	}
	for i, h := range hs {
		n, err := verifyPayload(h.Path)
		if err != nil || n != i+2 {
			t.Fatalf("history %d holds state %d (%v)", i, n, err)
		}
		if _, err := os.Stat(h.Path + ".meta"); err != nil {
			t.Fatalf("history meta missing: %v", err)
		}
		if !strings.HasPrefix(filepath.Base(h.Path), "session-") {
			t.Fatalf("history name %s", h.Path)
		}
	}
	if len(pruned) != 2 {
		t.Fatalf("pruned %v", pruned)
	}
	// Without Rotate the previous current is replaced.
	if _, err := s.SaveCurrent(testPayload(9), Meta{}, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if hs2, _ := s.History(); len(hs2) != 2 {
		t.Fatalf("save without rotate changed history: %v", hs2)
	}
	// A failing writer changes nothing.
	boom := errors.New("boom")
	if _, err := s.SaveCurrentFunc(func(w io.Writer) error { w.Write([]byte("partial")); return boom }, Meta{}, SaveOptions{Rotate: true}); !errors.Is(err, boom) {
		t.Fatalf("failing writer: %v", err)
	}
	if n, err := verifyPayload(s.CurrentPath()); n != 9 || err != nil {
		t.Fatalf("failed save changed current: %d %v", n, err)
	}
	if m, err := s.ReadMeta(); err != nil || m.SizeBytes != int64(len(testPayload(9))) {
		t.Fatalf("failed save changed meta: %+v %v", m, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.Root(), TempPrefix+"*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestCheckpoints(t *testing.T) {
	e := newEnv(t)
	s := e.open(t, Options{})
	if _, err := writeCheckpoint(s, nil); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("without lock: %v", err)
	}
	unlock := lock(t, s)
	defer unlock()
	var pruned []string
	for i := 1; i <= 5; i++ {
		res, err := writeCheckpoint(s, testPayload(i))
		if err != nil || res.N != i || res.Path != s.CheckpointPath(i) {
			t.Fatalf("checkpoint %d: %+v %v", i, res, err)
		}
		pruned = append(pruned, res.Pruned...)
	}
	cps, _ := s.Checkpoints()
	if len(cps) != CheckpointKeep || cps[0].N != 3 || cps[2].N != 5 || len(pruned) != 2 {
		t.Fatalf("checkpoints %v, pruned %v", cps, pruned)
	}
	// Age rule: cp-003 and cp-004 older than checkpoint_retention_days.
	old := time.Now().Add(-8 * 24 * time.Hour)
	os.Chtimes(cps[0].Path, old, old)
	os.Chtimes(cps[1].Path, old, old)
	res, err := writeCheckpoint(s, testPayload(6))
	if err != nil || res.N != 6 || len(res.Pruned) != 2 {
		t.Fatalf("checkpoint 6: %+v %v", res, err)
	}
	cps, _ = s.Checkpoints()
	if len(cps) != 2 || cps[0].N != 5 || cps[1].N != 6 {
		t.Fatalf("after age pruning: %v", cps)
	}
	// Prune never removes the newest, however old.
	os.Chtimes(cps[0].Path, old, old)
	os.Chtimes(cps[1].Path, old, old)
	p, err := s.Prune()
	if err != nil || len(p) != 1 || p[0] != cps[0].Path {
		t.Fatalf("Prune: %v %v", p, err)
	}
	// Files that are not checkpoints are ignored.
	os.WriteFile(filepath.Join(s.CheckpointsDir(), "cp-abc.ctx"), nil, 0o600)
	os.WriteFile(filepath.Join(s.CheckpointsDir(), "notes.txt"), nil, 0o600)
	if cps, _ := s.Checkpoints(); len(cps) != 1 {
		t.Fatalf("checkpoints %v", cps)
	}
}

func TestRecover(t *testing.T) {
	now := time.Date(2026, 1, 27, 15, 0, 0, 0, time.UTC)
	type file struct {
		kind  string // current, cp, hist
		n     int    // payload index; negative: damaged
		ago   time.Duration
		count int // checkpoint number
	}
	tests := []struct {
		name        string
		files       []file
		verifyWrap  error // wraps verify failures
		readOnly    bool
		wantN       int
		wantKind    string
		wantAge     time.Duration
		quarantined int
		wantErr     error
	}{
		{"current valid", []file{{"current", 1, time.Minute, 0}, {"cp", 2, 0, 1}}, nil, false, 1, KindCurrent, time.Minute, 0, nil},
		{"current damaged, checkpoint", []file{{"current", -1, time.Minute, 0}, {"cp", 2, 15 * time.Minute, 1}, {"hist", 3, time.Hour, 0}}, nil, false, 2, KindCheckpoint, 15 * time.Minute, 1, nil},
		{"newest checkpoint damaged", []file{{"current", -1, time.Minute, 0}, {"cp", 2, 30 * time.Minute, 1}, {"cp", -3, 15 * time.Minute, 2}}, nil, false, 2, KindCheckpoint, 30 * time.Minute, 2, nil},
		{"fall back to history", []file{{"current", -1, time.Minute, 0}, {"cp", -2, 15 * time.Minute, 1}, {"hist", 3, 2 * time.Hour, 0}}, nil, false, 3, KindHistory, 2 * time.Hour, 2, nil},
		{"history newer than checkpoints", []file{{"cp", 2, 3 * time.Hour, 1}, {"hist", 3, time.Hour, 0}}, nil, false, 3, KindHistory, time.Hour, 0, nil},
		{"nothing valid", []file{{"current", -1, time.Minute, 0}, {"cp", -2, time.Hour, 1}, {"hist", -3, 2 * time.Hour, 0}}, nil, false, 0, "", 0, 3, ErrNoValidContext},
		{"empty store", nil, nil, false, 0, "", 0, 0, ErrNoValidContext},
		{"not known damaged", []file{{"current", -1, time.Minute, 0}, {"hist", 3, time.Hour, 0}}, ErrNotCorrupt, false, 3, KindHistory, time.Hour, 0, nil},
		{"read-only store", []file{{"current", -1, time.Minute, 0}, {"hist", 3, time.Hour, 0}}, nil, true, 3, KindHistory, time.Hour, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.open(t, Options{Now: func() time.Time { return now }})
			for _, f := range tt.files {
				var p string
				switch f.kind {
				case "current":
					p = s.CurrentPath()
					os.WriteFile(s.MetaPath(), []byte("{}"), 0o600)
				case "cp":
					s.EnsureDir(s.CheckpointsDir())
					p = s.CheckpointPath(f.count)
				case "hist":
					s.EnsureDir(s.HistoryDir())
					p = s.HistoryPath(now.Add(-f.ago))
				}
				data := testPayload(max(f.n, -f.n))
				if f.n < 0 {
					data[len(data)/2] ^= 0x40
				}
				if err := os.WriteFile(p, data, 0o600); err != nil {
					t.Fatal(err)
				}
				mt := now.Add(-f.ago)
				os.Chtimes(p, mt, mt)
			}
			if tt.readOnly {
				s = e.open(t, Options{ReadOnly: true, Now: func() time.Time { return now }})
			}
			verify := func(p string) error {
				_, err := verifyPayload(p)
				if err != nil && tt.verifyWrap != nil {
					return fmt.Errorf("%w: %v", tt.verifyWrap, err)
				}
				return err
			}
			r, err := s.Recover(verify)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				n, _ := verifyPayload(r.Path)
				if n != tt.wantN || r.Kind != tt.wantKind || r.Age != tt.wantAge {
					t.Fatalf("got state %d kind %s age %v; want %d %s %v", n, r.Kind, r.Age, tt.wantN, tt.wantKind, tt.wantAge)
				}
			}
			if len(r.Quarantined) != tt.quarantined {
				t.Fatalf("quarantined %v, want %d", r.Quarantined, tt.quarantined)
			}
			damaged := 0
			for _, f := range tt.files {
				if f.n < 0 {
					damaged++
				}
			}
			if len(r.Skipped) != damaged {
				t.Fatalf("skipped %v, want %d", r.Skipped, damaged)
			}
			// Quarantined files keep their bytes (and current's meta).
			for _, q := range r.Quarantined {
				if _, err := verifyPayload(q); !errors.Is(err, errDamaged) {
					t.Fatalf("quarantined %s: %v", q, err)
				}
				if strings.Contains(filepath.Base(q), KindCurrent+"-") {
					if _, err := os.Stat(q + ".meta"); err != nil {
						t.Fatalf("current's meta not moved with it: %v", err)
					}
				}
			}
			if s.Locked() {
				t.Fatal("Recover left the lock held")
			}
		})
	}
}

func TestStorageLimits(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.MaxStorageMB = 1
	s := e.open(t, Options{Config: cfg})
	unlock := lock(t, s)
	defer unlock()
	big := make([]byte, 600<<10)
	copy(big, "first")
	if _, err := s.SaveCurrent(big, Meta{}, SaveOptions{Rotate: true}); err != nil {
		t.Fatal(err)
	}
	second := append([]byte("second"), big[6:]...)
	_, err := s.SaveCurrent(second, Meta{}, SaveOptions{Rotate: true})
	var se *StorageLimitError
	if !errors.Is(err, ErrStorageLimit) || !errors.As(err, &se) {
		t.Fatalf("over the limit: %v", err)
	}
	if se.Area != "context" || se.LimitBytes != 1<<20 || se.AddBytes != int64(len(second)) || len(se.Options) != 4 ||
		!strings.Contains(se.Error(), "[P] Prune") {
		t.Fatalf("StorageLimitError %+v: %v", se, se)
	}
	b, _ := os.ReadFile(s.CurrentPath())
	if string(b[:5]) != "first" {
		t.Fatal("a refused save changed current.ctx")
	}
	if hs, _ := s.History(); len(hs) != 0 {
		t.Fatalf("a refused save rotated: %v", hs)
	}

	// Warning at 50 MB (sparse files cost no disk).
	cfg2 := DefaultConfig()
	s2 := newEnv(t).open(t, Options{Config: cfg2})
	u2 := lock(t, s2)
	defer u2()
	s2.EnsureDir(s2.ExportsDir())
	sparse := filepath.Join(s2.ExportsDir(), "big.ctxpkg")
	f, _ := os.Create(sparse)
	f.Truncate(60 << 20)
	f.Close()
	s2.SaveCurrent([]byte("a"), Meta{}, SaveOptions{})
	res, err := s2.SaveCurrent([]byte("b"), Meta{}, SaveOptions{Rotate: true})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "50.0 MiB") {
		t.Fatalf("warning expected: %+v %v", res.Warnings, err)
	}
	u, err := s2.Usage()
	if err != nil || u.Exports != 60<<20 || u.Current == 0 || u.History == 0 || u.Context < 60<<20 || u.Snapshots != 0 {
		t.Fatalf("usage %+v %v", u, err)
	}

}

// writeCheckpoint writes data as the next checkpoint.
func writeCheckpoint(s *Store, data []byte) (CheckpointResult, error) {
	return s.WriteCheckpointFunc(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
