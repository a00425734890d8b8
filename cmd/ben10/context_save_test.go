package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const fixtureSession = "11111111-2222-4333-8444-555555555555"

func fixtureTranscript(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "transcript", "claude", "testdata", fixtureSession+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if updateGolden() {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, p, got, want)
	}
}

func mustRun(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := runBen10(t, nil, env, args...)
	if r.code != 0 {
		t.Fatalf("ben10 %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func TestContextSaveInspectExportRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "s.ctx")
	tr := fixtureTranscript(t)
	mustRun(t, nil, "context", "save", "--transcript", tr, "--out", out, "--redact=false")
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("archive: %v %v", fi, err)
	}
	for _, view := range []string{"", "--tasks", "--compactions", "--files", "--tools", "--messages"} {
		args := []string{"context", "inspect", out}
		name := "inspect"
		if view != "" {
			args = append(args, view)
			name += "_" + strings.TrimPrefix(view, "--")
		}
		golden(t, name, mustRun(t, nil, args...).stdout)
	}
	var summary map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, nil, "context", "inspect", out, "--json").stdout), &summary); err != nil {
		t.Fatalf("inspect --json: %v", err)
	}
	if summary["compactions"].(float64) != 1 {
		t.Errorf("json summary %v", summary)
	}

	exp := filepath.Join(dir, "export")
	mustRun(t, nil, "context", "export", out, "--format", "jsonl", "--dir", exp)
	for _, name := range []string{fixtureSession + ".jsonl", fixtureSession + "/subagents/agent-abc.jsonl"} {
		got, err := os.ReadFile(filepath.Join(exp, name))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(filepath.Dir(tr), name))
		if !bytes.Equal(got, want) {
			t.Errorf("exported %s differs from the original", name)
		}
	}
	if r := runBen10(t, nil, nil, "context", "export", out, "--dir", exp); r.code == 0 || !strings.Contains(r.stderr, "exists") {
		t.Errorf("export over existing files: exit %d, %s", r.code, r.stderr)
	}

	cfg, proj := filepath.Join(dir, "claude"), filepath.Join(dir, "proj")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	// The fixture was saved in /home/dev/proj: restoring it elsewhere
	// takes --force.
	if r := runBen10(t, nil, []string{"CLAUDE_CONFIG_DIR=" + cfg}, "context", "restore", out, "--resume", "--project-dir", proj); r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("restore into another project without --force: exit %d, %s", r.code, r.stderr)
	}
	r := mustRun(t, []string{"CLAUDE_CONFIG_DIR=" + cfg}, "context", "restore", out, "--resume", "--project-dir", proj, "--json", "--force")
	var res struct {
		SessionID string   `json:"session_id"`
		Files     []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || !strings.HasPrefix(res.Files[0], filepath.Join(cfg, "projects")) || !strings.HasSuffix(res.Files[0], res.SessionID+".jsonl") {
		t.Errorf("restore result %+v", res)
	}
	r = mustRun(t, []string{"CLAUDE_CONFIG_DIR=" + cfg}, "context", "restore", out, "--resume", "--project-dir", proj, "--force")
	if !strings.Contains(r.stdout, "claude --resume ") {
		t.Errorf("restore output %q", r.stdout)
	}
	if r := runBen10(t, nil, nil, "context", "restore", out); r.code == 0 {
		t.Errorf("restore without --resume succeeded")
	}
}

func TestContextSaveEncryptedAndIncremental(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: Argon2id at its default cost in the binary; TestArchiveEncrypted covers encryption, make test-long runs this")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "s.ctx")
	pf := filepath.Join(dir, "pass")
	if err := os.WriteFile(pf, []byte("correct horse\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, nil, "context", "save", "--transcript", fixtureTranscript(t), "--out", out, "--encrypt", "--passphrase-file", pf)
	if r := runBen10(t, nil, nil, "context", "inspect", out); r.code == 0 {
		t.Errorf("inspect of an encrypted archive without passphrase succeeded")
	}
	r := mustRun(t, nil, "context", "inspect", out, "--passphrase-file", pf)
	if !strings.Contains(r.stdout, fixtureSession) {
		t.Errorf("inspect: %s", r.stdout)
	}
	// Saving again over the archive (redaction on, the default) keeps it
	// readable.
	r = mustRun(t, nil, "context", "save", "--transcript", fixtureTranscript(t), "--out", out, "--encrypt", "--passphrase-file", pf, "--json")
	if !strings.Contains(r.stdout, `"redacted": true`) {
		t.Errorf("save --json: %s", r.stdout)
	}
	if r := runBen10(t, nil, nil, "context", "save", "--transcript", filepath.Join(dir, "missing.jsonl"), "--out", out); r.code == 0 {
		t.Errorf("save of a missing transcript succeeded")
	}
	if r := runBen10(t, nil, nil, "context", "save", "--transcript", fixtureTranscript(t), "--out", out, "--encrypt"); r.code == 0 {
		t.Errorf("--encrypt without passphrase succeeded")
	}
}

// TestSaveEncryptWithEnvPassphrase: `context save --encrypt` takes its
// passphrase from $BEN10_PASSPHRASE, as the README says, both into a
// file (--out) and into the store; inspect reads it back the same way
// (issue 14 item 8).
func TestSaveEncryptWithEnvPassphrase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: Argon2id at its default cost in the binary; TestArchiveEncrypted covers encryption, make test-long runs this")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "s.ctx")
	env := []string{"BEN10_PASSPHRASE=correct horse"}
	mustRun(t, env, "context", "save", "--transcript", fixtureTranscript(t), "--out", out, "--encrypt")
	if r := runBen10(t, nil, []string{"BEN10_PASSPHRASE="}, "context", "inspect", out); r.code == 0 {
		t.Errorf("inspect of the encrypted archive without passphrase succeeded")
	}
	if r := mustRun(t, env, "context", "inspect", out); !strings.Contains(r.stdout, fixtureSession) {
		t.Errorf("inspect with $BEN10_PASSPHRASE: %s", r.stdout)
	}
	project := t.TempDir()
	mustRun(t, env, "context", "save", "--transcript", fixtureTranscript(t), "--dir", project, "--encrypt")
	if r := runBen10(t, nil, []string{"BEN10_PASSPHRASE="}, "context", "inspect", filepath.Join(project, ".claude", "context", "current.ctx")); r.code == 0 {
		t.Errorf("the store's current.ctx is not encrypted")
	}
	if r := runBen10(t, nil, []string{"BEN10_PASSPHRASE="}, "context", "save", "--transcript", fixtureTranscript(t), "--out", out, "--encrypt"); r.code == 0 || !strings.Contains(r.stderr, "BEN10_PASSPHRASE") {
		t.Errorf("--encrypt without any passphrase: exit %d, %q", r.code, r.stderr)
	}
}
