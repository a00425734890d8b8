package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/e2e"
	"github.com/ben10ctx/ben10/internal/s3test"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

const (
	demoSession   = "5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b"
	demoCwd       = "/home/dev/cart-service"
	origin        = "git@github.com:acme/cart-service.git"
	plantedMarker = "PLANTED-MARKER-b10-7f3a9c"
)

// mate is a simulated teammate: a home directory and a checkout of the
// shared project, whose git origin names it the same on every machine.
type mate struct {
	home, project string
	st            *store.Store
	remote        Remote
}

func newMate(t *testing.T, srv *s3test.Server, name, prefix string) *mate {
	t.Helper()
	home := filepath.Join(t.TempDir(), name)
	project := filepath.Join(home, "src", "cart-service")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+origin+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(project, store.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return &mate{home: home, project: st.ProjectDir(), st: st,
		remote: Remote{Name: "team", URL: "s3://ben10-team/" + prefix, Endpoint: srv.Endpoint}}
}

// transcript writes a Claude Code session (the demo session under a new
// id, its cwd the mate's project, a planted marker in the first prompt,
// extra prompts of about extra bytes) and returns its path.
func (m *mate) transcript(t *testing.T, session string, extra int, seed uint64) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), demoSession, session)
	s = strings.ReplaceAll(s, demoCwd, m.project)
	s = strings.Replace(s, "The cart total is wrong", "The cart total ("+plantedMarker+") is wrong", 1)
	lines := strings.SplitAfter(s, "\n")
	var tmpl string
	for _, l := range lines {
		if strings.Contains(l, `"type":"user"`) && strings.Contains(l, `"content":"The cart total`) {
			tmpl = l
		}
	}
	words := strings.Fields("coupon bulk discount cart total price list rounding tax order line item refund currency customer invoice")
	r := rand.New(rand.NewPCG(seed, 7))
	var out strings.Builder
	out.WriteString(s)
	for i := 0; out.Len() < len(s)+extra; i++ {
		var text strings.Builder
		for text.Len() < 4000 {
			text.WriteString(words[r.IntN(len(words))] + " ")
		}
		l := strings.Replace(tmpl, "The cart total ("+plantedMarker+") is wrong when a coupon and the bulk discount both apply — customers get charged more than the price list says. Find out why and fix it.", text.String(), 1)
		l = strings.ReplaceAll(l, "2e2058e2-729a-5fd8-adaa-d93b478742ed", fmt.Sprintf("2e2058e2-729a-5fd8-adaa-%012d", seed*100000+uint64(i)))
		out.WriteString(l)
	}
	dir := filepath.Join(m.home, ".claude", "projects", "p")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, session+".jsonl")
	if err := os.WriteFile(p, []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot takes a compaction snapshot of the transcript at when.
func (m *mate) snapshot(t *testing.T, path string, when time.Time) snapshot.Snapshot {
	t.Helper()
	res, err := snapshot.NewManager(m.st, m.st.Config()).Create(snapshot.CreateOptions{TranscriptPath: path, Trigger: "manual", Source: "cli", Force: true, Now: when, NoPrevious: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

func (m *mate) dial(t *testing.T, k *Key) *Client {
	t.Helper()
	c, err := Dial(context.Background(), m.remote, k, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startServer(t *testing.T) *s3test.Server {
	e2e.Require(t, "minio")
	srv := s3test.Start(t)
	srv.SetEnv(t)
	return srv
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// Two teammates share a project's context: what Alice pushes, Bob pulls
// into his checkout's store, where it is listed and opens with the same
// conversation; the bucket holds no plaintext; pushing and pulling again
// move nothing.
func TestRealRemoteTeammates(t *testing.T) {
	srv := startServer(t)
	k := testKey(t)
	alice, bob := newMate(t, srv, "alice", "share"), newMate(t, srv, "bob", "share")
	s1, s2 := "11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002"
	alice.snapshot(t, alice.transcript(t, s1, 200<<10, 1), t0)
	alice.snapshot(t, alice.transcript(t, s2, 100<<10, 2), t0.Add(time.Hour))
	ca := alice.dial(t, k)
	ps, err := ca.Push(context.Background(), alice.st, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Project != "github.com/acme/cart-service" || ps.Entries != 2 || ps.ChunksUploaded == 0 {
		t.Fatalf("push: %+v", ps)
	}
	bytes1, objs1 := srv.ObjectBytes(t, "ben10-team", "share/")
	t.Logf("push: %d entries, %d chunks, %d object bytes in %d objects", ps.Entries, ps.ChunksUploaded, bytes1, objs1)

	for _, needle := range []string{plantedMarker, alice.home, "cart-service", "coupon"} {
		if hits := srv.GrepData(t, []byte(needle)); len(hits) > 0 {
			t.Errorf("the server's disk holds %q in plaintext: %v", needle, hits)
		}
	}

	ps2, err := ca.Push(context.Background(), alice.st, PushOptions{})
	if err != nil || ps2.ChunksUploaded != 0 || ps2.Entries != 0 || ps2.Present != 2 {
		t.Fatalf("second push: %+v %v", ps2, err)
	}
	if b, n := srv.ObjectBytes(t, "ben10-team", "share/"); b != bytes1 || n != objs1 {
		t.Fatalf("pushing again changed the bucket: %d bytes in %d objects, was %d in %d", b, n, bytes1, objs1)
	}

	cb := bob.dial(t, k)
	pl, err := cb.Pull(context.Background(), bob.st, PullOptions{})
	if err != nil || len(pl.Failed) > 0 || len(pl.Pulled) != 2 {
		t.Fatalf("pull: %+v %v", pl, err)
	}
	ix, err := snapshot.NewManager(bob.st, bob.st.Config()).Index()
	if err != nil || len(ix.Snapshots) != 2 {
		t.Fatalf("bob's compaction list: %v %v", ix, err)
	}
	for _, s := range ix.Snapshots {
		a, err := archive.OpenFile(filepath.Join(bob.st.SnapshotDir(), s.File), snapshot.OpenOptions(bob.st.Config()))
		if err != nil {
			t.Fatal(err)
		}
		files, err := a.RawFiles()
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := a.Messages()
		if err != nil || len(msgs) == 0 {
			t.Fatalf("pulled snapshot %s: %d messages, %v", s.ID, len(msgs), err)
		}
		raw := files[0].Data
		if bytes.Contains(raw, []byte(alice.home)) || !bytes.Contains(raw, []byte("~/src/cart-service")) {
			t.Errorf("pulled snapshot %s: Alice's home directory was not stripped", s.ID)
		}
		if !bytes.Contains(raw, []byte(plantedMarker)) {
			t.Errorf("pulled snapshot %s lost the session's text", s.ID)
		}
		a.Close()
	}
	pl2, err := cb.Pull(context.Background(), bob.st, PullOptions{})
	if err != nil || len(pl2.Pulled) != 0 || pl2.Skipped != 2 {
		t.Fatalf("second pull: %+v %v", pl2, err)
	}
	// Bob pushes back what he pulled: the same content, nothing new.
	pb, err := cb.Push(context.Background(), bob.st, PushOptions{})
	if err != nil || pb.Entries != 0 || pb.ChunksUploaded != 0 {
		t.Fatalf("bob's push of what he pulled: %+v %v", pb, err)
	}
	// Dave has no checkout of the project: its entries go to a plain
	// directory, as archives that open.
	dir := filepath.Join(t.TempDir(), "dave-area")
	pd, err := cb.PullDir(context.Background(), dir, PullOptions{Project: "github.com/acme/cart-service", Session: s2[:8]})
	if err != nil || len(pd.Pulled) != 1 || len(pd.Failed) != 0 {
		t.Fatalf("pull into a directory: %+v %v", pd, err)
	}
	a, err := archive.OpenFile(pd.Pulled[0], archive.OpenOptions{})
	if err != nil || a.Meta().SessionID != s2 {
		t.Fatalf("%s: %v", pd.Pulled[0], err)
	}
	a.Close()
	// A teammate with another key is told so, before anything is read.
	carol := newMate(t, srv, "carol", "share")
	if _, err := Dial(context.Background(), carol.remote, testKey(t), true); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("wrong key: %v", err)
	}
}

// A tampered chunk and a truncated one are reported by object name; the
// entries that do not use them are still pulled.
func TestRealRemoteCorruptObject(t *testing.T) {
	srv := startServer(t)
	k := testKey(t)
	alice, bob := newMate(t, srv, "alice", "corrupt"), newMate(t, srv, "bob", "corrupt")
	sessions := []string{"aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"}
	for i, s := range sessions {
		alice.snapshot(t, alice.transcript(t, s, 100<<10, uint64(10+i)), t0.Add(time.Duration(i)*time.Hour))
	}
	ca := alice.dial(t, k)
	if _, err := ca.Push(context.Background(), alice.st, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	es, bad, err := ca.entries(context.Background(), "github.com/acme/cart-service")
	if err != nil || len(bad) > 0 || len(es) != 3 {
		t.Fatalf("entries: %d %v %v", len(es), bad, err)
	}
	// A chunk only the first entry uses, and one only the second uses.
	uses := map[string]int{}
	for _, e := range es {
		for _, f := range e.Files {
			for _, r := range f.Chunks {
				uses[r.ID]++
			}
		}
	}
	only := func(e Entry) string {
		for _, f := range e.Files {
			for _, r := range f.Chunks {
				if uses[r.ID] == 1 {
					return r.ID
				}
			}
		}
		t.Fatalf("entry %s has no chunk of its own", e.ID)
		return ""
	}
	ctx := context.Background()
	flip, cut := ca.chunkKey(only(es[0])), ca.chunkKey(only(es[1]))
	for key, change := range map[string]func([]byte) []byte{
		flip: func(b []byte) []byte { b[len(b)/2] ^= 0x20; return b },
		cut:  func(b []byte) []byte { return b[:len(b)-7] },
	} {
		b, err := ca.get(ctx, key, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		b = change(b)
		if _, err := srv.Client.PutObject(ctx, "ben10-team", key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pl, err := bob.dial(t, k).Pull(ctx, bob.st, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Pulled) != 1 || len(pl.Failed) != 2 {
		t.Fatalf("pull: %d pulled, failures %v", len(pl.Pulled), pl.Failed)
	}
	msgs := fmt.Sprint(pl.Failed)
	for _, key := range []string{flip, cut} {
		if !strings.Contains(msgs, key) {
			t.Errorf("the failures do not name %s: %s", key, msgs)
		}
	}
	for _, f := range pl.Failed {
		if !errors.Is(f, ErrCorrupt) {
			t.Errorf("failure is not ErrCorrupt: %v", f)
		}
	}
	t.Logf("failures reported: %s", msgs)
}

// Two machines push different sessions of the same project at the same
// time: every entry is in the merged manifests afterwards.
func TestRealRemoteConcurrentPush(t *testing.T) {
	srv := startServer(t)
	k := testKey(t)
	machines := []*mate{newMate(t, srv, "laptop", "conc"), newMate(t, srv, "desktop", "conc")}
	// The plantedMarker object exists before the race (the first push writes it).
	machines[0].dial(t, k)
	const perMachine = 3
	for i, m := range machines {
		for j := range perMachine {
			s := fmt.Sprintf("%08d-0000-4000-8000-%012d", i, j)
			m.snapshot(t, m.transcript(t, s, 40<<10, uint64(100*i+j)), t0.Add(time.Duration(j)*time.Hour))
		}
	}
	const rounds = 3
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, len(machines))
		for i, m := range machines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := Dial(context.Background(), m.remote, k, false)
				if err == nil {
					_, err = c.Push(context.Background(), m.st, PushOptions{})
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// Each round adds a session to each machine, pushed at once.
		if round < rounds-1 {
			for i, m := range machines {
				s := fmt.Sprintf("%08d-1111-4000-8000-%012d", i, round)
				m.snapshot(t, m.transcript(t, s, 20<<10, uint64(1000+10*i+round)), t0.Add(time.Duration(10+round)*time.Hour))
			}
		}
	}
	ps, bad, err := machines[0].dial(t, k).List(context.Background(), "github.com/acme/cart-service")
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	want := len(machines) * (perMachine + rounds - 1)
	if len(ps) != 1 || len(ps[0].Entries) != want {
		t.Fatalf("after concurrent pushes the remote lists %d entries, want %d", len(ps[0].Entries), want)
	}
}

// A push interrupted after two chunks leaves no manifest entry (nothing
// looks complete); run again, it reuses the uploaded chunks and completes.
// Prune then deletes an unreferenced chunk and nothing a manifest names.
func TestRealRemoteInterruptedPushAndPrune(t *testing.T) {
	srv := startServer(t)
	k := testKey(t)
	alice, bob := newMate(t, srv, "alice", "resume"), newMate(t, srv, "bob", "resume")
	alice.snapshot(t, alice.transcript(t, "dddddddd-0000-4000-8000-000000000004", 1<<20, 4), t0)
	ctx, cancel := context.WithCancel(context.Background())
	c := alice.dial(t, k)
	c.Workers = 1
	var mu sync.Mutex
	puts := 0
	c.afterPut = func() {
		mu.Lock()
		defer mu.Unlock()
		if puts++; puts == 2 {
			cancel()
		}
	}
	if _, err := c.Push(ctx, alice.st, PushOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted push: %v", err)
	}
	_, chunks := srv.ObjectBytes(t, "ben10-team", "resume/chunks/")
	if chunks < 2 {
		t.Fatalf("%d chunks uploaded before the interruption", chunks)
	}
	if ps, _, err := c.List(context.Background(), "github.com/acme/cart-service"); err != nil || len(ps[0].Entries) != 0 {
		t.Fatalf("an interrupted push left an entry: %v %v", ps, err)
	}
	c.afterPut = nil
	st, err := c.Push(context.Background(), alice.st, PushOptions{})
	if err != nil || st.Entries != 1 || st.ChunksReused < chunks {
		t.Fatalf("resumed push: %+v %v (had %d chunks)", st, err, chunks)
	}
	t.Logf("interrupted after %d chunks; resumed push reused %d and uploaded %d", chunks, st.ChunksReused, st.ChunksUploaded)

	// An orphan chunk (as a push killed for good would leave).
	orphan := []byte("an orphan chunk that no manifest names")
	id := k.ChunkID(orphan)
	obj, _ := k.SealChunk(id, orphan)
	if err := c.put(context.Background(), c.chunkKey(id), obj); err != nil {
		t.Fatal(err)
	}
	_, before := srv.ObjectBytes(t, "ben10-team", "resume/chunks/")
	kept, err := c.Prune(context.Background(), PruneOptions{})
	if err != nil || kept.Deleted != 0 || kept.KeptYoung != 1 {
		t.Fatalf("prune with the default grace: %+v %v", kept, err)
	}
	pr, err := c.Prune(context.Background(), PruneOptions{Grace: time.Nanosecond})
	if err != nil || pr.Deleted != 1 || pr.Referenced != before-1 {
		t.Fatalf("prune: %+v %v (%d chunks before)", pr, err, before)
	}
	pl, err := bob.dial(t, k).Pull(context.Background(), bob.st, PullOptions{})
	if err != nil || len(pl.Pulled) != 1 || len(pl.Failed) != 0 {
		t.Fatalf("pull after prune: %+v %v", pl, err)
	}
}

// Ten snapshots of one growing 3 MB session, pushed one by one, store at
// most twice the bytes of the last snapshot; pushing again uploads nothing.
func TestRealRemoteDedupGrowingSession(t *testing.T) {
	srv := startServer(t)
	src := filepath.Join(testcorpus.Dir(t, "claude"), "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skip(err)
	}
	k := keyFrom([KeySize]byte{1, 2, 3}) // boundaries, so the figure, depend on the key
	alice := newMate(t, srv, "alice", "dedup")
	c := alice.dial(t, k)
	lines := bytes.SplitAfter(data, []byte("\n"))
	p := filepath.Join(alice.home, filepath.Base(src))
	var last snapshot.Snapshot
	for i := 1; i <= 10; i++ {
		if err := os.WriteFile(p, bytes.Join(lines[:len(lines)*i/10], nil), 0o600); err != nil {
			t.Fatal(err)
		}
		last = alice.snapshot(t, p, t0.Add(time.Duration(i)*time.Minute))
		if _, err := c.Push(context.Background(), alice.st, PushOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stored, n := srv.ObjectBytes(t, "ben10-team", "dedup/")
	ratio := float64(stored) / float64(last.CompressedBytes)
	t.Logf("10 snapshots of a %d-byte session pushed one by one: %d bytes in %d objects; last snapshot %d bytes: %.2f×", len(data), stored, n, last.CompressedBytes, ratio)
	if ratio > 2 {
		t.Fatalf("the bucket holds %.2f× the last snapshot, want ≤ 2", ratio)
	}
	ps, err := c.Push(context.Background(), alice.st, PushOptions{})
	if err != nil || ps.ChunksUploaded != 0 || ps.Entries != 0 {
		t.Fatalf("pushing again: %+v %v", ps, err)
	}
}
