package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/hook"
)

const otherSessionID = "0b6c1d2e-3f40-4a51-8b62-7c8d9e0f1a2b"

// restoreWorld is a project whose store holds, through the real hooks, a
// checkpoint and a history file of the demo session and current.ctx of a
// second session.
func restoreWorld(t *testing.T) *hookWorld {
	t.Helper()
	w := newHookWorld(t, demoSessionID)
	full, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	full = bytes.ReplaceAll(full, []byte("/home/dev/cart-service"), []byte(w.project))
	w.writeTranscript(full)
	if err := os.MkdirAll(filepath.Join(w.project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.project, ".claude", "config.yaml"), []byte("context:\n  checkpoint_interval: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("UserPromptSubmit", map[string]any{"prompt": "go on"}) // checkpoint cp-1
	w.fire("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
	// A second session ends: the first one's current.ctx goes to history.
	other := filepath.Join(filepath.Dir(w.transcript), otherSessionID+".jsonl")
	if err := os.WriteFile(other, bytes.ReplaceAll(full, []byte(demoSessionID), []byte(otherSessionID)), 0o600); err != nil {
		t.Fatal(err)
	}
	w.fire("SessionEnd", map[string]any{"session_id": otherSessionID, "transcript_path": other, "reason": "logout"})
	for _, g := range []string{"current.ctx", "checkpoints/cp-*.ctx", "history/*.ctx"} {
		if m, _ := filepath.Glob(filepath.Join(w.contextDir(), g)); len(m) == 0 {
			t.Fatalf("restore world lacks %s", g)
		}
	}
	return w
}

func (w *hookWorld) restore(args ...string) result {
	w.t.Helper()
	cfg := filepath.Join(w.home, "claude-config")
	return runBen10(w.t, nil, append(append([]string(nil), w.env...), "CLAUDE_CONFIG_DIR="+cfg), append([]string{"context", "restore", "--dir", w.project}, args...)...)
}

func (w *hookWorld) damageCurrent() {
	w.t.Helper()
	cur := filepath.Join(w.contextDir(), "current.ctx")
	data, err := os.ReadFile(cur)
	if err != nil {
		w.t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(cur, data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func resumableSessions(t *testing.T, w *hookWorld) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(w.home, "claude-config", "projects", "*", "*.jsonl"))
	return m
}

func TestRestoreModes(t *testing.T) {
	t.Parallel()
	w := restoreWorld(t)

	// summary: the digest, no session written.
	r := w.restore("--mode", "summary")
	if r.code != 0 || !strings.Contains(r.stdout, "internal/cart/total_test.go") {
		t.Fatalf("summary: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var sum struct {
		Mode, Source, Digest string
		Recall               archive.Recall
	}
	if err := json.Unmarshal([]byte(w.restore("--mode", "summary", "--json").stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Mode != "summary" || filepath.Base(sum.Source) != "current.ctx" || sum.Digest == "" || len(sum.Recall.Files) == 0 {
		t.Fatalf("summary --json: %+v", sum)
	}
	if n := archive.DigestLen(sum.Digest); n > archive.RecoveryDigestBudget {
		t.Fatalf("summary digest %d characters", n)
	}
	if s := resumableSessions(t, w); len(s) != 0 {
		t.Fatalf("summary wrote sessions %v", s)
	}

	// selective without a terminal needs --components.
	if r := w.restore("--mode", "selective"); r.code == 0 || !strings.Contains(r.stderr, "--components") {
		t.Fatalf("selective without components: exit %d %q", r.code, r.stderr)
	}
	// files and tasks: listed, no session written.
	r = w.restore("--mode", "selective", "--components", "files,tasks")
	if r.code != 0 || !strings.Contains(r.stdout, "Files worked on") || !strings.Contains(r.stdout, "Tasks:") || strings.Contains(r.stdout, "claude --resume") {
		t.Fatalf("selective files,tasks: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s := resumableSessions(t, w); len(s) != 0 {
		t.Fatalf("selective files,tasks wrote sessions %v", s)
	}
	var sel struct {
		Components []string
		Files      []archive.RecallFile
		Tasks      archive.TaskState
		Restore    *archive.RestoreResult
	}
	if err := json.Unmarshal([]byte(w.restore("--components", "t,f", "--json").stdout), &sel); err != nil {
		t.Fatal(err)
	}
	if strings.Join(sel.Components, ",") != "files,tasks" || len(sel.Files) == 0 || len(sel.Tasks.Pending)+len(sel.Tasks.Active)+len(sel.Tasks.Completed) == 0 || sel.Restore != nil {
		t.Fatalf("selective --json: %+v", sel)
	}
	// messages: the resumable session.
	r = w.restore("--mode", "selective", "--components", "messages")
	if r.code != 0 || !strings.Contains(r.stdout, "claude --resume") {
		t.Fatalf("selective messages: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s := resumableSessions(t, w); len(s) != 1 {
		t.Fatalf("selective messages wrote %v", s)
	}
	if r := w.restore("--mode", "selective", "--components", "bogus"); r.code == 0 || !strings.Contains(r.stderr, "unknown component") {
		t.Fatalf("bogus component: exit %d %q", r.code, r.stderr)
	}

	// full: the resumable session (the existing restore).
	r = w.restore("--mode", "full")
	if r.code != 0 || !strings.Contains(r.stdout, "Context Restored") || !strings.Contains(r.stdout, "claude --resume") {
		t.Fatalf("full: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if s := resumableSessions(t, w); len(s) != 2 {
		t.Fatalf("full restore: sessions %v", s)
	}

	// Bad values are errors.
	for _, args := range [][]string{{"--mode", "partial"}, {"--on-corrupt", "pray"}, {"--mode", "summary", "--components", "files"}, {"--mode", "fresh", "--checkpoint", "1"}} {
		if r := w.restore(args...); r.code == 0 {
			t.Errorf("restore %v succeeded", args)
		}
	}
}

// TestRestoreFresh: a fresh start keeps the files but the next
// SessionStart(startup) injects nothing; a control world without it does.
func TestRestoreFresh(t *testing.T) {
	t.Parallel()
	control := restoreWorld(t)
	third := "7d8e9f00-1122-4334-8556-a7b8c9d0e1f2"
	startup := func(w *hookWorld) *hook.Output {
		return w.fire("SessionStart", map[string]any{"session_id": third, "transcript_path": filepath.Join(filepath.Dir(w.transcript), third+".jsonl"), "source": "startup"})
	}
	if out := startup(control); out == nil || out.HookSpecificOutput == nil || out.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("control: startup injected nothing")
	}

	w := restoreWorld(t)
	var res struct {
		Mode     string
		Declined []hook.Declined
	}
	r := w.restore("--mode", "fresh", "--json")
	if r.code != 0 {
		t.Fatalf("fresh: exit %d %s", r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Mode != "fresh" || len(res.Declined) != 2 {
		t.Fatalf("fresh: %+v", res)
	}
	if out := startup(w); out != nil {
		t.Fatalf("startup after a fresh start injected %+v", out)
	}
	if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err != nil {
		t.Fatalf("fresh start removed current.ctx: %v", err)
	}
	// The human output says what was ignored.
	if r := w.restore("--mode", "fresh"); r.code != 0 || !strings.Contains(r.stdout, "Fresh start") {
		t.Fatalf("fresh (text): %d %q", r.code, r.stdout)
	}
}

// TestRestoreCorruptChoices: each --on-corrupt choice for a damaged
// current.ctx, and the default without a terminal.
func TestRestoreCorruptChoices(t *testing.T) {
	t.Parallel()
	// One world for every choice: each starts from it as it was built,
	// current.ctx damaged (the world costs four hook runs).
	world := restoreWorld(t)
	world.damageCurrent()
	reset := saveTree(t, filepath.Dir(world.home))
	choice := func(t *testing.T) *hookWorld {
		t.Cleanup(func() { reset(t) })
		w := *world
		w.t = t
		return &w
	}
	t.Run("checkpoint", func(t *testing.T) {
		w := choice(t)
		r := w.restore("--on-corrupt", "checkpoint")
		if r.code != 0 || !strings.Contains(r.stderr, "checkpoint cp-") || !strings.Contains(r.stdout, "Context Restored") || !strings.Contains(r.stdout, "checkpoints") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if m, _ := filepath.Glob(filepath.Join(w.contextDir(), "corrupt", "*current.ctx")); len(m) != 1 {
			t.Fatalf("damaged current.ctx not in corrupt/: %v", m)
		}
	})
	t.Run("history", func(t *testing.T) {
		w := choice(t)
		r := w.restore("--on-corrupt", "history", "--mode", "summary")
		if r.code != 0 || !strings.Contains(r.stderr, "history") || !strings.Contains(r.stdout, "internal/cart/total_test.go") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("fresh", func(t *testing.T) {
		w := choice(t)
		r := w.restore("--on-corrupt", "fresh")
		if r.code != 0 || !strings.Contains(r.stdout, "Fresh start") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); !os.IsNotExist(err) {
			t.Fatalf("damaged current.ctx still in place: %v", err)
		}
		if m, _ := filepath.Glob(filepath.Join(w.contextDir(), "corrupt", "*current.ctx")); len(m) != 1 {
			t.Fatalf("damaged current.ctx not kept in corrupt/: %v", m)
		}
	})
	t.Run("export", func(t *testing.T) {
		w := choice(t)
		damaged, _ := os.ReadFile(filepath.Join(w.contextDir(), "current.ctx"))
		r := w.restore("--on-corrupt", "export", "--json")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		var res struct {
			Dir   string
			Files []string
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatal(err)
		}
		copied, err := os.ReadFile(filepath.Join(res.Dir, "current.ctx"))
		if err != nil || !bytes.Equal(copied, damaged) {
			t.Fatalf("export did not copy the damaged file byte for byte: %v", err)
		}
		if _, err := os.Stat(filepath.Join(w.contextDir(), "current.ctx")); err != nil {
			t.Fatalf("export moved current.ctx: %v", err)
		}
	})
	t.Run("default without a terminal", func(t *testing.T) {
		w := choice(t)
		r := w.restore()
		if r.code != 0 || !strings.Contains(r.stderr, "missing or damaged") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// saveTree records the files, directories and symbolic links under root
// and returns a function that puts root back as it was recorded: what
// was added since is removed, what was changed or removed is rewritten
// with its mode.
func saveTree(t *testing.T, root string) (reset func(t *testing.T)) {
	t.Helper()
	type entry struct {
		path, link string
		mode       os.FileMode
		data       []byte
	}
	var entries []entry
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entry{path: p, mode: fi.Mode()}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			e.link, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			e.data, err = os.ReadFile(p)
		}
		entries = append(entries, e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) {
		top, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range top {
			if err := os.RemoveAll(filepath.Join(root, d.Name())); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range entries { // parents before their contents
			switch {
			case e.mode.IsDir():
				err = os.Mkdir(e.path, e.mode.Perm())
			case e.mode&os.ModeSymlink != 0:
				err = os.Symlink(e.link, e.path)
			default:
				err = os.WriteFile(e.path, e.data, e.mode.Perm())
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestParseComponents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"messages,files,tasks": "messages,files,tasks",
		"t, m":                 "messages,tasks",
		"file task":            "files,tasks",
		"all":                  "messages,files,tasks",
		"F":                    "files",
	} {
		got, err := parseComponents(in)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("parseComponents(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ",", "x", "messages,x"} {
		if _, err := parseComponents(bad); err == nil {
			t.Errorf("parseComponents(%q) accepted", bad)
		}
	}
}

// TestAskComponents is the terminal dialogue, fed from a reader.
func TestAskComponents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"\n", "messages,files,tasks", true},
		{"f,t\n", "files,tasks", true},
		{"nonsense\nm\n", "messages", true},
		{"", "", false},
		{"x\ny\nz\nw\nv\nm\n", "", false},
	} {
		var w bytes.Buffer
		got, err := askComponents(&w, strings.NewReader(tc.in))
		if (err == nil) != tc.ok || strings.Join(got, ",") != tc.want {
			t.Errorf("answers %q: %v, %v (prompt %q)", tc.in, got, err, w.String())
		}
	}
}

// Banners carry escape codes only on a terminal, never with NO_COLOR or
// --json, and never on a writer other than the standard streams (a
// buffer, a pipe).
func TestStyledOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	var out, b bytes.Buffer
	for _, c := range []struct {
		name  string
		g     globalOptions
		w     *bytes.Buffer
		color bool
	}{
		{"terminal", globalOptions{io: &IOStreams{Out: &out, OutTTY: true}}, &out, true},
		{"not a terminal", globalOptions{io: &IOStreams{Out: &out}}, &out, false},
		{"NO_COLOR", globalOptions{io: &IOStreams{Out: &out, OutTTY: true, NoColor: true}}, &out, false},
		{"--json", globalOptions{io: &IOStreams{Out: &out, OutTTY: true}, json: true}, &out, false},
		{"another writer", globalOptions{io: &IOStreams{Out: &out, OutTTY: true}}, &b, false},
	} {
		got := c.g.styled(c.w, styleBold, "Context Restored")
		if (got != "Context Restored") != c.color {
			t.Errorf("%s: styled %q", c.name, got)
		}
		b.Reset()
		box(&c.g, &b, []string{"Title", "", "body"})
		if strings.Contains(b.String(), "\x1b[") {
			t.Errorf("%s: box wrote escape codes to a buffer: %q", c.name, b.String())
		}
	}
	// systemStreams checks the real streams: go test's are not terminals
	// when piped, and a pipe never is.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(w) {
		t.Fatal("a pipe is a terminal")
	}
}

// A restore opens the project's store once, whichever mode runs: a
// warning about its configuration is printed once (it was printed once
// per open, up to three times).
func TestRestoreWarnsOnce(t *testing.T) {
	t.Parallel()
	p := newProject(t, 18)
	p.run(t, "context", "save")
	if err := os.WriteFile(filepath.Join(p.dir, ".claude", "config.yaml"), []byte("context:\n  bogus_key: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"context", "restore"},
		{"context", "restore", "--mode", "summary"},
		{"context", "restore", "--mode", "selective", "--components", "tasks"},
		{"context", "restore", "--mode", "fresh"},
	} {
		r := p.run(t, args...)
		if n := strings.Count(r.stderr, "unknown key context.bogus_key"); n != 1 {
			t.Errorf("%s: the configuration warning is printed %d times, want once:\n%s", strings.Join(args, " "), n, r.stderr)
		}
	}
}
