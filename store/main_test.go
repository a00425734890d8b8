package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// childEnv selects a child-process role when the test binary re-executes
// itself (see TestMain).
const childEnv = "BEN10_STORE_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	os.Exit(m.Run())
}

// runChild runs one child role and returns its exit code.
func runChild(role string) int {
	var err error
	switch role {
	case "saver":
		err = childSaver()
	case "append":
		err = childAppend()
	case "holdstale":
		err = childHoldStale()
	case "exit":
		return 0
	default:
		err = fmt.Errorf("unknown child role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	return 0
}

// childCommandEnv returns the environment for a child role.
func childCommandEnv(role string, extra ...string) []string {
	return append(append(os.Environ(), childEnv+"="+role), extra...)
}

// testPayload builds a self-verifying payload for state idx: an 8-byte
// magic, the index, a body whose length depends on idx, and the SHA-256 of
// everything before it.
func testPayload(idx int) []byte {
	size := 1024 + (idx*7919)%(192<<10)
	var b bytes.Buffer
	b.WriteString("B10TEST\x00")
	binary.Write(&b, binary.LittleEndian, uint64(idx))
	body := make([]byte, size)
	for i := range body {
		body[i] = byte(idx*31 + i*7)
	}
	b.Write(body)
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

var errDamaged = errors.New("payload damaged")

// verifyPayload checks a payload file and returns its index.
func verifyPayload(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(data) < 16+32 || string(data[:8]) != "B10TEST\x00" {
		return 0, fmt.Errorf("%s: %w: bad header (%d bytes)", path, errDamaged, len(data))
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	want := sha256.Sum256(body)
	if !bytes.Equal(sum, want[:]) {
		return 0, fmt.Errorf("%s: %w: checksum mismatch", path, errDamaged)
	}
	return int(binary.LittleEndian.Uint64(data[8:16])), nil
}

func verifyFunc(path string) error {
	_, err := verifyPayload(path)
	return err
}

// testEnv is a temporary project and home.
type testEnv struct {
	project, home string
}

func newEnv(t *testing.T) testEnv {
	t.Helper()
	base := t.TempDir()
	e := testEnv{project: filepath.Join(base, "project"), home: filepath.Join(base, "home")}
	for _, d := range []string{e.project, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e testEnv) open(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Home == "" {
		opts.Home = e.home
	}
	s, err := Open(e.project, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func lock(t *testing.T, s *Store) func() error {
	t.Helper()
	u, err := s.Lock(context.Background())
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	return u
}

// childSaver saves states START, START+1, … into the project's store until
// killed, rotating every ROTATE-th save into history. Before and after each
// save it writes "B idx" / "D idx" to stdout with a single write(2), so the
// parent knows which states may be on disk when it kills the process.
func childSaver() error {
	project := os.Getenv("STORE_PROJECT")
	start, _ := strconv.Atoi(os.Getenv("STORE_START"))
	rotate, _ := strconv.Atoi(os.Getenv("STORE_ROTATE"))
	cfg := DefaultConfig()
	cfg.HistoryRetentionCount = 3
	cfg.MaxStorageMB = 1 << 10
	s, err := Open(project, Options{Home: os.Getenv("STORE_HOME"), Config: cfg})
	if err != nil {
		return err
	}
	for i := start; ; i++ {
		if _, err := fmt.Fprintf(os.Stdout, "B %d\n", i); err != nil {
			return err
		}
		unlock, err := s.Lock(context.Background())
		if err != nil {
			return err
		}
		_, err = s.SaveCurrent(testPayload(i), Meta{SessionID: "crash"}, SaveOptions{Rotate: rotate > 0 && i%rotate == 0})
		unlock()
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(os.Stdout, "D %d\n", i); err != nil {
			return err
		}
	}
}

// childAppend takes the store lock and appends one entry (its id) to a JSON
// index file with a read-modify-write and an atomic replace.
func childAppend() error {
	project := os.Getenv("STORE_PROJECT")
	id := os.Getenv("STORE_ID")
	if at, err := strconv.ParseInt(os.Getenv("STORE_AT"), 10, 64); err == nil {
		time.Sleep(time.Until(time.Unix(0, at)))
	}
	cfg := DefaultConfig()
	cfg.LockTimeout = time.Minute
	s, err := Open(project, Options{Home: os.Getenv("STORE_HOME"), Config: cfg})
	if err != nil {
		return err
	}
	return s.WithLock(context.Background(), func() error {
		var idx struct {
			Entries []string `json:"entries"`
		}
		data, err := os.ReadFile(s.IndexPath())
		switch {
		case err == nil:
			if err := json.Unmarshal(data, &idx); err != nil {
				return fmt.Errorf("index damaged: %w", err)
			}
		case errors.Is(err, os.ErrNotExist):
		default:
			return err
		}
		idx.Entries = append(idx.Entries, id)
		out, err := json.Marshal(idx)
		if err != nil {
			return err
		}
		if err := s.EnsureDir(s.SnapshotDir()); err != nil {
			return err
		}
		// Widen the race window: a lost update would show.
		time.Sleep(2 * time.Millisecond)
		return WriteFileAtomic(s.IndexPath(), out)
	})
}

// childHoldStale locks the store's lock file directly, records a holder
// that does not exist (STORE_DEADPID), reports "locked" and sleeps: it
// plays a process that inherited a locked descriptor from a dead holder.
func childHoldStale() error {
	path := os.Getenv("STORE_LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	ok, err := tryLockFile(f)
	if err != nil || !ok {
		return fmt.Errorf("could not lock %s: %v", path, err)
	}
	pid, _ := strconv.Atoi(os.Getenv("STORE_DEADPID"))
	host, _ := os.Hostname()
	data, _ := json.Marshal(LockHolder{PID: pid, Host: host, Since: time.Now().UTC()})
	// Replace the record as Lock does: a shorter record written over the
	// previous subtest's longer one would leave trailing bytes that make the
	// record unreadable (and the lock not stale-looking) — a test flake.
	if err := f.Truncate(0); err != nil {
		return err
	}
	f.WriteAt(data, 0)
	fmt.Fprintln(os.Stdout, "locked")
	time.Sleep(time.Minute)
	return nil
}
