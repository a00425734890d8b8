package snapshot

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

// TestHelperCreate is not a test: the concurrency test re-executes the test
// binary with BEN10_SNAPSHOT_HELPER set, and this function then takes one
// snapshot in the child process and exits.
func TestHelperCreate(t *testing.T) {
	project := os.Getenv("BEN10_SNAPSHOT_HELPER")
	if project == "" {
		t.Skip("helper process only")
	}
	st, err := store.Open(project, store.Options{Home: os.Getenv("BEN10_SNAPSHOT_HOME")})
	if err == nil {
		var r *CreateResult
		r, err = NewManager(st, nil).Create(CreateOptions{
			TranscriptPath: os.Getenv("BEN10_SNAPSHOT_TRANSCRIPT"),
			SessionID:      os.Getenv("BEN10_SNAPSHOT_SESSION"),
			Trigger:        "auto", Source: "hook", Force: true, Level: ctxfmt.LevelFastest,
		})
		if err == nil {
			fmt.Printf("pending=%v id=%s\n", r.Pending, r.Snapshot.ID)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestConcurrent16Processes: 16 processes snapshot the same project at once.
// Every snapshot must end up in index.json (directly, or through a pending
// file merged by the next locked operation) and every file must verify.
func TestConcurrent16Processes(t *testing.T) {
	const n = 16
	e := newEnv(t, "context:\n  compaction_snapshots:\n    retention_count: 100\n")
	tr := fixture(t, t.TempDir(), 0)
	var wg sync.WaitGroup
	outs := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperCreate$", "-test.count=1")
			cmd.Env = append(os.Environ(),
				"BEN10_SNAPSHOT_HELPER="+e.project, "BEN10_SNAPSHOT_HOME="+e.home,
				"BEN10_SNAPSHOT_TRANSCRIPT="+tr, fmt.Sprintf("BEN10_SNAPSHOT_SESSION=%02x000000-%d", i, i))
			<-start
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}(i)
	}
	close(start)
	wg.Wait()
	pending := 0
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
		if strings.Contains(outs[i], "pending=true") {
			pending++
		}
	}
	t.Logf("%d of %d snapshots went through a pending file", pending, n)
	if err := e.m.Sync(time.Time{}); err != nil {
		t.Fatal(err)
	}
	ix, err := e.m.Index()
	if err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(ix.Snapshots) != n {
		t.Fatalf("%d index entries, want %d; warnings %v", len(ix.Snapshots), n, e.m.Warnings())
	}
	sessions := map[string]bool{}
	for _, s := range ix.Snapshots {
		sessions[s.SessionID] = true
		if err := e.m.Verify(s.ID); err != nil {
			t.Errorf("snapshot %s: %v", s.ID, err)
		}
	}
	if len(sessions) != n {
		t.Fatalf("%d distinct sessions, want %d", len(sessions), n)
	}
	files, _ := filepath.Glob(filepath.Join(e.st.SnapshotDir(), "*.ctx"))
	if len(files) != n {
		t.Fatalf("%d snapshot files, want %d: %v", len(files), n, files)
	}
}

// TestRetentionProperty runs random sequences of create, pin, unpin and
// prune on a real store and compares the surviving snapshots after every
// step with a simple model of the policy (pinned never pruned; unpinned
// older than retention_days go; then the oldest unpinned until the count
// and the size fit; a just-created snapshot is never pruned), and checks
// that index.json, .pinned and the files agree.
func TestRetentionProperty(t *testing.T) {
	seeds := 6
	steps := 25
	if testing.Short() {
		seeds, steps = 2, 12
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			count := 2 + rng.Intn(4)
			days := 1 + rng.Intn(3)
			e := newEnv(t, fmt.Sprintf("context:\n  compaction_snapshots:\n    retention_count: %d\n    retention_days: %d\n", count, days))
			tr := fixture(t, t.TempDir(), 0)
			clock := time.Now().UTC().Truncate(time.Second).Add(-30 * 24 * time.Hour)
			e.m.clock = func() time.Time { return clock }
			type entry struct {
				id      string
				created time.Time
				pinned  bool
			}
			var model []entry
			prune := func(keep string) {
				var kept []entry
				for _, s := range model {
					if s.pinned || s.id == keep || clock.Sub(s.created) <= time.Duration(days)*24*time.Hour {
						kept = append(kept, s)
					}
				}
				model = kept
				for len(model) > count {
					i := 0
					for i < len(model) && (model[i].pinned || model[i].id == keep) {
						i++
					}
					if i == len(model) {
						break
					}
					model = append(model[:i], model[i+1:]...)
				}
			}
			for step := 0; step < steps; step++ {
				clock = clock.Add(time.Duration(rng.Intn(36*60)) * time.Minute)
				switch op := rng.Intn(10); {
				case op < 5 || len(model) == 0:
					r, err := e.m.Create(CreateOptions{TranscriptPath: tr, Force: true, Level: ctxfmt.LevelFastest})
					if err != nil {
						t.Fatal(err)
					}
					model = append(model, entry{id: r.Snapshot.ID, created: r.Snapshot.CreatedAt})
					prune(r.Snapshot.ID)
				case op < 7:
					i := rng.Intn(len(model))
					if err := e.m.Pin(ShortID(model[i].id), true); err != nil {
						t.Fatal(err)
					}
					model[i].pinned = true
					prune("")
				case op < 9:
					i := rng.Intn(len(model))
					if err := e.m.Pin(model[i].id, false); err != nil {
						t.Fatal(err)
					}
					model[i].pinned = false
					prune("")
				default:
					if _, err := e.m.Prune(time.Time{}); err != nil {
						t.Fatal(err)
					}
					prune("")
				}
				ix, err := e.m.Index()
				if err != nil {
					t.Fatal(err)
				}
				var got, want, pinnedIdx []string
				for _, s := range ix.Snapshots {
					got = append(got, fmt.Sprintf("%s/%v", s.ID, s.Pinned))
					if s.Pinned {
						pinnedIdx = append(pinnedIdx, s.ID)
					}
				}
				for _, s := range model {
					want = append(want, fmt.Sprintf("%s/%v", s.id, s.pinned))
				}
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Fatalf("step %d: store %v, model %v", step, got, want)
				}
				files, _ := filepath.Glob(filepath.Join(e.st.SnapshotDir(), "pre-compact-*.ctx"))
				if len(files) != len(ix.Snapshots) {
					t.Fatalf("step %d: %d files for %d entries", step, len(files), len(ix.Snapshots))
				}
				sort.Strings(pinnedIdx)
				pf := e.m.readPinned()
				sort.Strings(pf)
				if strings.Join(pf, " ") != strings.Join(pinnedIdx, " ") {
					t.Fatalf("step %d: .pinned %v, index %v", step, pf, pinnedIdx)
				}
			}
		})
	}
}

// TestMakeBenchStore is not a test: scripts/bench-snapshot.sh runs it with
// BEN10_BENCH_STORE=<project dir> to fill a store with
// BEN10_BENCH_SNAPSHOTS (default 500) real snapshots for the CLI timings.
func TestMakeBenchStore(t *testing.T) {
	project := os.Getenv("BEN10_BENCH_STORE")
	if project == "" {
		t.Skip("benchmark setup only")
	}
	n := 500
	fmt.Sscan(os.Getenv("BEN10_BENCH_SNAPSHOTS"), &n)
	if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("context:\n  compaction_snapshots:\n    retention_count: %d\n    retention_days: 3650\n    max_storage_mb: 10000\n", n+10)
	if err := os.WriteFile(store.ProjectConfigPath(project), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(project, store.Options{Home: os.Getenv("HOME")})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(st, nil)
	tr := fixture(t, t.TempDir(), 0)
	base := time.Now().UTC().Add(-time.Duration(n) * time.Hour)
	for i := 0; i < n; i++ {
		if _, err := m.Create(CreateOptions{TranscriptPath: tr, SessionID: fmt.Sprintf("%06x-bench", i), Force: true,
			Level: ctxfmt.LevelFastest, Now: base.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
}
