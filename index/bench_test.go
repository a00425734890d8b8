package index_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// BenchmarkRecallHistory measures the recall index on a synthetic history
// built from the corpus (docs/PERFORMANCE.md, "Recall"). It runs only when
// BEN10_RECALL_BENCH_MB names the raw size to build, in MB:
//
//	BEN10_RECALL_BENCH_MB=1024 go test -run '^$' -bench RecallHistory -benchtime 1x ./index/
//
// The history goes to $BEN10_RECALL_BENCH_DIR (default
// $TMPDIR/ben10-recall-bench; reused when already built): copies of the
// corpus's Claude Code and Codex sessions, each with a fresh session id
// and its paths moved under a per-copy home, saved as archives across 20
// projects. Reported: rebuild seconds per GB of raw transcripts, index
// bytes per raw byte, search p50 (ms) and its ratio to `rg -F -i -l` (or
// grep -r -F -i -l when rg is missing) over the raw JSONL for the same
// queries, and the seconds to index one added ~3 MB session.
func BenchmarkRecallHistory(b *testing.B) {
	mb, _ := strconv.Atoi(os.Getenv("BEN10_RECALL_BENCH_MB"))
	if mb <= 0 {
		b.Skip("set BEN10_RECALL_BENCH_MB (raw history size in MB) to run")
	}
	dir := os.Getenv("BEN10_RECALL_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ben10-recall-bench")
	}
	srcs := benchSources(b)
	raw, projects, big := buildHistory(b, dir, srcs, int64(mb)<<20)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		home := b.TempDir()
		x, err := index.Open(index.Options{Home: home, Key: benchKey(b)})
		if err != nil {
			b.Fatal(err)
		}
		t0, c0 := time.Now(), cpuTime()
		st, err := x.Rebuild(ctx, index.UpdateOptions{Projects: projects})
		if err != nil {
			b.Fatal(err)
		}
		rebuild, rebuildCPU := time.Since(t0), cpuTime()-c0
		x.Close()
		// Reopen: the WAL is checkpointed on close, the size is the file's.
		x, err = index.Open(index.Options{Home: home, Key: benchKey(b)})
		if err != nil {
			b.Fatal(err)
		}
		s, err := x.Status(ctx)
		if err != nil {
			b.Fatal(err)
		}
		queries := benchQueries(b, dir, len(srcs))
		var ours, theirs, oursCPU, theirsCPU []time.Duration
		for _, q := range queries {
			t, c := time.Now(), cpuTime()
			if _, err := x.Search(ctx, index.Query{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			ours, oursCPU = append(ours, time.Since(t)), append(oursCPU, cpuTime()-c)
			wall, cpu := grepTime(b, q, filepath.Join(dir, "raw"))
			theirs, theirsCPU = append(theirs, wall), append(theirsCPU, cpu)
		}
		// One more ~3 MB session in a project of its own: into this index
		// (a copy: most of its texts are already there) and into an empty
		// one (every text new: the worst case).
		add := filepath.Join(dir, "added")
		os.RemoveAll(add)
		putArchive(b, big, filepath.Join(add, ".claude", "context", "current.ctx"), 999999)
		t1 := time.Now()
		ast, err := x.Update(ctx, index.UpdateOptions{Projects: []string{add}, Only: true})
		if err != nil || ast.Added != 1 {
			b.Fatalf("adding a session: %+v %v", ast, err)
		}
		added := time.Since(t1)
		x.Close()
		fresh, err := index.Open(index.Options{Home: b.TempDir(), Key: benchKey(b)})
		if err != nil {
			b.Fatal(err)
		}
		t2, c2 := time.Now(), cpuTime()
		if ast, err := fresh.Update(ctx, index.UpdateOptions{Projects: []string{add}, Only: true}); err != nil || ast.Added != 1 {
			b.Fatalf("adding a session to an empty index: %+v %v", ast, err)
		}
		addedFresh, addedFreshCPU := time.Since(t2), cpuTime()-c2
		fresh.Close()
		// The history's first copy of each source only: no text repeats
		// across sessions, so the texts' deduplication does not help.
		uraw, uidx, urebuild, urebuildCPU := uniqueHistory(b, dir, srcs)
		p50, g50 := median(ours), median(theirs)
		gb := float64(raw) / (1 << 30)
		b.ReportMetric(rebuild.Seconds()/gb, "rebuild-s/GB")
		b.ReportMetric(float64(s.Bytes)/float64(raw), "index/raw")
		b.ReportMetric(urebuild.Seconds()/(float64(uraw)/(1<<30)), "unique-rebuild-s/GB")
		b.ReportMetric(float64(uidx)/float64(uraw), "unique-index/raw")
		b.ReportMetric(rebuildCPU.Seconds()/gb, "rebuild-cpu-s/GB")
		b.ReportMetric(urebuildCPU.Seconds()/(float64(uraw)/(1<<30)), "unique-rebuild-cpu-s/GB")
		b.ReportMetric(addedFreshCPU.Seconds(), "add-3MB-empty-cpu-s")
		b.ReportMetric(float64(p50.Microseconds())/1000, "search-p50-ms")
		b.ReportMetric(float64(g50)/float64(p50), "grep/search")
		b.ReportMetric(float64(median(oursCPU).Microseconds())/1000, "search-p50-cpu-ms")
		b.ReportMetric(float64(median(theirsCPU))/float64(median(oursCPU)), "grep/search-cpu")
		b.ReportMetric(added.Seconds(), "add-3MB-s")
		b.ReportMetric(addedFresh.Seconds(), "add-3MB-empty-s")
		b.Logf("raw %.1f MB in %d projects, %d archives, %d rows, %d distinct texts; index %.1f MB; rebuild %v; %d queries: search p50 %v, %s p50 %v; adding a %.1f MB session: %v (into an empty index: %v); first copies only: raw %.1f MB, index %.1f MB, rebuild %v",
			float64(raw)/(1<<20), len(projects), st.Added, s.Rows, s.Texts, float64(s.Bytes)/(1<<20), rebuild.Round(time.Millisecond), len(queries), p50, grepName(), g50,
			float64(len(big.data))/(1<<20), added.Round(time.Millisecond), addedFresh.Round(time.Millisecond), float64(uraw)/(1<<20), float64(uidx)/(1<<20), urebuild.Round(time.Millisecond))
	}
}

// uniqueHistory indexes, into an empty index, hard links to the first copy
// of each source (history entries 0 … len(srcs)-1); it returns their raw
// bytes, the index's bytes, and the wall and CPU time.
func uniqueHistory(b *testing.B, dir string, srcs []benchSource) (raw, size int64, took, cpu time.Duration) {
	proj := filepath.Join(b.TempDir(), "unique")
	hist := filepath.Join(proj, ".claude", "context", "history")
	if err := os.MkdirAll(hist, 0o700); err != nil {
		b.Fatal(err)
	}
	for k := range srcs {
		name := fmt.Sprintf("session-%05d.ctx", k)
		arch := filepath.Join(dir, "projects", fmt.Sprintf("p%02d", k%20), ".claude", "context", "history", name)
		if err := os.Link(arch, filepath.Join(hist, name)); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, "raw", fmt.Sprintf("p%02d", k%20), fmt.Sprintf("%05d.jsonl", k)))
		if err != nil {
			b.Fatal(err)
		}
		raw += fi.Size()
	}
	home := b.TempDir()
	x, err := index.Open(index.Options{Home: home, Key: benchKey(b)})
	if err != nil {
		b.Fatal(err)
	}
	t, c := time.Now(), cpuTime()
	if st, err := x.Update(context.Background(), index.UpdateOptions{Projects: []string{proj}, Only: true}); err != nil || st.Added != len(srcs) {
		b.Fatalf("unique history: %+v %v", st, err)
	}
	took, cpu = time.Since(t), cpuTime()-c
	x.Close()
	s := 0
	for _, ext := range []string{"", "-wal"} {
		if fi, err := os.Stat(index.DefaultPath(home) + ext); err == nil {
			s += int(fi.Size())
		}
	}
	return raw, int64(s), took, cpu
}

// benchKey is the key the history's archives are authenticated with, as
// the user's own saves are.
func benchKey(b *testing.B) *archive.AuthKey {
	k, err := archive.NewAuthKey(bytes.Repeat([]byte{0x42}, archive.AuthKeySize))
	if err != nil {
		b.Fatal(err)
	}
	return k
}

type benchSource struct {
	name, session string
	data          []byte
}

func benchSources(b *testing.B) []benchSource {
	var out []benchSource
	for _, sub := range []string{"claude", "codex"} {
		m, _ := filepath.Glob(filepath.Join(testcorpus.Dir(b, sub), "*.jsonl"))
		for _, p := range m {
			data, err := os.ReadFile(p)
			if err != nil || len(data) < 1<<20 {
				continue
			}
			st, err := transcript.Import(context.Background(), p, "", archive.ImportOptions{})
			if err != nil || st.Meta.SessionID == "" {
				continue
			}
			out = append(out, benchSource{filepath.Base(p), st.Meta.SessionID, data})
		}
	}
	if len(out) == 0 {
		b.Skip("no corpus session of 1 MB or more")
	}
	return out
}

// variant is copy k of src: a fresh session id, paths under /home/u<k>/.
func variant(src benchSource, k int) benchSource {
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", k, k)
	data := bytes.ReplaceAll(src.data, []byte(src.session), []byte(id))
	data = bytes.ReplaceAll(data, []byte("/home/"), []byte(fmt.Sprintf("/home/u%d/", k)))
	name := strings.Replace(src.name, src.session, id, 1)
	if name == src.name {
		name = fmt.Sprintf("v%d-%s", k, src.name)
	}
	return benchSource{name, id, data}
}

// putArchive writes copy k of src as raw JSONL beside and as an archive at
// dst.
func putArchive(b *testing.B, src benchSource, dst string, k int) {
	v := variant(src, k)
	tmp := filepath.Join(filepath.Dir(dst), "src", v.name)
	if err := os.MkdirAll(filepath.Dir(tmp), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(tmp, v.data, 0o600); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, tmp, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelFastest, Auth: benchKey(b)}); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(filepath.Dir(tmp))
	if err := os.WriteFile(dst, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
}

// buildHistory makes (or reuses) the raw files and archives; it returns
// the raw bytes, the projects and the ~3 MB source used for the add.
func buildHistory(b *testing.B, dir string, srcs []benchSource, target int64) (int64, []string, benchSource) {
	var raw int64
	var projects []string
	for p := range 20 {
		projects = append(projects, filepath.Join(dir, "projects", fmt.Sprintf("p%02d", p)))
	}
	// At least one copy of every source and a session in every project,
	// whatever the target: the queries (benchQueries) come from those
	// first copies, and the index is built over every project.
	for k := 0; raw < target || k < max(len(srcs), len(projects)); k++ {
		src := srcs[k%len(srcs)]
		proj := projects[k%len(projects)]
		rawPath := filepath.Join(dir, "raw", filepath.Base(proj), fmt.Sprintf("%05d.jsonl", k))
		arch := filepath.Join(proj, ".claude", "context", "history", fmt.Sprintf("session-%05d.ctx", k))
		if fi, err := os.Stat(rawPath); err == nil {
			if _, err := os.Stat(arch); err == nil {
				raw += fi.Size()
				continue
			}
		}
		if err := os.MkdirAll(filepath.Dir(rawPath), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(arch), 0o700); err != nil {
			b.Fatal(err)
		}
		v := variant(src, k)
		if err := os.WriteFile(rawPath, v.data, 0o600); err != nil {
			b.Fatal(err)
		}
		putArchive(b, src, arch, k)
		raw += int64(len(v.data))
	}
	big := srcs[0]
	for _, s := range srcs {
		if d := len(s.data) - 3<<20; d*d < (len(big.data)-3<<20)*(len(big.data)-3<<20) {
			big = s
		}
	}
	return raw, projects, big
}

// benchQueries are distinct paths and commands of the history's first
// copies of its sources (up to 40, spread over them), as a user would
// look one up again.
func benchQueries(b *testing.B, dir string, n int) []string {
	var all [][]string
	for k := range n {
		arch := filepath.Join(dir, "projects", fmt.Sprintf("p%02d", k%20), ".claude", "context", "history", fmt.Sprintf("session-%05d.ctx", k))
		a, err := archive.OpenFile(arch, archive.OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rows, err := index.Extract(a)
		a.Close()
		if err != nil {
			b.Fatal(err)
		}
		var qs []string
		for _, r := range rows {
			if r.Kind != index.KindPath && r.Kind != index.KindCommand {
				continue
			}
			q := r.Text
			if r.Kind == index.KindPath {
				q, _, _ = strings.Cut(q, " (")
			}
			if len(q) >= 6 && len(q) <= 60 && !strings.ContainsAny(q, "\n\"'") {
				qs = append(qs, q)
			}
		}
		all = append(all, qs)
	}
	seen := map[string]bool{}
	var out []string
	for round := 0; len(out) < 40; round++ {
		more := false
		for _, qs := range all {
			i := round * 7 // spread over each session, not its first lines only
			if i >= len(qs) {
				continue
			}
			more = true
			if !seen[qs[i]] {
				seen[qs[i]] = true
				out = append(out, qs[i])
			}
		}
		if !more {
			break
		}
	}
	if len(out) > 40 {
		out = out[:40]
	}
	return out
}

func grepName() string {
	if _, err := exec.LookPath("rg"); err == nil {
		return "rg -F -i -l"
	}
	return "grep -r -F -i -l"
}

// grepTime runs the grep on q and returns its wall and CPU time.
func grepTime(b *testing.B, q, dir string) (wall, cpu time.Duration) {
	var c *exec.Cmd
	if _, err := exec.LookPath("rg"); err == nil {
		c = exec.Command("rg", "-F", "-i", "-l", "--", q, dir)
	} else {
		c = exec.Command("grep", "-r", "-F", "-i", "-l", "--", q, dir)
	}
	t := time.Now()
	if err := c.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			b.Fatalf("%v: %v", c.Args, err)
		}
	}
	return time.Since(t), c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkRecallSearch runs the history's queries (BenchmarkRecallHistory's)
// against an index of it kept in $BEN10_RECALL_BENCH_DIR/index-home (built
// on first use), one query per iteration: for profiling the search alone.
// It leaves the queries in $BEN10_RECALL_BENCH_DIR/queries.txt and the
// index's key as that home's auth.key, for scripts/bench-search.sh:
//
//	BEN10_RECALL_BENCH_MB=1024 go test -run '^$' -bench RecallSearch -cpuprofile cpu.out ./index/
//	HOME=$DIR/index-home scripts/bench-search.sh ben10 $DIR/queries.txt $DIR/raw
func BenchmarkRecallSearch(b *testing.B) {
	mb, _ := strconv.Atoi(os.Getenv("BEN10_RECALL_BENCH_MB"))
	if mb <= 0 {
		b.Skip("set BEN10_RECALL_BENCH_MB (raw history size in MB) to run")
	}
	dir := os.Getenv("BEN10_RECALL_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ben10-recall-bench")
	}
	srcs := benchSources(b)
	_, projects, _ := buildHistory(b, dir, srcs, int64(mb)<<20)
	home := filepath.Join(dir, "index-home")
	_, statErr := os.Stat(index.DefaultPath(home))
	x, err := index.Open(index.Options{Home: home, Key: benchKey(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	if statErr != nil {
		if _, err := x.Rebuild(ctx, index.UpdateOptions{Projects: projects}); err != nil {
			b.Fatal(err)
		}
	}
	queries := benchQueries(b, dir, len(srcs))
	// For scripts/bench-search.sh: the queries, and the key as the user's
	// so that `HOME=$DIR/index-home ben10 search` uses this index as is.
	if err := os.WriteFile(filepath.Join(dir, "queries.txt"), []byte(strings.Join(queries, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(store.AuthKeyPath(home), []byte(strings.Repeat("42", archive.AuthKeySize)+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	c := cpuTime()
	n := 0
	for i := 0; b.Loop(); i++ {
		if _, err := x.Search(ctx, index.Query{Text: queries[i%len(queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((cpuTime()-c).Microseconds())/1000/float64(n), "cpu-ms/op")
}
