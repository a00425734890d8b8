package hookfast

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if id := StatFile(p); id.Exists || id.Path != p {
		t.Fatalf("missing file: %+v", id)
	}
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := StatFile(p)
	if !a.Exists || a.Size != 1 || a != StatFile(p) {
		t.Fatalf("the same file twice: %+v, %+v", a, StatFile(p))
	}
	if err := os.WriteFile(p, []byte("xy"), 0o600); err != nil {
		t.Fatal(err)
	}
	if StatFile(p) == a {
		t.Fatal("a rewritten file has the same identity")
	}
}

func TestCountPrompt(t *testing.T) {
	root := t.TempDir()
	sid := "s-1"
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	p := Pacing{AutoSave: true, Interval: 3, Minutes: 15}
	if done, counted := CountPrompt(root, sid, p, now); done || counted {
		t.Fatalf("no counter: done %v counted %v, want the slow path to count", done, counted)
	}
	if err := WriteCounter(CounterPath(root, sid), Header{Ref: now, Base: 0}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		done, counted := CountPrompt(root, sid, p, now.Add(time.Minute))
		if done != want || !counted {
			t.Fatalf("prompt %d: done %v counted %v, want done %v", i+1, done, counted, want)
		}
	}
	if n, _ := ReadCounter(CounterPath(root, sid)); n != 3 {
		t.Fatalf("counter %d, want 3", n)
	}
	// Minutes elapsed since the reference: due on the next prompt.
	if err := WriteCounter(CounterPath(root, sid), Header{Ref: now, Base: 0}); err != nil {
		t.Fatal(err)
	}
	if done, _ := CountPrompt(root, sid, p, now.Add(16*time.Minute)); done {
		t.Fatal("a prompt 16 minutes after the last checkpoint was not due")
	}
}

func TestProjectDirAndEventKey(t *testing.T) {
	dir := t.TempDir()
	real, _ := CanonicalDir(dir)
	env := func(v string) func(string) string { return func(string) string { return v } }
	if got, err := ProjectDir(env(""), dir); err != nil || got != real {
		t.Fatalf("cwd: %q %v", got, err)
	}
	if got, err := ProjectDir(env(dir), "/nonexistent"); err != nil || got != real {
		t.Fatalf("$CLAUDE_PROJECT_DIR first: %q %v", got, err)
	}
	if _, err := ProjectDir(env(""), ""); !errors.Is(err, ErrNoProject) {
		t.Fatalf("no directory: %v", err)
	}
	if _, err := ProjectDir(env(""), filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory was accepted")
	}
	for _, n := range []string{"UserPromptSubmit", "user-prompt-submit", " USER_PROMPT_SUBMIT "} {
		if EventKey(n) != "userpromptsubmit" {
			t.Errorf("EventKey(%q) = %q", n, EventKey(n))
		}
	}
}

func TestFailIsOneLineAndOneLogEntry(t *testing.T) {
	home := t.TempDir()
	var stderr bytes.Buffer
	Fail(&stderr, home, "", "s1", "/p", errors.New("disk\nfull"), time.Unix(0, 0))
	if strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "ben10 hook: disk full (continuing without Ben10; see ") {
		t.Fatalf("stderr %q", stderr.String())
	}
	data, err := os.ReadFile(ErrorLogPath(home))
	if err != nil || strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), `"error":"disk full"`) || !strings.Contains(string(data), `"session":"s1"`) {
		t.Fatalf("error log %q %v", data, err)
	}
}

func ExamplePacing_DueAt() {
	p := Pacing{AutoSave: true, Interval: 10, Minutes: 15}
	last := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	fmt.Println(p.DueAt(9, last, last.Add(5*time.Minute)))  // 9 prompts, 5 minutes
	fmt.Println(p.DueAt(10, last, last.Add(5*time.Minute))) // the 10th prompt
	fmt.Println(p.DueAt(2, last, last.Add(20*time.Minute))) // 20 minutes
	// Output:
	// false
	// true
	// true
}
