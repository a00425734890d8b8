package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/snapshot"
)

// project is a project directory with a Claude Code folder holding the
// fixture session, under its own HOME.
type project struct {
	dir, home, claudeDir, transcript string
	env                              []string
}

// newProject sets up the fixture session's first upTo lines (0 = all) as
// the project's only Claude Code transcript.
func newProject(t *testing.T, upTo int) *project {
	t.Helper()
	p := &project{dir: t.TempDir(), home: t.TempDir()}
	canon, err := filepath.EvalSymlinks(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	p.claudeDir = filepath.Join(p.home, ".claude", "projects", archive.ProjectDirName(canon))
	if err := os.MkdirAll(p.claudeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	p.transcript = filepath.Join(p.claudeDir, fixtureSession+".jsonl")
	p.write(t, upTo)
	p.env = []string{"HOME=" + p.home}
	return p
}

func (p *project) write(t *testing.T, upTo int) {
	t.Helper()
	data, err := os.ReadFile(fixtureTranscript(t))
	if err != nil {
		t.Fatal(err)
	}
	if upTo > 0 {
		data = bytes.Join(bytes.SplitAfter(data, []byte("\n"))[:upTo], nil)
	}
	if err := os.WriteFile(p.transcript, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p *project) run(t *testing.T, args ...string) result {
	t.Helper()
	return mustRun(t, p.env, append(args, "--dir", p.dir)...)
}

func (p *project) runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	r := p.run(t, append(args, "--json")...)
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("%v --json: %v\n%s", args, err, r.stdout)
	}
}

func TestCompactionCLI(t *testing.T) {
	t.Parallel()
	p := newProject(t, 18)
	// snapshot without --transcript takes the project's newest transcript.
	r := p.run(t, "context", "compaction", "snapshot")
	if !strings.Contains(r.stdout, "Pre-Compaction Snapshot Saved") || !strings.Contains(r.stdout, "compaction restore 111111") {
		t.Fatalf("snapshot output:\n%s", r.stdout)
	}
	// Debounced: a second snapshot of the session replaces the first,
	// unless forced.
	var res snapshot.CreateResult
	p.runJSON(t, &res, "context", "compaction", "snapshot", "--transcript", p.transcript, "--trigger", "auto")
	if res.Replaced == "" || res.Snapshot.Trigger != "threshold" {
		t.Fatalf("second snapshot: %+v", res)
	}
	p.runJSON(t, &res, "context", "compaction", "snapshot", "--force", "--level", "fastest")
	if res.Replaced != "" {
		t.Fatalf("forced snapshot replaced %s", res.Replaced)
	}
	var ix snapshot.Index
	p.runJSON(t, &ix, "context", "compaction", "list")
	if len(ix.Snapshots) != 2 {
		t.Fatalf("list: %d snapshots", len(ix.Snapshots))
	}
	first, second := ix.Snapshots[0], ix.Snapshots[1]
	short := snapshot.ShortID(first.ID)
	out := p.run(t, "context", "compaction", "list", "--verbose").stdout
	for _, want := range []string{"Compaction Snapshots for", "Total: 2 snapshots", "Retention: 5 snapshots / 30 days / 500 MB max", "compaction show <id>"} {
		if !strings.Contains(out, want) {
			t.Errorf("list --verbose lacks %q:\n%s", want, out)
		}
	}
	// Both snapshots are of session 111111…: its prefix names both unless
	// they were taken in the same second (the second then ends in -2).
	if strings.HasSuffix(first.ID, "-111111") && strings.HasSuffix(second.ID, "-111111") {
		if r := runBen10(t, nil, p.env, "context", "compaction", "show", "111111", "--dir", p.dir); r.code == 0 || !strings.Contains(r.stderr, "ambiguous") {
			t.Errorf("ambiguous id: exit %d %s", r.code, r.stderr)
		}
	}
	out = p.run(t, "context", "compaction", "show", short).stdout
	if !strings.Contains(out, first.ID) || !strings.Contains(out, "SHA-256:") {
		t.Errorf("show:\n%s", out)
	}
	// The session compacts: the live transcript now has the boundary.
	p.write(t, 0)
	var d snapshot.DiffResult
	p.runJSON(t, &d, "context", "compaction", "diff", short)
	if !d.Compacted || len(d.LostSpans) == 0 {
		t.Fatalf("diff: %+v", d)
	}
	out = p.run(t, "context", "compaction", "diff", short).stdout
	for _, want := range []string{"Comparing: " + first.ID + " vs Current Context", "Lost Detail", "Summarized \"Fix the failing test", "Preserved", "Compaction summary"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	// search: literal, regex, JSON lines.
	out = p.run(t, "context", "compaction", "search", "FAILING TEST").stdout
	if !strings.Contains(out, "user ") || !strings.Contains(out, "Fix the «failing» «test»") {
		t.Errorf("search:\n%s", out)
	}
	r = p.run(t, "context", "compaction", "search", `go (test|vet)`, "--regex", "--json", "--limit", "2")
	if n := strings.Count(strings.TrimSpace(r.stdout), "\n") + 1; n != 2 {
		t.Errorf("search --json --limit 2 gave %d lines:\n%s", n, r.stdout)
	}
	if r := runBen10(t, nil, p.env, "context", "compaction", "search", "no-such-words-here", "--dir", p.dir); r.code != 1 {
		t.Errorf("search without match: exit %d", r.code)
	}
	// extract and partial restore.
	md := filepath.Join(t.TempDir(), "m.md")
	p.run(t, "context", "compaction", "extract", short, "--messages", "--range", "1-3", "--out", md)
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "Fix the failing test") {
		t.Errorf("extract markdown:\n%s", b)
	}
	out = p.run(t, "context", "compaction", "extract", short, "--messages", "--format", "jsonl").stdout
	if n := strings.Count(out, "\n"); n != first.PreCompaction.MessageCount {
		t.Errorf("extract jsonl: %d lines, want %d", n, first.PreCompaction.MessageCount)
	}
	out = p.run(t, "context", "compaction", "restore", short, "--partial", "tools=Bash").stdout
	if !strings.Contains(out, `"tool_name":"Bash"`) || strings.Contains(out, `"tool_name":"Read"`) {
		t.Errorf("partial tools:\n%s", out)
	}
	if r := runBen10(t, nil, p.env, "context", "compaction", "restore", short, "--partial", "bogus", "--dir", p.dir); r.code == 0 {
		t.Errorf("bad --partial accepted")
	}
	// full restore → resumable session in CLAUDE_CONFIG_DIR.
	cfg := filepath.Join(t.TempDir(), "claude")
	var rr struct {
		Restore archive.RestoreResult `json:"restore"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(p.env, "CLAUDE_CONFIG_DIR="+cfg), "context", "compaction", "restore", short, "--dir", p.dir, "--json").stdout), &rr); err != nil {
		t.Fatal(err)
	}
	if len(rr.Restore.Files) == 0 || !strings.HasPrefix(rr.Restore.Files[0], cfg) {
		t.Fatalf("restore: %+v", rr)
	}
	// pin, unpin, export, delete, prune.
	p.run(t, "context", "compaction", "pin", short)
	pinned, _ := os.ReadFile(filepath.Join(p.dir, ".claude", "context", "compaction-snapshots", ".pinned"))
	if !strings.Contains(string(pinned), first.ID) {
		t.Errorf(".pinned = %q", pinned)
	}
	if out := p.run(t, "context", "compaction", "list").stdout; !strings.Contains(out, "📌") {
		t.Errorf("list does not show the pin:\n%s", out)
	}
	p.run(t, "context", "compaction", "unpin", short)
	exp := filepath.Join(t.TempDir(), "snap.ctx")
	p.run(t, "context", "compaction", "export", short, exp)
	if err := ctxfmt.VerifyFile(exp, ctxfmt.VerifyOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
	if r := runBen10(t, nil, p.env, "context", "compaction", "export", short, exp, "--dir", p.dir); r.code == 0 {
		t.Errorf("export over an existing file succeeded")
	}
	p.run(t, "context", "compaction", "delete", snapshot.ShortID(second.ID))
	var pr map[string][]string
	p.runJSON(t, &pr, "context", "compaction", "prune")
	p.runJSON(t, &ix, "context", "compaction", "list")
	if len(ix.Snapshots) != 1 || ix.Snapshots[0].ID != first.ID {
		t.Fatalf("after delete: %+v", ix.Snapshots)
	}
	audit, _ := os.ReadFile(filepath.Join(p.home, ".claude-code", "audit.log"))
	for _, a := range []string{"context_save", "context_restore", "context_export", "context_delete"} {
		if !bytes.Contains(audit, []byte(`"action":"`+a+`"`)) {
			t.Errorf("audit log lacks %s", a)
		}
	}
}

func TestContextStoreCLI(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	// Capture a project file so that reconciliation has content to diff.
	// The fixture's paths are under /home/dev/proj, outside the project, so
	// the registry is exercised through the snapshot package's own tests;
	// here the commands' wiring is checked.
	if out := p.run(t, "context", "status", "--brief").stdout; !strings.Contains(out, "no saved context") {
		t.Errorf("status --brief before save: %q", out)
	}
	out := p.run(t, "context", "save").stdout
	if !strings.Contains(out, "current.ctx") {
		t.Fatalf("save: %s", out)
	}
	gi, _ := os.ReadFile(filepath.Join(p.dir, ".gitignore"))
	_ = gi // a temp dir is no git work tree: nothing is added (store's rule)
	out = p.run(t, "context", "status", "--brief").stdout
	if !strings.Contains(out, "17 msgs") || !strings.Contains(out, "0 snap") {
		t.Errorf("status --brief: %q", out)
	}
	out = p.run(t, "context", "status").stdout
	for _, want := range []string{"Context Status for", "Location:", ".claude/context/current.ctx", "Health:", "✓ Good"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	p.run(t, "context", "save", "--name", "pre-refactor", "--export", "team")
	pkg := filepath.Join(p.dir, ".claude", "context", "exports", "team.ctxpkg")
	a, err := archive.OpenFile(pkg, archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := a.RawFiles()
	a.Close()
	if err != nil || len(raw) == 0 {
		t.Fatal(err)
	}
	for _, f := range raw {
		if bytes.Contains(f.Data, []byte(p.home)) {
			t.Errorf("export %s still holds the home directory", f.Name)
		}
	}
	out = p.run(t, "context", "list").stdout
	for _, want := range []string{"current", "named", "pre-refactor", "export", "team"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	var list []map[string]any
	p.runJSON(t, &list, "context", "list")
	if len(list) != 3 {
		t.Errorf("list --json: %d entries", len(list))
	}
	out = p.run(t, "context", "diff").stdout
	if !strings.Contains(out, "Changes since last session") {
		t.Errorf("diff:\n%s", out)
	}
	p.run(t, "context", "diff", "--reconcile")
	cfg := filepath.Join(t.TempDir(), "claude")
	env := append(p.env, "CLAUDE_CONFIG_DIR="+cfg)
	out = mustRun(t, env, "context", "restore", "--name", "pre-refactor", "--dir", p.dir).stdout
	if !strings.Contains(out, "Context Restored") || !strings.Contains(out, "claude --resume") {
		t.Errorf("restore --name:\n%s", out)
	}
	// The restore installed the named save as current.ctx and moved the
	// previous one to history.
	var rec map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, env, "context", "restore", "--from", pkg, "--dir", p.dir, "--json", "--force").stdout), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["installed"] == "" {
		t.Errorf("restore --from: %v", rec)
	}
	// Damage current.ctx: restore falls back to history and says so.
	cur := filepath.Join(p.dir, ".claude", "context", "current.ctx")
	data, _ := os.ReadFile(cur)
	data[len(data)/2] ^= 0xff
	os.WriteFile(cur, data, 0o600)
	r := runBen10(t, nil, env, "context", "restore", "--dir", p.dir)
	if r.code != 0 || !strings.Contains(r.stderr, "missing or damaged") || !strings.Contains(r.stderr, "history") {
		t.Fatalf("fallback restore: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if ents, _ := filepath.Glob(filepath.Join(p.dir, ".claude", "context", "corrupt", "*current.ctx")); len(ents) != 1 {
		t.Errorf("damaged current.ctx not moved to corrupt/: %v", ents)
	}
	// clear needs confirmation or --force, and keeps the context in history.
	if r := runBen10(t, []byte("n\n"), p.env, "context", "clear", "--dir", p.dir); r.code == 0 {
		t.Errorf("clear without confirmation succeeded")
	}
	mustRun(t, p.env, "context", "clear", "--force", "--dir", p.dir)
	if _, err := os.Stat(cur); !os.IsNotExist(err) {
		t.Errorf("current.ctx still there after clear")
	}
	var pr map[string]any
	p.runJSON(t, &pr, "context", "prune")
	if _, ok := pr["removed"]; !ok {
		t.Errorf("prune --json: %v", pr)
	}
	// A missing Claude Code folder is a clear error.
	other := t.TempDir()
	if r := runBen10(t, nil, p.env, "context", "save", "--dir", other); r.code == 0 || !strings.Contains(r.stderr, "no Claude Code transcript") {
		t.Errorf("save without transcript: exit %d %s", r.code, r.stderr)
	}
}

// TestConcurrentCLISnapshots runs 16 ben10 processes taking a snapshot of
// the same project at once (distinct sessions, forced).
func TestConcurrentCLISnapshots(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	os.MkdirAll(filepath.Join(p.dir, ".claude"), 0o700)
	os.WriteFile(filepath.Join(p.dir, ".claude", "config.yaml"), []byte("context:\n  compaction_snapshots:\n    retention_count: 100\n"), 0o600)
	const n = 16
	done := make(chan result, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			done <- runBen10(t, nil, p.env, "context", "compaction", "snapshot", "--transcript", p.transcript, "--force",
				"--session", "sess"+string(rune('a'+i))+"-x", "--level", "fastest", "--dir", p.dir, "--json")
		}(i)
	}
	for i := 0; i < n; i++ {
		if r := <-done; r.code != 0 {
			t.Fatalf("snapshot process: exit %d %s", r.code, r.stderr)
		}
	}
	p.run(t, "context", "compaction", "prune") // merges any pending snapshot
	var ix snapshot.Index
	p.runJSON(t, &ix, "context", "compaction", "list")
	if len(ix.Snapshots) != n {
		t.Fatalf("%d snapshots, want %d", len(ix.Snapshots), n)
	}
	for _, s := range ix.Snapshots {
		if err := ctxfmt.VerifyFile(filepath.Join(p.dir, ".claude", "context", "compaction-snapshots", s.File), ctxfmt.VerifyOptions{Deep: true}); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
	}
}

// TestSaveRedactsFromConfig: sensitive_redaction (on by default) hides a
// token before it is stored; inspect reports it; turning it off in the
// project configuration is ignored, in the user's configuration it keeps
// the transcript byte for byte.
func TestSaveRedactsFromConfig(t *testing.T) {
	t.Parallel()
	p := newProject(t, 0)
	data, _ := os.ReadFile(p.transcript)
	token := "ghp_1234567890abcdefghijABCDEFGHIJ123456"
	data = bytes.Replace(data, []byte("Fix the failing test"), []byte("Fix the failing test with token "+token), 1)
	os.WriteFile(p.transcript, data, 0o600)
	var res map[string]any
	p.runJSON(t, &res, "context", "save")
	if red, _ := res["redactions"].(map[string]any); len(red) == 0 {
		t.Fatalf("no redactions reported: %v", res)
	}
	cur := filepath.Join(p.dir, ".claude", "context", "current.ctx")
	out := mustRun(t, p.env, "context", "inspect", cur).stdout
	if !strings.Contains(out, "redacted:         true (1 secret; 1 transcript lines") {
		t.Errorf("inspect does not show the redaction:\n%s", out)
	}
	if out := mustRun(t, p.env, "context", "inspect", cur, "--messages").stdout; strings.Contains(out, token) {
		t.Errorf("token stored")
	}
	// A repository's config cannot turn redaction off (docs/SECURITY.md);
	// the user's own config can.
	os.MkdirAll(filepath.Join(p.dir, ".claude"), 0o700)
	os.WriteFile(filepath.Join(p.dir, ".claude", "config.yaml"), []byte("context:\n  sensitive_redaction: false\n"), 0o600)
	p.run(t, "context", "save", "--full")
	if out := mustRun(t, p.env, "context", "inspect", cur, "--messages").stdout; strings.Contains(out, token) {
		t.Errorf("the project's config turned redaction off: token stored")
	}
	os.MkdirAll(filepath.Join(p.home, ".claude-code"), 0o700)
	os.WriteFile(filepath.Join(p.home, ".claude-code", "config.yaml"), []byte("context:\n  sensitive_redaction: false\n"), 0o600)
	p.run(t, "context", "save", "--full")
	if out := mustRun(t, p.env, "context", "inspect", cur, "--messages").stdout; !strings.Contains(out, token) {
		t.Errorf("redaction off in the user's config but token missing")
	}
}
