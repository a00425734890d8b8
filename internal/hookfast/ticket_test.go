package hookfast

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// ticketWorld: a home, a project with a configuration file, a store.
type ticketWorld struct {
	home, project, cfg, userCfg, root string
}

func newTicketWorld(t *testing.T) *ticketWorld {
	t.Helper()
	base := t.TempDir()
	w := &ticketWorld{home: filepath.Join(base, "home"), project: filepath.Join(base, "proj")}
	w.cfg = filepath.Join(w.project, ".claude", "config.yaml")
	w.userCfg = filepath.Join(w.home, ".claude-code", "config.yaml")
	w.root = filepath.Join(w.project, ".claude", "context")
	for _, d := range []string{w.home, w.root} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w.cfg, []byte("context:\n  checkpoint_interval: 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := CanonicalDir(w.project)
	if err != nil {
		t.Fatal(err)
	}
	w.project = p
	return w
}

func (w *ticketWorld) ticket() *Ticket {
	return &Ticket{Project: w.project, Root: w.root, Pacing: Pacing{AutoSave: true, Interval: 5, Minutes: 15}, Files: StatFiles(w.userCfg, w.cfg)}
}

// hasSysID: file identities include the inode and change time.
var hasSysID = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

func TestTicketRoundTripAndInvalidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, w *ticketWorld, tk *Ticket)
		valid  bool
	}{
		{"unchanged", func(*testing.T, *ticketWorld, *Ticket) {}, true},
		{"project configuration edited (same size)", func(t *testing.T, w *ticketWorld, _ *Ticket) {
			if err := os.WriteFile(w.cfg, []byte("context:\n  checkpoint_interval: 9\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"project configuration replaced by rename, same size and mtime", func(t *testing.T, w *ticketWorld, _ *Ticket) {
			data, _ := os.ReadFile(w.cfg)
			tmp := w.cfg + ".new"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(w.cfg)
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, w.cfg); err != nil {
				t.Fatal(err)
			}
		}, !hasSysID},
		{"user configuration created", func(t *testing.T, w *ticketWorld, _ *Ticket) {
			if err := os.MkdirAll(filepath.Dir(w.userCfg), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(w.userCfg, []byte("context: {}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"project configuration removed", func(t *testing.T, w *ticketWorld, _ *Ticket) {
			if err := os.Remove(w.cfg); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"fallback store whose primary appeared", func(t *testing.T, w *ticketWorld, tk *Ticket) {
			tk.Primary = filepath.Join(w.project, "primary")
			if err := WriteTicket(w.home, tk); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(tk.Primary, 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"fallback store, primary still absent", func(t *testing.T, w *ticketWorld, tk *Ticket) {
			tk.Primary = filepath.Join(w.project, "primary")
			if err := WriteTicket(w.home, tk); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"damaged ticket", func(t *testing.T, w *ticketWorld, _ *Ticket) {
			if err := os.WriteFile(TicketPath(w.home, w.project), []byte(`{"v":1,"project":`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"ticket over the size bound", func(t *testing.T, w *ticketWorld, tk *Ticket) {
			// Valid JSON naming this project, padded past maxTicketBytes
			// with white space: refused unread.
			data, _ := os.ReadFile(TicketPath(w.home, w.project))
			data = append(data, bytes.Repeat([]byte(" "), maxTicketBytes)...)
			if err := os.WriteFile(TicketPath(w.home, w.project), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"another project's ticket under this name", func(t *testing.T, w *ticketWorld, tk *Ticket) {
			other := *tk
			other.Project = "/elsewhere"
			other.Version = TicketVersion
			data := fmt.Sprintf(`{"v":1,"project":%q,"root":%q,"pacing":{"auto_save":true},"files":[{"path":%q}]}`, other.Project, other.Root, w.userCfg)
			if err := os.WriteFile(TicketPath(w.home, w.project), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"older layout", func(t *testing.T, w *ticketWorld, tk *Ticket) {
			data, _ := os.ReadFile(TicketPath(w.home, w.project))
			data = bytes.Replace(data, []byte(`"v":1`), []byte(`"v":0`), 1)
			if err := os.WriteFile(TicketPath(w.home, w.project), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTicketWorld(t)
			tk := w.ticket()
			if err := WriteTicket(w.home, tk); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(TicketPath(w.home, w.project)); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("ticket file: %v %v", fi, err)
			}
			tc.change(t, w, tk)
			got, ok := LoadTicket(w.home, w.project)
			if ok != tc.valid {
				t.Fatalf("LoadTicket valid = %v, want %v", ok, tc.valid)
			}
			if ok && !got.Same(tk) {
				t.Fatalf("round trip: %+v, want %+v", got, tk)
			}
		})
	}
}

func TestStatFileAndSameFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if id := StatFile(p); id.Exists || id.Path != p {
		t.Fatalf("missing file: %+v", id)
	}
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := StatFiles(p)
	if !SameFiles(a, StatFiles(p)) {
		t.Fatal("the same file twice is not the same")
	}
	if SameFiles(a, nil) || SameFiles([]FileID{{Path: p, Exists: true, Size: -1}}, []FileID{{Path: p, Exists: true, Size: -1}}) {
		t.Fatal("different lists, or unreadable files, compared equal")
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
