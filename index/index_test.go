package index_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

const fixture = "../transcript/claude/testdata/11111111-2222-4333-8444-555555555555.jsonl"

// testKey is the user's key in these tests: the archives they write are
// the user's own, as Ben10's saves are.
var testKey = func() *archive.AuthKey {
	k, err := archive.NewAuthKey(bytes.Repeat([]byte{7}, archive.AuthKeySize))
	if err != nil {
		panic(err)
	}
	return k
}()

// encode imports the session at src and returns its archive bytes.
func encode(t testing.TB, src string, enc *ctxfmt.Encryption) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, src, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Encryption: enc, Auth: testKey}); err != nil {
		t.Fatalf("save %s: %v", src, err)
	}
	return buf.Bytes()
}

// hitsOf is Search's hits.
func hitsOf(r index.Result, err error) ([]index.Hit, error) { return r.Hits, err }

func put(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// putSnapshot writes a compaction snapshot of the store directory and the
// index.json that lists it, as the snapshot manager does.
func putSnapshot(t testing.TB, storeDir, file string, data []byte) {
	t.Helper()
	put(t, filepath.Join(storeDir, "compaction-snapshots", file), data)
	ix := &snapshot.Index{Version: snapshot.IndexVersion, Snapshots: []snapshot.Snapshot{
		{ID: strings.TrimSuffix(file, ".ctx"), File: file, CreatedAt: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), CompressedBytes: int64(len(data))},
	}}
	put(t, filepath.Join(storeDir, "compaction-snapshots", "index.json"), ix.Marshal())
}

type env struct {
	home, projA, projB string
	storeA, storeB     string
}

// newEnv makes a home with two projects: A with its store in the project,
// B with a fallback store under ~/.claude-code/contexts/.
func newEnv(t *testing.T) env {
	t.Helper()
	root := t.TempDir()
	e := env{home: filepath.Join(root, "home"), projA: filepath.Join(root, "a"), projB: filepath.Join(root, "b")}
	for _, d := range []string{e.home, e.projA, e.projB} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.storeA = filepath.Join(e.projA, ".claude", "context")
	cb, err := store.CanonicalDir(e.projB)
	if err != nil {
		t.Fatal(err)
	}
	e.storeB = store.FallbackDir(e.home, cb)
	put(t, filepath.Join(e.storeB, "project"), []byte(cb+"\n"))
	return e
}

func open(t *testing.T, home string) *index.Index {
	t.Helper()
	x, err := index.Open(index.Options{Home: home, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func TestUpdateSearchShow(t *testing.T) {
	e := newEnv(t)
	plain := encode(t, fixture, nil)
	put(t, filepath.Join(e.storeA, "current.ctx"), plain)
	putSnapshot(t, e.storeA, "pre-compact-20260101-100000-11111111.ctx", plain)
	put(t, filepath.Join(e.storeB, "history", "session-20260101T100000Z.ctx"), plain)
	put(t, filepath.Join(e.storeB, "checkpoints", "cp-001.ctx"), encode(t, fixture, &ctxfmt.Encryption{Key: bytes.Repeat([]byte{7}, 32)}))
	put(t, filepath.Join(e.storeA, "checkpoints", "cp-001.ctx"), plain[:len(plain)/2])

	x := open(t, e.home)
	ctx := context.Background()
	st, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Projects != 2 || st.Added != 3 || st.Encrypted != 1 || st.Skipped != 1 || st.Rows == 0 {
		t.Fatalf("first update: %+v", st)
	}
	info, err := os.Stat(x.Path())
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("index file mode %v, want 0600", info.Mode().Perm())
	}

	again, err := x.Update(ctx, index.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Unchanged != 5 || again.Encrypted != 1 || again.Skipped != 1 {
		t.Errorf("second update (nothing changed): %+v", again)
	}

	tests := []struct {
		name      string
		q         index.Query
		wantKind  string
		wantIn    string
		wantCount int // distinct hits (same text of one session collapses)
	}{
		{"command substring", index.Query{Text: "pkg/calc"}, "", "pkg/calc", -1},
		{"flag-like", index.Query{Text: "FAIL: TestAdd"}, index.KindError, "TestAdd", -1},
		{"case-insensitive", index.Query{Text: "testadd"}, "", "TestAdd", -1},
		// One hit per project: the same text of a session collapses
		// within a project, whatever number of archives hold it.
		{"kinds filter", index.Query{Text: "go test", Kinds: []string{index.KindCommand}}, index.KindCommand, "go test ./pkg/calc", 2},
		{"project filter", index.Query{Text: "go test", Kinds: []string{index.KindCommand}, Project: mustCanon(t, e.projB)}, index.KindCommand, "go test", 1},
		{"assistant filter misses", index.Query{Text: "go test", Assistant: "codex"}, "", "", 0},
		{"since filter misses", index.Query{Text: "go test", Since: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}, "", "", 0},
		{"session prefix", index.Query{Text: "go test", Session: "11111111", Kinds: []string{index.KindCommand}}, index.KindCommand, "go test", 2},
		{"nothing", index.Query{Text: "zzqqxxyy"}, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := hitsOf(x.Search(ctx, tc.q))
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantCount >= 0 && len(hits) != tc.wantCount {
				t.Fatalf("%d hits, want %d: %+v", len(hits), tc.wantCount, hits)
			}
			if tc.wantCount == 0 {
				return
			}
			if len(hits) == 0 {
				t.Fatal("no hits")
			}
			h := hits[0]
			if tc.wantKind != "" && h.Kind != tc.wantKind {
				t.Errorf("kind %q, want %q", h.Kind, tc.wantKind)
			}
			plainSnip := strings.NewReplacer(index.MarkStart, "", index.MarkEnd, "").Replace(h.Snippet)
			if !strings.Contains(strings.ToLower(plainSnip), strings.ToLower(tc.wantIn)) || !strings.Contains(h.Snippet, index.MarkStart) {
				t.Errorf("snippet %q lacks %q or its highlight", h.Snippet, tc.wantIn)
			}
			if h.Session != "11111111-2222-4333-8444-555555555555" || h.Assistant != "claude" || h.Time.IsZero() || h.Ref == "" {
				t.Errorf("hit identity: %+v", h)
			}
		})
	}

	hits, err := hitsOf(x.Search(ctx, index.Query{Text: "go test ./pkg/calc", Kinds: []string{index.KindCommand}}))
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	c, err := x.Show(ctx, hits[0].Ref, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	var hit *index.ShowRow
	for i := range c.Rows {
		if c.Rows[i].Hit {
			hit = &c.Rows[i]
		}
	}
	if hit == nil || hit.Text != "go test ./pkg/calc" || len(c.Rows) < 3 || len(c.Rows) > 5 {
		t.Fatalf("show %s: %+v", hits[0].Ref, c)
	}
	for _, bad := range []string{"", "nothex:1", "abcdef0123456789:x", "abcdef0123456789:-1"} {
		if _, err := x.Show(ctx, bad, 1, 1); !errors.Is(err, index.ErrBadQuery) {
			t.Errorf("show %q: %v, want ErrBadQuery", bad, err)
		}
	}
	if _, err := x.Show(ctx, "00000000deadbeef:1", 1, 1); !errors.Is(err, index.ErrNoRef) {
		t.Errorf("show of an unknown archive: %v, want ErrNoRef", err)
	}
	if _, err := hitsOf(x.Search(ctx, index.Query{Text: "g "})); !errors.Is(err, index.ErrBadQuery) {
		t.Errorf("search of short terms: %v, want ErrBadQuery", err)
	}

	sessions, _, err := x.Sessions(ctx, mustCanon(t, e.projA))
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || sessions[0].Archives != 2 || !strings.Contains(sessions[0].Request, "Fix the failing test") {
		t.Errorf("sessions of A: %+v", sessions)
	}

	// A pruned snapshot leaves the index.
	if err := os.Remove(filepath.Join(e.storeA, "compaction-snapshots", "pre-compact-20260101-100000-11111111.ctx")); err != nil {
		t.Fatal(err)
	}
	st, err = x.Update(ctx, index.UpdateOptions{})
	if err != nil || st.Removed != 1 {
		t.Fatalf("update after a prune: %+v %v", st, err)
	}
	s, err := x.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Archives != 4 || s.Indexed != 2 || s.Encrypted != 1 || s.Skipped != 1 || len(s.Problems) != 1 || s.Kinds[index.KindCommand] == 0 {
		t.Errorf("status: %+v", s)
	}
	v, err := x.Verify(ctx)
	if err != nil || !v.OK() {
		t.Errorf("verify: %+v %v", v, err)
	}
	// An archive rewritten in place is stale until the next update.
	put(t, filepath.Join(e.storeA, "current.ctx"), encode(t, "testdata/second.jsonl", nil))
	v, err = x.Verify(ctx)
	if err != nil || len(v.Stale) != 1 {
		t.Errorf("verify after a change: %+v %v", v, err)
	}
	if _, err := x.Update(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := hitsOf(x.Search(ctx, index.Query{Text: "pkg/calc", Project: mustCanon(t, e.projA)})); len(hits) != 0 {
		t.Errorf("old text of a rewritten archive still found: %+v", hits)
	}
	if hits, _ := hitsOf(x.Search(ctx, index.Query{Text: "frobnicate_widget", Project: mustCanon(t, e.projA)})); len(hits) == 0 {
		t.Errorf("new text of a rewritten archive not found")
	}
}

func mustCanon(t *testing.T, p string) string {
	t.Helper()
	c, err := store.CanonicalDir(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dump lists every row of every archive, for comparing two indexes.
func dump(t *testing.T, x *index.Index, e env) []string {
	t.Helper()
	ctx := context.Background()
	s, err := x.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{fmt.Sprintf("archives by trust %v", s.Trust)}
	for _, p := range []string{e.projA, e.projB} {
		ss, w, err := x.Sessions(ctx, mustCanon(t, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s withheld %v", p, w))
		for _, s := range ss {
			out = append(out, fmt.Sprintf("%s %s %s %d %q", p, s.Session, s.Kind, s.Archives, s.Request))
		}
	}
	for _, q := range []string{"test", "calc", "the", "FAIL", "frobnicate"} {
		hits, err := hitsOf(x.Search(ctx, index.Query{Text: q, Limit: 1000, Unauthenticated: true}))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%s %s %s %s %s %s %s", q, h.Archive, strings.SplitN(h.Ref, ":", 2)[1], h.Kind, h.Time, h.Trust, h.Snippet))
		}
	}
	sort.Strings(out)
	return out
}

func TestRebuildEqualsIncremental(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	x := open(t, e.home)
	// Incremental: archives appear one at a time, one is replaced and one
	// removed between updates.
	put(t, filepath.Join(e.storeA, "current.ctx"), encode(t, "testdata/second.jsonl", nil))
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(e.storeB, "history", "session-1.ctx"), encode(t, fixture, nil))
	put(t, filepath.Join(e.storeA, "checkpoints", "cp-001.ctx"), encode(t, fixture, nil))
	if _, err := x.Update(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(e.storeA, "current.ctx"), encode(t, fixture, nil))
	if err := os.Remove(filepath.Join(e.storeA, "checkpoints", "cp-001.ctx")); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	inc := dump(t, x, e)
	if len(inc) == 0 {
		t.Fatal("empty dump")
	}
	if _, err := x.Rebuild(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	reb := dump(t, x, e)
	if strings.Join(inc, "\n") != strings.Join(reb, "\n") {
		t.Errorf("rebuild differs from incremental:\nincremental:\n%s\nrebuild:\n%s", strings.Join(inc, "\n"), strings.Join(reb, "\n"))
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"garbage", bytes.Repeat([]byte("not a database "), 500)},
		{"truncated header", []byte("SQLite format 3\x00\x10\x00")},
		{"schema page overwritten", schemaOverwritten(t)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			put(t, filepath.Join(e.storeA, "current.ctx"), encode(t, fixture, nil))
			put(t, index.DefaultPath(e.home), tc.data)
			x := open(t, e.home)
			if x.Rebuilt == "" {
				t.Fatal("a damaged index was not moved aside")
			}
			if b, err := os.ReadFile(x.Rebuilt); err != nil || !bytes.Equal(b, tc.data) {
				t.Errorf("the damaged file was not kept as it was: %v", err)
			}
			st, err := x.Update(context.Background(), index.UpdateOptions{Projects: []string{e.projA}})
			if err != nil || st.Added != 1 {
				t.Fatalf("update of the new index: %+v %v", st, err)
			}
		})
	}
}

// schemaOverwritten is an index whose first page, past the 100-byte
// header, is garbage: SQLite reads it as a malformed schema
// (SQLITE_CORRUPT), not as "not a database".
func schemaOverwritten(t *testing.T) []byte {
	home := t.TempDir()
	x, err := index.Open(index.Options{Home: home, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	data, err := os.ReadFile(index.DefaultPath(home))
	if err != nil || len(data) < 4096 {
		t.Fatalf("index file: %d bytes, %v", len(data), err)
	}
	copy(data[100:4096], bytes.Repeat([]byte{0xa5}, 4096))
	return data
}

// Two writers (two connections, as two processes would have) index the same
// archives at once: the index stays consistent and holds each archive once.
func TestConcurrentWriters(t *testing.T) {
	e := newEnv(t)
	for i := range 4 {
		put(t, filepath.Join(e.storeA, "history", fmt.Sprintf("session-%d.ctx", i)), encode(t, fixture, nil))
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := index.Open(index.Options{Home: e.home, Key: testKey})
			if err != nil {
				errs <- err
				return
			}
			defer x.Close()
			if _, err := x.Rebuild(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	x := open(t, e.home)
	v, err := x.Verify(ctx)
	if err != nil || !v.OK() {
		t.Fatalf("verify: %+v %v", v, err)
	}
	s, err := x.Status(ctx)
	if err != nil || s.Archives != 4 || s.Indexed != 4 {
		t.Fatalf("status after two writers: %+v %v", s, err)
	}
}

func TestFTSQuery(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"pkg/calc", `"pkg/calc"`, false},
		{`--count=1 foo_bar`, `"--count=1" "foo_bar"`, false},
		{`"go test" ./...`, `"go test" "./..."`, false},
		{`say "hi`, `"say ""hi"`, false},
		{`a"b"c OR NOT`, `"a""b""c OR NOT"`, false},
		{"go test", `"go test"`, false},
		{"ab", "", true},
		{"   ", "", true},
	}
	for _, tc := range tests {
		got, err := index.FTSQuery(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("FTSQuery(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("x", 500) + " go test ./pkg/calc " + strings.Repeat("y", 500)
	tests := []struct {
		name, text string
		terms      []string
		want       string // substring of the result
		cut        bool   // the text had to be cut
	}{
		{"marks every occurrence", "Run go test, then GO TEST again", []string{"go test"}, "Run «go test», then «GO TEST» again", false},
		{"longest term wins", "pkg/calc/add.go", []string{"calc", "calc/add"}, "pkg/«calc/add».go", false},
		{"window around the first match", long, []string{"pkg/calc"}, "go test ./«pkg/calc» ", true},
		{"no match keeps the head", "abc", []string{"zzz"}, "abc", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := index.Snippet(tc.text, tc.terms, 120)
			if !strings.Contains(got, tc.want) {
				t.Errorf("Snippet = %q, want it to contain %q", got, tc.want)
			}
			if cut := strings.HasPrefix(got, "…") || strings.HasSuffix(got, "…"); cut != tc.cut || len(got) > 120+4*len(index.MarkStart)+2*len("…")+8 {
				t.Errorf("Snippet = %q (%d bytes), cut %v, want cut %v", got, len(got), cut, tc.cut)
			}
		})
	}
}
