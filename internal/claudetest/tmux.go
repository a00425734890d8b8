package claudetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Tmux is a tmux server on a private socket running one session, "main",
// whose single pane runs a program (an interactive claude) in the home's
// project directory with the home's environment. The pane stays after
// the program exits (remain-on-exit) so its last screen and exit can be
// read.
type Tmux struct {
	// Socket is the server's socket path (tmux -S).
	Socket string
	env    []string
	dir    string
	pid    int // the program's process, 0 if unknown
}

// tmuxTimeout bounds every tmux client command.
const tmuxTimeout = 10 * time.Second

// StartTmux starts a tmux server with its socket under dir and runs
// program with args in it, in a cols×rows window. Kill stops it.
func StartTmux(h *Home, dir string, cols, rows int, program string, args ...string) (*Tmux, error) {
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g history-limit 5000\nset -g status off\n"), 0o600); err != nil {
		return nil, fmt.Errorf("claudetest: %w", err)
	}
	t := &Tmux{Socket: filepath.Join(dir, "tmux.sock"), env: h.Env, dir: h.Project}
	cmd := append([]string{"-f", conf, "new-session", "-d", "-s", "main", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", h.Project, "--", program}, args...)
	if _, err := t.tmux(cmd...); err != nil {
		return nil, err
	}
	if out, err := t.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"); err == nil {
		_, _ = fmt.Sscan(out, &t.pid)
	}
	return t, nil
}

func (t *Tmux) tmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "tmux", append([]string{"-S", t.Socket}, args...)...)
	c.Env = t.env
	c.Dir = t.dir
	out, err := c.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("claudetest: tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// SendKeys sends tmux key names (e.g. "Enter", "Escape", "C-c").
func (t *Tmux) SendKeys(keys ...string) error {
	_, err := t.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
	return err
}

// Type sends text literally (no key-name lookup).
func (t *Tmux) Type(text string) error {
	_, err := t.tmux("send-keys", "-t", "main", "-l", "--", text)
	return err
}

// Capture returns the pane's visible screen and its scrollback, joined
// lines, without colours.
func (t *Tmux) Capture() (string, error) {
	return t.tmux("capture-pane", "-p", "-J", "-t", "main", "-S", "-")
}

// Dead reports whether the pane's program has exited, and its status.
func (t *Tmux) Dead() (bool, int, error) {
	out, err := t.tmux("display-message", "-p", "-t", "main", "#{pane_dead} #{pane_dead_status}")
	if err != nil {
		return false, 0, err
	}
	var dead, status int
	if _, err := fmt.Sscan(out, &dead, &status); err != nil {
		// pane_dead_status is empty while the program runs.
		_, err = fmt.Sscan(out, &dead)
		if err != nil {
			return false, 0, fmt.Errorf("claudetest: tmux pane state %q: %w", out, err)
		}
	}
	return dead == 1, status, nil
}

// WaitFor polls the pane until re matches its content, and returns the
// content. On timeout the error holds the last screen.
func (t *Tmux) WaitFor(re *regexp.Regexp, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		s, err := t.Capture()
		if err != nil {
			return s, err
		}
		last = s
		if re.MatchString(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return last, fmt.Errorf("claudetest: %q not on screen after %v; screen:\n%s", re, timeout, tail(last, 40))
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// WaitDead waits until the pane's program exits, and returns its status.
func (t *Tmux) WaitDead(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		dead, status, err := t.Dead()
		if err != nil {
			return 0, err
		}
		if dead {
			return status, nil
		}
		if time.Now().After(deadline) {
			s, _ := t.Capture()
			return 0, fmt.Errorf("claudetest: program still running after %v; screen:\n%s", timeout, tail(s, 40))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killWait bounds how long Kill waits for the program to exit after the
// server hung up on it, before killing it.
const killWait = 15 * time.Second

// Kill stops the server, which hangs up on the program, and waits until
// the program has exited (killing it after killWait), so that it writes
// nothing into a directory the test removes next. It is safe to call more
// than once.
func (t *Tmux) Kill() {
	_, _ = t.tmux("kill-server")
	if t.pid <= 0 {
		return
	}
	p, err := os.FindProcess(t.pid)
	if err != nil {
		return
	}
	deadline := time.Now().Add(killWait)
	for alive(p) {
		if time.Now().After(deadline) {
			_ = p.Kill()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.pid = 0
}

// alive reports whether p still runs. The program is not this process's
// child, so once the tmux server is gone nobody may reap it: a zombie
// (Linux /proc state Z) counts as exited.
func alive(p *os.Process) bool {
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
		if err != nil {
			return false
		}
		// pid (comm) STATE …; comm may contain spaces and parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z'
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
