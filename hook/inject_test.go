package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestStartupInjectsOnlyPlausibleContext: a current.ctx that sits in the
// project's store (as one committed to a repository would) is injected at
// SessionStart only when it names this project and its times are not in
// the future. The control case shows the same archive is injected when
// both hold.
func TestStartupInjectsOnlyPlausibleContext(t *testing.T) {
	far := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		dir    func(project string) string
		at     func(now time.Time) time.Time
		inject bool
	}{
		{"this project, just saved", func(p string) string { return p }, func(n time.Time) time.Time { return n.Add(-time.Minute) }, true},
		{"empty project path, 2099", func(string) string { return "" }, func(time.Time) time.Time { return far }, false},
		{"empty project path, just saved", func(string) string { return "" }, func(n time.Time) time.Time { return n.Add(-time.Minute) }, false},
		{"this project, 2099", func(p string) string { return p }, func(time.Time) time.Time { return far }, false},
		{"another project", func(p string) string { return filepath.Join(filepath.Dir(p), "other") }, func(n time.Time) time.Time { return n.Add(-time.Minute) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tp := e.transcript("aaaaaaaa-0000-4000-8000-00000000c0de", 0)
			s, err := claude.Import(tp, archive.ImportOptions{ProjectDir: e.project})
			if err != nil {
				t.Fatal(err)
			}
			s.Meta.DirectoryPath = tc.dir(e.project)
			s.Meta.UpdatedAt = tc.at(e.now)
			s.Meta.LastActivity = tc.at(e.now)
			var b bytes.Buffer
			if err := archive.Encode(&b, s, archive.EncodeOptions{Now: func() time.Time { return tc.at(e.now) }}); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(e.project, ".claude", "context")
			if err := os.MkdirAll(root, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, store.CurrentName), b.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			next := "bbbbbbbb-0000-4000-8000-00000000beef"
			r := e.fire("SessionStart", map[string]any{"session_id": next, "source": "startup",
				"transcript_path": filepath.Join(filepath.Dir(tp), next+".jsonl")})
			got := r.out != nil && r.out.HookSpecificOutput != nil && strings.Contains(r.out.HookSpecificOutput.AdditionalContext, "[Ben10]")
			if got != tc.inject {
				t.Fatalf("injected %v, want %v (stdout %q, stderr %q)", got, tc.inject, r.stdout, r.stderr)
			}
		})
	}
}

// TestPostCompactSummaryRedacted: the compaction summary kept in
// hook-state.json until SessionStart(compact) is redacted.
func TestPostCompactSummaryRedacted(t *testing.T) {
	e := newEnv(t)
	e.initStore()
	key := "AKIA" + "Q3EGRTZ5XPL7MW2N"
	e.fire("PostCompact", map[string]any{"session_id": demoSession, "compact_summary": "deployed with aws_access_key_id=" + key + " today"})
	data, err := os.ReadFile(filepath.Join(e.project, ".claude", "context", StateName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(key)) {
		t.Fatalf("hook-state.json holds the AWS key in clear:\n%s", data)
	}
	if !bytes.Contains(data, []byte("deployed with")) {
		t.Fatalf("hook-state.json lost the summary:\n%s", data)
	}
}

// TestRepositoryConfigCannotTurnRedactionOff: a repository's config that
// turns redaction off (and compression, so the archive's bytes show what
// was stored) leaves an AWS key in the transcript redacted in the final
// save.
func TestRepositoryConfigCannotTurnRedactionOff(t *testing.T) {
	e := newEnv(t)
	e.config("  sensitive_redaction: false\n  compression: false\n")
	tp := e.transcript(demoSession, 0)
	key := "AKIA" + "Q3EGRTZ5XPL7MW2N"
	f, err := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","message":{"role":"user","content":"deploy with aws_access_key_id=` + key + `"},"uuid":"u-key","parentUuid":null,"sessionId":"` + demoSession + `","timestamp":"2026-03-02T09:29:30Z","cwd":"` + e.project + `"}` + "\n"
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := e.fire("SessionEnd", map[string]any{"session_id": demoSession, "transcript_path": tp, "reason": "exit"})
	if r.stderr != "" {
		t.Fatalf("SessionEnd: %s", r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(e.project, ".claude", "context", store.CurrentName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(key)) {
		t.Fatal("current.ctx holds the AWS key in clear: the repository's config turned redaction off")
	}
	if !bytes.Contains(data, []byte("aws_access_key_id=")) {
		t.Fatal("current.ctx is not stored uncompressed: the test cannot see what it holds")
	}
}
