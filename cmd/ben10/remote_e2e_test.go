package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/e2e"
	"github.com/ben10ctx/ben10/internal/s3test"
)

// Two teammates share a project's context through a real MinIO server
// with the ben10 binary only: Alice snapshots a session and pushes it, hands
// Bob the team key, Bob pulls into his own checkout, sees the snapshot in
// "context compaction list" and restores it, and Carol with another key is
// refused.
func TestRealRemoteCLI(t *testing.T) {
	e2e.Require(t, "minio")
	srv := s3test.Start(t)
	const marker = "CLI-PLANTED-MARKER-5e1f"
	type mate struct{ home, project string }
	mk := func(name string) mate {
		home := filepath.Join(t.TempDir(), name)
		project := filepath.Join(home, "work", "cart")
		if err := os.MkdirAll(filepath.Join(project, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/acme/cart-service.git\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return mate{home, project}
	}
	alice, bob, carol := mk("alice"), mk("bob"), mk("carol")
	run := func(m mate, wantCode int, args ...string) result {
		t.Helper()
		r := runBen10(t, nil, append(srv.Env(), "HOME="+m.home), args...)
		if r.code != wantCode {
			t.Fatalf("ben10 %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, wantCode, r.stdout, r.stderr)
		}
		return r
	}
	b, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tr := strings.ReplaceAll(string(b), "/home/dev/cart-service", alice.project)
	tr = strings.Replace(tr, "The cart total is wrong", "The cart total ("+marker+") is wrong", 1)
	trPath := filepath.Join(alice.home, "5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b.jsonl")
	if err := os.WriteFile(trPath, []byte(tr), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "s3://ben10-cli/acme"
	run(alice, 0, "context", "compaction", "snapshot", "--dir", alice.project, "--transcript", trPath, "--force")
	run(alice, 0, "remote", "add", "team", url, "--endpoint", srv.Endpoint)
	run(alice, 0, "remote", "key", "create", "team")
	keyFile := filepath.Join(t.TempDir(), "team.key")
	run(alice, 0, "remote", "key", "export", "team", "-o", keyFile)
	r := run(alice, 0, "remote", "push", "team", "--project", alice.project)
	if !strings.Contains(r.stdout, "github.com/acme/cart-service → team: 1 new") {
		t.Fatalf("push output: %s", r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(alice.home, ".claude-code", "remotes.yaml")); strings.Contains(string(b), srv.SecretKey) {
		t.Fatal("the remotes file holds the secret key")
	}
	if hits := srv.GrepData(t, []byte(marker)); len(hits) > 0 {
		t.Fatalf("the marker is in plaintext on the server: %v", hits)
	}
	r = run(alice, 0, "remote", "push", "team", "--project", alice.project)
	if !strings.Contains(r.stdout, "0 new of 1 archives (1 already there), 0 chunks uploaded") {
		t.Fatalf("second push output: %s", r.stdout)
	}

	run(bob, 0, "remote", "add", "team", url, "--endpoint", srv.Endpoint)
	run(bob, 0, "remote", "key", "import", "team", keyFile)
	r = run(bob, 0, "--json", "remote", "ls", "team", "--project", bob.project)
	var ps []struct {
		Name    string
		Entries []struct{ Kind, Session string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &ps); err != nil || len(ps) != 1 || len(ps[0].Entries) != 1 || ps[0].Entries[0].Kind != "snapshot" {
		t.Fatalf("ls: %v\n%s", err, r.stdout)
	}
	r = run(bob, 0, "remote", "pull", "team", "--project", bob.project)
	if !strings.Contains(r.stdout, "1 pulled, 0 already here, 0 failed") {
		t.Fatalf("pull output: %s", r.stdout)
	}
	r = run(bob, 0, "--json", "context", "compaction", "list", "--dir", bob.project)
	var ix struct {
		Snapshots []struct {
			ID   string
			Tags []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &ix); err != nil || len(ix.Snapshots) != 1 {
		t.Fatalf("compaction list: %v\n%s", err, r.stdout)
	}
	r = run(bob, 0, "context", "list", "--dir", bob.project)
	if !strings.Contains(r.stdout, "snapshot") {
		t.Fatalf("context list does not show the pulled snapshot:\n%s", r.stdout)
	}
	r = run(bob, 0, "context", "compaction", "restore", ix.Snapshots[0].ID, "--dir", bob.project, "--partial", "messages=1-1")
	if !strings.Contains(r.stdout, marker) {
		t.Fatalf("the restored messages lack the session's text:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, alice.home) {
		t.Fatalf("Alice's home directory reached Bob:\n%s", r.stdout)
	}

	run(carol, 0, "remote", "add", "team", url, "--endpoint", srv.Endpoint)
	run(carol, 0, "remote", "key", "create", "team")
	r = run(carol, 1, "remote", "pull", "team", "--project", carol.project)
	if !strings.Contains(r.stderr, "wrong team key") {
		t.Fatalf("wrong key: %s", r.stderr)
	}
}
