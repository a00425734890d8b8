// Package s3test starts a real MinIO server for the end-to-end tests of
// package remote and the ben10 remote command: on 127.0.0.1, on a free
// port, with a temporary data directory, stopped when the test ends.
// Callers gate their tests with e2e.Require(t, "minio") first.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a running MinIO server.
type Server struct {
	// Endpoint is its URL (http://127.0.0.1:PORT).
	Endpoint string
	// AccessKey and SecretKey are its root credentials.
	AccessKey, SecretKey string
	// DataDir is where it keeps the objects on disk.
	DataDir string
	// Client is an administrative client.
	Client *minio.Client
}

// Env is the environment that hands the server's credentials to a Ben10
// process the standard way.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey, "AWS_REGION=us-east-1"}
}

// SetEnv sets Env in the test's process environment.
func (s *Server) SetEnv(t testing.TB) {
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Start starts the minio binary found on PATH and waits until it serves.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("minio")
	if err != nil {
		t.Fatalf("minio not on PATH (scripts/ci-deps.sh installs it): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	s := &Server{Endpoint: "http://" + addr, AccessKey: "ben10test", SecretKey: hex.EncodeToString(rnd[:]), DataDir: filepath.Join(t.TempDir(), "data")}
	if err := os.MkdirAll(s.DataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(filepath.Dir(s.DataDir), "minio.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "server", s.DataDir, "--address", addr, "--console-address", "127.0.0.1:0", "--quiet")
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+s.AccessKey, "MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting minio: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
	})
	// Wait for the liveness endpoint (bounded by the deadline, not
	// asserted on: a slow machine only waits longer).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(s.Endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("minio exited: %v\n%s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("minio did not become ready at %s:\n%s", s.Endpoint, log)
		}
	}
	s.Client, err = minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ObjectBytes sums the sizes of the objects under prefix in bucket.
func (s *Server) ObjectBytes(t testing.TB, bucket, prefix string) (n int64, count int) {
	t.Helper()
	for o := range s.Client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("listing %s/%s: %v", bucket, prefix, o.Err)
		}
		n += o.Size
		count++
	}
	return n, count
}

// GrepData reports the files under the server's data directory that
// contain needle (what an attacker reading the disks would find).
func (s *Server) GrepData(t testing.TB, needle []byte) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(s.DataDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), string(needle)) {
			hits = append(hits, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("walking %s: %w", s.DataDir, err))
	}
	return hits
}
