package remote

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/ben10ctx/ben10/internal/e2e"
)

// TestRealRemoteThroughput measures push and pull of about 100 MB of raw
// transcript (30 sessions in a store's compaction snapshots) against a
// plain minio-go PutObject/GetObject loop over the same store's .ctx files
// and, when they are on PATH, `mc mirror` and `rclone copy` up and down,
// in the same run on the same server. It reports figures and asserts none (timings are not
// asserted); run it with
//
//	BEN10_E2E=1 BEN10_REMOTE_BENCH=1 go test -run TestRealRemoteThroughput -v ./remote
func TestRealRemoteThroughput(t *testing.T) {
	if os.Getenv("BEN10_REMOTE_BENCH") != "1" {
		t.Skip("benchmark: set BEN10_REMOTE_BENCH=1")
	}
	srv := startServer(t)
	k := testKey(t)
	alice, bob := newMate(t, srv, "alice", "bench"), newMate(t, srv, "bob", "bench")
	const sessions, size = 30, 3500 << 10
	for _, m := range []*mate{alice, bob} {
		// Keep every snapshot (the default retention keeps 5).
		m.st.Config().CompactionSnapshots.RetentionCount = 1000
		m.st.Config().CompactionSnapshots.MaxStorageMB = 100000
	}
	base := time.Now().Add(-time.Hour)
	var raw int64
	for i := range sessions {
		p := alice.transcript(t, fmt.Sprintf("%08x-0000-4000-8000-%012d", i, i), size, uint64(5000+i))
		fi, _ := os.Stat(p)
		raw += fi.Size()
		alice.snapshot(t, p, base.Add(time.Duration(i)*time.Minute))
	}
	var ctxBytes int64
	ctxFiles, _ := filepath.Glob(filepath.Join(alice.st.SnapshotDir(), "*.ctx"))
	for _, f := range ctxFiles {
		fi, _ := os.Stat(f)
		ctxBytes += fi.Size()
	}
	mb := func(n int64, d time.Duration) string {
		return fmt.Sprintf("%.1f MB/s", float64(n)/1e6/d.Seconds())
	}
	ctx := context.Background()
	c := alice.dial(t, k)
	start := time.Now()
	ps, err := c.Push(ctx, alice.st, PushOptions{})
	push := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := c.Push(ctx, alice.st, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	again := time.Since(start)
	start = time.Now()
	pl, err := bob.dial(t, k).Pull(ctx, bob.st, PullOptions{})
	pull := time.Since(start)
	if err != nil || len(pl.Failed) > 0 {
		t.Fatal(err, pl.Failed)
	}
	if len(ctxFiles) != sessions || len(pl.Pulled) != sessions {
		t.Fatalf("%d snapshots in Alice's store, %d pulled, want %d", len(ctxFiles), len(pl.Pulled), sessions)
	}
	t.Logf("data: %d sessions, %.1f MB raw transcript, %.1f MB of .ctx archives", sessions, float64(raw)/1e6, float64(ctxBytes)/1e6)
	t.Logf("ben10 remote push:        %6.2fs  %s of raw transcript (%.1f MB uploaded)", push.Seconds(), mb(raw, push), float64(ps.BytesUploaded)/1e6)
	t.Logf("ben10 remote push again:  %6.2fs  (nothing to upload)", again.Seconds())
	t.Logf("ben10 remote pull:        %6.2fs  %s of raw transcript (rebuilds and saves %d archives)", pull.Seconds(), mb(raw, pull), len(pl.Pulled))

	// Reference 1: the .ctx files with plain PutObject / GetObject.
	start = time.Now()
	for _, f := range ctxFiles {
		if _, err := srv.Client.FPutObject(ctx, "ben10-team", "plain/"+filepath.Base(f), f, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put := time.Since(start)
	dl := t.TempDir()
	start = time.Now()
	for _, f := range ctxFiles {
		if err := srv.Client.FGetObject(ctx, "ben10-team", "plain/"+filepath.Base(f), filepath.Join(dl, filepath.Base(f)), minio.GetObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	get := time.Since(start)
	t.Logf("minio-go PutObject loop:  %6.2fs  %s of .ctx (%s of the raw it holds)", put.Seconds(), mb(ctxBytes, put), mb(raw, put))
	t.Logf("minio-go GetObject loop:  %6.2fs  %s of .ctx (%s of the raw it holds)", get.Seconds(), mb(ctxBytes, get), mb(raw, get))

	// References 2 and 3: mc mirror and rclone copy, when installed
	// (rclone is a Debian package; mc builds from the Go proxy).
	refs := 0
	if e2e.Enabled() {
		if mc, err := exec.LookPath("mc"); err == nil {
			cfg := t.TempDir()
			env := append(os.Environ(), "MC_HOST_b10="+fmt.Sprintf("http://%s:%s@%s", srv.AccessKey, srv.SecretKey, srv.Endpoint[len("http://"):]))
			up := runTool(t, env, mc, "--config-dir", cfg, "--quiet", "mirror", alice.st.SnapshotDir(), "b10/ben10-team/mirror/")
			down := runTool(t, env, mc, "--config-dir", cfg, "--quiet", "mirror", "b10/ben10-team/mirror/", filepath.Join(t.TempDir(), "m"))
			t.Logf("mc mirror up:             %6.2fs  %s of the snapshot directory", up.Seconds(), mb(ctxBytes, up))
			t.Logf("mc mirror down:           %6.2fs  %s of the snapshot directory", down.Seconds(), mb(ctxBytes, down))
			t.Logf("ratios: push/mc-up %.2f×, pull/mc-down %.2f×", push.Seconds()/up.Seconds(), pull.Seconds()/down.Seconds())
			refs++
		}
		if rc, err := exec.LookPath("rclone"); err == nil {
			// A CA bundle set for the machine's other clients makes rclone's
			// S3 backend refuse its plain-HTTP transport: leave it out.
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "AWS_CA_BUNDLE=") {
					env = append(env, kv)
				}
			}
			env = append(env, "RCLONE_CONFIG=/dev/null", "RCLONE_CONFIG_B10_TYPE=s3", "RCLONE_CONFIG_B10_PROVIDER=Minio",
				"RCLONE_CONFIG_B10_ACCESS_KEY_ID="+srv.AccessKey, "RCLONE_CONFIG_B10_SECRET_ACCESS_KEY="+srv.SecretKey,
				"RCLONE_CONFIG_B10_ENDPOINT="+srv.Endpoint, "RCLONE_CONFIG_B10_REGION=us-east-1")
			up := runTool(t, env, rc, "copy", alice.st.SnapshotDir(), "b10:ben10-team/rclone/")
			upAgain := runTool(t, env, rc, "copy", alice.st.SnapshotDir(), "b10:ben10-team/rclone/")
			down := runTool(t, env, rc, "copy", "b10:ben10-team/rclone/", filepath.Join(t.TempDir(), "r"))
			t.Logf("rclone copy up:           %6.2fs  %s of the snapshot directory", up.Seconds(), mb(ctxBytes, up))
			t.Logf("rclone copy up again:     %6.2fs  (nothing to upload)", upAgain.Seconds())
			t.Logf("rclone copy down:         %6.2fs  %s of the snapshot directory", down.Seconds(), mb(ctxBytes, down))
			t.Logf("ratios: push/rclone-up %.2f×, push-again/rclone-again %.2f×, pull/rclone-down %.2f×",
				push.Seconds()/up.Seconds(), again.Seconds()/upAgain.Seconds(), pull.Seconds()/down.Seconds())
			refs++
		}
	}
	if refs == 0 {
		t.Logf("neither mc nor rclone on PATH (with BEN10_E2E=1)")
	}
	t.Logf("ratios: push/PutObject %.2f×, pull/GetObject %.2f×", push.Seconds()/put.Seconds(), pull.Seconds()/get.Seconds())
}

// runTool runs a reference client and returns how long it took.
func runTool(t *testing.T, env []string, prog string, args ...string) time.Duration {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = env
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(prog), args, err, out)
	}
	return time.Since(start)
}
