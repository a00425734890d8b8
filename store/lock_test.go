package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"testing"
	"time"
)

// TestConcurrentProcesses: 16 processes take the store lock at once and
// each appends an entry to a JSON index with read-modify-write: all 16
// entries must be there and the file must be valid.
func TestConcurrentProcesses(t *testing.T) {
	const procs = 16
	e := newEnv(t)
	e.open(t, Options{})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(300 * time.Millisecond).UnixNano()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		c := exec.Command(exe, "-test.run=^$")
		c.Env = childCommandEnv("append", "STORE_PROJECT="+e.project, "STORE_HOME="+e.home,
			"STORE_ID=p"+strconv.Itoa(i), "STORE_AT="+strconv.FormatInt(at, 10))
		outs[i] = &bytes.Buffer{}
		c.Stdout, c.Stderr = outs[i], outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = c
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v: %s", i, err, outs[i])
		}
	}
	s := e.open(t, Options{})
	data, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Entries []string `json:"entries"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatalf("index.json is not valid JSON: %v\n%s", err, data)
	}
	sort.Strings(idx.Entries)
	if len(idx.Entries) != procs {
		t.Fatalf("%d entries, want %d: %v", len(idx.Entries), procs, idx.Entries)
	}
	seen := map[string]bool{}
	for _, id := range idx.Entries {
		if seen[id] {
			t.Fatalf("duplicate entry %s", id)
		}
		seen[id] = true
	}
	if fi, err := os.Stat(s.IndexPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("index.json mode: %v %v", fi.Mode(), err)
	}
}

// TestLockTimeoutPendingMerge: a writer that cannot get the lock in time
// writes a pending file; the next locked operation merges it.
func TestLockTimeoutPendingMerge(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.LockTimeout = 50 * time.Millisecond
	holder := e.open(t, Options{Config: cfg, Session: "holder-session"})
	writer := e.open(t, Options{Config: cfg, Session: "writer"})
	unlock := lock(t, holder)

	start := time.Now()
	_, err := writer.Lock(context.Background())
	waited := time.Since(start)
	var lte *LockTimeoutError
	if !errors.Is(err, ErrLockTimeout) || !errors.As(err, &lte) {
		t.Fatalf("Lock while held: %v, want ErrLockTimeout", err)
	}
	if lte.Holder.PID != os.Getpid() || lte.Holder.Session != "holder-session" {
		t.Fatalf("holder record %+v", lte.Holder)
	}
	if waited < cfg.LockTimeout {
		t.Fatalf("gave up after %v, before the %v timeout", waited, cfg.LockTimeout)
	}
	want := [][]byte{[]byte("snapshot one"), []byte("snapshot two")}
	for _, d := range want {
		if _, err := writer.WritePending("snapshot", "sess/ion-1", d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writer.WritePending("bad-kind", "s", nil); err == nil {
		t.Fatal("WritePending accepted a kind with '-'")
	}
	if _, err := writer.TakePending(); !errors.Is(err, ErrNotLocked) {
		t.Fatalf("TakePending without the lock: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatalf("second unlock: %v", err)
	}

	// The next locked operation merges.
	var merged [][]byte
	err = writer.WithLock(context.Background(), func() error {
		ps, err := writer.TakePending()
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.Kind != "snapshot" || p.Session != "sess_ion-1" || p.PID != os.Getpid() {
				t.Errorf("pending %+v", p)
			}
			d, err := writer.ReadPending(p)
			if err != nil {
				return err
			}
			merged = append(merged, d)
			if err := writer.DonePending(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != 2 || !bytes.Equal(merged[0], want[0]) || !bytes.Equal(merged[1], want[1]) {
		t.Fatalf("merged %q, want %q in order", merged, want)
	}
	err = writer.WithLock(context.Background(), func() error {
		ps, err := writer.TakePending()
		if len(ps) != 0 {
			t.Errorf("pending left after merge: %+v", ps)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(writer.LockPath()); err != nil || fi.Size() != 0 {
		t.Fatalf("lock file should be empty when unlocked: %v %v", fi, err)
	}
}

// TestLockInProcess: two goroutines using one Store are serialized, and
// context cancellation is honoured.
func TestLockInProcess(t *testing.T) {
	e := newEnv(t)
	cfg := DefaultConfig()
	cfg.LockTimeout = 5 * time.Second
	s := e.open(t, Options{Config: cfg})
	unlock := lock(t, s)
	if !s.Locked() {
		t.Fatal("Locked() false while held")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	var lte *LockTimeoutError
	if _, err := s.Lock(ctx); !errors.As(err, &lte) || lte.Holder.PID != os.Getpid() {
		t.Fatalf("Lock with expiring context: %v, want a LockTimeoutError naming this process", err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := s.Lock(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with cancelled context: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := s.Lock(context.Background())
		if err == nil {
			err = u()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("second Lock after release: %v", err)
	}
	if s.Locked() {
		t.Fatal("Locked() true after release")
	}
}

func TestParsePendingName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want Pending
	}{
		{"snapshot-abc-def-100-42.pending", true, Pending{Kind: "snapshot", Session: "abc-def", Created: time.Unix(0, 100).UTC(), PID: 42}},
		{"checkpoint-none-5-1.pending", true, Pending{Kind: "checkpoint", Session: "none", Created: time.Unix(0, 5).UTC(), PID: 1}},
		{".ben10-tmp-snapshot-a-1-2.pending-xx", false, Pending{}},
		{"snapshot-a-1-2.ctx", false, Pending{}},
		{"snapshot-1-2.pending", false, Pending{}},
		{"snapshot-a-x-2.pending", false, Pending{}},
		{"-a-1-2.pending", false, Pending{}},
	}
	for _, tt := range tests {
		p, ok := parsePendingName(tt.name)
		if ok != tt.ok || (ok && (p.Kind != tt.want.Kind || p.Session != tt.want.Session || !p.Created.Equal(tt.want.Created) || p.PID != tt.want.PID)) {
			t.Errorf("parsePendingName(%q) = %+v, %v; want %+v, %v", tt.name, p, ok, tt.want, tt.ok)
		}
	}
}
