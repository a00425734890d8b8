package hookfast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a supervised hook child (see
// TestMain): its value says how the child behaves.
const helperEnv = "BEN10_TEST_SUPERVISED_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperChild(mode))
	}
	os.Exit(m.Run())
}

// helperChild is the child's behaviour for one Supervise test case.
func helperChild(mode string) int {
	if !IsChild() || os.Getenv(ChildEnv) != "" {
		fmt.Fprintln(os.Stderr, "child not marked, or the marker was not removed")
		return 3
	}
	in, _ := io.ReadAll(os.Stdin)
	switch mode {
	case "ok":
		fmt.Printf(`{"echo":%q}`, in)
		fmt.Fprintln(os.Stderr, "ben10 test: a warning")
		return 0
	case "panic":
		fmt.Print(`{"partial":`)
		panic("boom")
	case "fatal":
		// A fatal runtime error that no recover() can catch.
		fmt.Print(`{"partial":`)
		debug.SetMaxStack(1 << 16)
		var rec func(int) int
		rec = func(n int) int { return rec(n+1) + 1 }
		return rec(0)
	case "exit2":
		fmt.Fprintln(os.Stderr, "blocking error")
		return 2
	case "sleep":
		fmt.Print(`{"partial":`)
		time.Sleep(time.Hour)
	case "flood":
		big := bytes.Repeat([]byte("x"), 1<<20)
		for range maxChildStdout>>20 + 2 {
			os.Stdout.Write(big)
		}
		return 0
	case "grandchild":
		// A process that inherits the output pipes and outlives the child.
		cmd := exec.Command("sleep", "3600")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			return 4
		}
		fmt.Print(`{}`)
		return 0
	}
	return 5
}

func TestSupervise(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mode       string
		deadline   time.Duration
		wantOut    string // forwarded stdout
		wantStderr string // substring of the one stderr line
	}{
		{"ok", time.Minute, `{"echo":"{\"session_id\":\"s1\"}"}`, "ben10 test: a warning"},
		{"panic", time.Minute, "", "panic: boom"},
		{"fatal", time.Minute, "", "fatal error: stack overflow"},
		{"exit2", time.Minute, "", "(exit status 2): blocking error"},
		{"sleep", 300 * time.Millisecond, "", "did not finish within its 300ms deadline"},
		{"flood", time.Minute, "", "output exceeded"},
		{"grandchild", time.Minute, "{}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv(helperEnv, tc.mode)
			var out, errb bytes.Buffer
			code := Supervise(Supervision{
				Bin: exe, Input: []byte(`{"session_id":"s1"}`),
				Event: "SessionEnd", Session: "s1", Project: "/p", Home: home, Deadline: tc.deadline,
			}, &out, &errb)
			if code != 0 {
				t.Fatalf("exit code %d, want 0", code)
			}
			if out.String() != tc.wantOut {
				t.Errorf("stdout = %q, want %q", out.String(), tc.wantOut)
			}
			if tc.wantStderr == "" {
				if errb.Len() != 0 || len(readLog(t, home)) != 0 {
					t.Errorf("stderr = %q, log = %v; want neither", errb.String(), readLog(t, home))
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.wantStderr) {
				t.Errorf("stderr = %q, want one line containing %q", errb.String(), tc.wantStderr)
			}
			entries := readLog(t, home)
			if tc.mode == "ok" {
				if len(entries) != 0 {
					t.Errorf("error log has %d entries for a success", len(entries))
				}
				return
			}
			if len(entries) != 1 || entries[0].Event != "SessionEnd" || entries[0].Session != "s1" || !strings.Contains(entries[0].Error, tc.wantStderr) {
				t.Errorf("error log = %+v, want one SessionEnd entry for s1 containing %q", entries, tc.wantStderr)
			}
		})
	}
}

func readLog(t *testing.T, home string) []ErrorEntry {
	t.Helper()
	f, err := os.Open(ErrorLogPath(home))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var es []ErrorEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e ErrorEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("error log line %q: %v", sc.Text(), err)
		}
		es = append(es, e)
	}
	return es
}

func TestEventDeadlineWithinBudget(t *testing.T) {
	for _, ev := range []string{"SessionStart", "user-prompt-submit", "PostToolUse", "PreCompact", "SessionEnd", "Stop", "PostCompact"} {
		if d := EventDeadline(ev); d <= 0 || d > 60*time.Second {
			t.Errorf("EventDeadline(%s) = %v, outside (0, 60s]", ev, d)
		}
	}
}
