package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

// checkCache asserts that the listing cache is current and shows exactly
// what index.json shows: the same table bytes (plain and verbose) and the
// same JSON.
func checkCache(t *testing.T, m *Manager, what string) {
	t.Helper()
	ix, err := m.Index()
	if err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		want := NewListTable(ix, verbose)
		got, err := m.CachedListTable(verbose)
		if err != nil {
			t.Fatalf("%s: CachedListTable(%v): %v", what, verbose, err)
		}
		if got.Count != want.Count || got.TotalBytes != want.TotalBytes || got.Count != len(ix.Snapshots) {
			t.Fatalf("%s: cache says %d snapshots, %d bytes; index %d, %d", what, got.Count, got.TotalBytes, want.Count, want.TotalBytes)
		}
		if g, w := got.AppendTo(nil), want.AppendTo(nil); !bytes.Equal(g, w) {
			t.Fatalf("%s: cached table (verbose %v) differs:\n%s\nwant:\n%s", what, verbose, g, w)
		}
	}
	js, err := m.CachedListJSON()
	if err != nil {
		t.Fatalf("%s: CachedListJSON: %v", what, err)
	}
	if want := MarshalListJSON(ix); !bytes.Equal(js, want) {
		t.Fatalf("%s: cached JSON differs:\n%s\nwant:\n%s", what, js, want)
	}
}

// TestListCacheProperty runs random sequences of the operations that write
// index.json and checks after each that the cache renders what the index
// renders, byte for byte in JSON.
func TestListCacheProperty(t *testing.T) {
	seeds, steps := 4, 30
	if testing.Short() {
		seeds, steps = 2, 15
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			e := newEnv(t, "context:\n  lock_timeout: 50ms\n  compaction_snapshots:\n    retention_count: 6\n    retention_days: 3\n")
			other, err := store.Open(e.project, store.Options{Home: e.home})
			if err != nil {
				t.Fatal(err)
			}
			tr := fixture(t, t.TempDir(), 0)
			clock := time.Now().UTC().Truncate(time.Second).Add(-30 * 24 * time.Hour)
			e.m.clock = func() time.Time { return clock }
			// Few sessions sharing prefixes: handles switch between the
			// session suffix and the timestamp form as entries come and go.
			sessions := []string{"aaaaaa-1", "aaaaaa-2", "bbbbbb-1", "cccccc-1"}
			ids := func() []string {
				ix, err := e.m.Index()
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, s := range ix.Snapshots {
					out = append(out, s.ID)
				}
				return out
			}
			pick := func() (string, bool) {
				all := ids()
				if len(all) == 0 {
					return "", false
				}
				return all[rng.Intn(len(all))], true
			}
			for step := 0; step < steps; step++ {
				if rng.Intn(3) > 0 { // same-second snapshots get -2 ids
					clock = clock.Add(time.Duration(rng.Intn(30*60)) * time.Minute)
				}
				op := rng.Intn(13)
				id, ok := pick()
				if !ok {
					op = 0
				}
				var what string
				var err error
				switch op {
				case 0, 1, 2:
					what = "create"
					_, err = e.m.Create(CreateOptions{TranscriptPath: tr, SessionID: sessions[rng.Intn(len(sessions))], Force: rng.Intn(2) == 0,
						Trigger: []string{"auto", "manual"}[rng.Intn(2)], Level: ctxfmt.LevelFastest, Now: clock})
				case 3:
					what = "pin"
					err = e.m.Pin(id, true)
				case 4:
					what = "unpin"
					err = e.m.Pin(id, false)
				case 5:
					what = "delete"
					err = e.m.Delete(id)
				case 6:
					what = "prune"
					_, err = e.m.Prune(clock)
				case 7:
					what = "annotate"
					err = e.m.Annotate(id, []string{fmt.Sprint("t", step)}, "")
				case 8:
					what = "update post"
					err = e.m.UpdatePost(id, PostCompaction{TokenCount: rng.Int63n(1e6), MessageCount: rng.Intn(100)})
				case 9:
					what = "repair a vanished file"
					ix, _ := e.m.Index()
					i, _ := ix.Resolve(id)
					os.Remove(e.m.Path(ix.Snapshots[i]))
					err = e.m.Sync(clock)
				case 10:
					what = "rebuild a damaged index.json"
					os.WriteFile(e.st.IndexPath(), []byte("{damaged"), 0o600)
					if _, cerr := e.m.CachedListTable(false); !errors.Is(cerr, ErrNoListCache) {
						t.Fatalf("step %d: the cache of the old index was trusted after index.json changed: %v", step, cerr)
					}
					err = e.m.Sync(clock)
				case 11:
					what = "pending snapshot merged"
					unlock, lerr := other.Lock(context.Background())
					if lerr != nil {
						t.Fatal(lerr)
					}
					r, cerr := e.m.Create(CreateOptions{TranscriptPath: tr, SessionID: "dddddd-1", Force: true, Level: ctxfmt.LevelFastest, Now: clock})
					unlock()
					if cerr != nil || !r.Pending {
						t.Fatalf("step %d: lock busy, snapshot not pending: %+v %v", step, r, cerr)
					}
					checkCache(t, e.m, fmt.Sprintf("step %d (pending, not merged yet)", step))
					err = e.m.Sync(clock)
				case 12:
					what = "annotate"
					err = e.m.Annotate(id, []string{"t<&>", "x"}, "notes with \"quotes\" and <html>")
				}
				if err != nil {
					t.Fatalf("step %d %s: %v", step, what, err)
				}
				checkCache(t, e.m, fmt.Sprintf("step %d (%s)", step, what))
			}
		})
	}
}

// TestListCacheFallback: a missing, stale or damaged cache is refused, so
// the caller reads index.json.
func TestListCacheFallback(t *testing.T) {
	e := newEnv(t, "")
	now := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	for i := 0; i < 3; i++ {
		e.create(t, CreateOptions{Now: now.Add(time.Duration(i) * time.Hour), Force: true})
	}
	checkCache(t, e.m, "after create")
	if l, _ := e.m.CachedListTable(false); l.Count != 3 || len(l.Lines) != 3 {
		t.Fatalf("%d snapshots listed, want 3", l.Count)
	}
	cache := filepath.Join(e.st.SnapshotDir(), ListCacheName)
	good, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(e.st.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string) {
		t.Helper()
		for _, verbose := range []bool{false, true} {
			if _, err := e.m.CachedListTable(verbose); !errors.Is(err, ErrNoListCache) {
				t.Fatalf("%s: CachedListTable(%v) accepted it (%v)", what, verbose, err)
			}
		}
		if _, err := e.m.CachedListJSON(); !errors.Is(err, ErrNoListCache) {
			t.Fatalf("%s: CachedListJSON accepted it (%v)", what, err)
		}
	}
	restore := func() {
		t.Helper()
		if err := os.WriteFile(cache, good, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := e.m.CachedListTable(false); err != nil {
			t.Fatalf("restored cache refused: %v", err)
		}
	}
	os.Remove(cache)
	refused("missing")
	restore()

	// index.json replaced, even by the same bytes (a new file), or
	// rewritten in place with another modification time.
	tmp := e.st.IndexPath() + ".tmp"
	os.WriteFile(tmp, index, 0o600)
	os.Rename(tmp, e.st.IndexPath())
	refused("index.json replaced")
	if err := e.m.Sync(time.Time{}); err != nil {
		t.Fatal(err)
	}
	checkCache(t, e.m, "after Sync")
	good, _ = os.ReadFile(cache)
	fi, _ := os.Stat(e.st.IndexPath())
	os.Chtimes(e.st.IndexPath(), fi.ModTime(), fi.ModTime().Add(time.Second))
	refused("index.json touched")
	os.Chtimes(e.st.IndexPath(), fi.ModTime(), fi.ModTime())
	restore()

	nl := bytes.IndexByte(good, '\n')
	for name, data := range map[string][]byte{
		"empty":         {},
		"header only":   good[:nl+1],
		"truncated":     good[:len(good)-10],
		"longer":        append(append([]byte{}, good...), '\n'),
		"other version": append([]byte("ben10-list 1"), good[len(listCacheMagic):]...),
		"garbage":       bytes.Repeat([]byte{0xff}, len(good)),
	} {
		os.WriteFile(cache, data, 0o600)
		refused(name)
	}
	// Damage inside one section (same length) is caught by its hash; the
	// other section stays usable.
	// A digit of the first snapshot's line in the plain table (the
	// section right after the header) changed.
	row := bytes.IndexByte(good[nl+1:], '\n') + nl + 2
	damaged := append([]byte{}, good...)
	damaged[row] = '0' + (damaged[row]-'0'+1)%10
	os.WriteFile(cache, damaged, 0o600)
	if _, err := e.m.CachedListTable(false); !errors.Is(err, ErrNoListCache) {
		t.Fatalf("damaged row accepted (%v)", err)
	}
	if _, err := e.m.CachedListTable(true); err != nil {
		t.Fatalf("verbose table refused for a damaged plain row: %v", err)
	}
	if _, err := e.m.CachedListJSON(); err != nil {
		t.Fatalf("JSON refused for a damaged row: %v", err)
	}
	os.WriteFile(cache, bytes.Replace(good, []byte(`"pinned": false`), []byte(`"pinned": fals3`), 1), 0o600)
	if _, err := e.m.CachedListJSON(); !errors.Is(err, ErrNoListCache) {
		t.Fatalf("damaged JSON accepted (%v)", err)
	}
	if _, err := e.m.CachedListTable(false); err != nil {
		t.Fatalf("table refused for damaged JSON: %v", err)
	}
	restore()
	checkCache(t, e.m, "restored")
}

// BenchmarkCachedListTable500 is what `compaction list` pays with the cache
// (compare BenchmarkParseIndex500).
func BenchmarkCachedListTable500(b *testing.B) {
	_, data := benchIndex(b, 500)
	st, err := store.Open(b.TempDir(), store.Options{Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.EnsureDir(st.SnapshotDir()); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(st.IndexPath(), data, 0o600); err != nil {
		b.Fatal(err)
	}
	m := NewManager(st, nil)
	m.writeListCache(data)
	for b.Loop() {
		if l, err := m.CachedListTable(false); err != nil || len(l.AppendTo(nil)) == 0 {
			b.Fatal(err)
		}
	}
}

// TestAlignColumnsMatchesTabwriter: the table lays out exactly as
// text/tabwriter (padding 2) does, for random cells (empty, wide,
// multi-byte), whole or split around the Date column as NewListTable
// splits it.
func TestAlignColumnsMatchesTabwriter(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"", "a", "0001f3", "42,003", "📌", "Nov 21, 2026 12:28a", "ünïcödé", "6.0 KB", "threshold", "1234567890123456789"}
	for iter := 0; iter < 300; iter++ {
		cols := 3 + rng.Intn(7)
		rows := 1 + rng.Intn(20)
		var cells, first, date, rest []string
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		for r := 0; r < rows; r++ {
			line := make([]string, cols)
			for c := range line {
				line[c] = words[rng.Intn(len(words))]
			}
			cells = append(cells, line...)
			first, date, rest = append(first, line[0]), append(date, line[1]), append(rest, line[2:]...)
			tw.Write([]byte(strings.Join(line, "\t") + "\n"))
		}
		tw.Flush()
		var got []byte
		for _, l := range alignColumns(cells, cols, false) {
			got = append(append(got, l...), '\n')
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("cells %q (%d columns):\ngot:\n%s\nwant:\n%s", cells, cols, got, want.Bytes())
		}
		// Prefix + date column + suffix, as AppendTo joins them.
		p, d, s := alignColumns(first, 1, true), alignColumns(date, 1, true), alignColumns(rest, cols-2, false)
		got = got[:0]
		for i := range p {
			got = append(append(append(append(got, p[i]...), d[i]...), s[i]...), '\n')
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("split cells %q (%d columns):\ngot:\n%s\nwant:\n%s", cells, cols, got, want.Bytes())
		}
	}
}

// TestShortDate: the fast date form is time.Format's "Jan 2, 2006 3:04"
// with a/p, in local time.
func TestShortDate(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	times := []time.Time{{}, time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 27, 0, 5, 0, 0, time.UTC),
		time.Date(2026, 1, 27, 12, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 23, 59, 0, 0, time.UTC)}
	for i := 0; i < 2000; i++ {
		times = append(times, time.Unix(rng.Int63n(4e9), 0))
	}
	for _, tm := range times {
		l := tm.Local()
		want := l.Format("Jan 2, 2006 3:04") + map[bool]string{true: "a", false: "p"}[l.Hour() < 12]
		if got := ShortDate(tm); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
}

// BenchmarkRenderListCache500 is what each index write adds for the cache.
func BenchmarkRenderListCache500(b *testing.B) {
	_, data := benchIndex(b, 500)
	for b.Loop() {
		if _, ok := renderListCache(data, indexStamp{}); !ok {
			b.Fatal("not rendered")
		}
	}
}
