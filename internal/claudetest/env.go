package claudetest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Config configures New.
type Config struct {
	// Ben10 is the ben10 binary whose `hooks install` installs the hooks
	// into the temporary HOME; "" installs none.
	Ben10 string
	// Respond decides the mock's replies (nil: "OK." to everything).
	Respond Responder
	// Allow is settings.json's permissions.allow (e.g. "Bash",
	// "mcp__ben10__search").
	Allow []string
	// Env is added to the environment of claude and of Run.
	Env []string
	// Trace adds the hooks that record every hook call (AddTraceHooks).
	Trace bool
}

// Env is a mock API and a temporary HOME wired to it, torn down by the
// test's cleanup.
type Env struct {
	API *API
	*Home
	tb testing.TB
}

// Timeouts of the harness's waits; generous, because two cores are
// shared with other work, and each bounds one wait only.
const (
	// PrintTimeout bounds one `claude -p`.
	PrintTimeout = 3 * time.Minute
	// ScreenTimeout bounds a wait for text on an interactive screen.
	ScreenTimeout = 90 * time.Second
)

// New starts a mock API and lays out a HOME for it under tb.TempDir(),
// with Ben10's hooks installed by the real `ben10 hooks install` when
// cfg.Ben10 is set. Everything stops when the test ends.
func New(tb testing.TB, cfg Config) *Env {
	tb.Helper()
	api, err := NewAPI(cfg.Respond)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = api.Close() })
	root := tb.TempDir()
	h, err := NewHome(root, Options{APIURL: api.URL, Allow: cfg.Allow, Env: cfg.Env})
	if err != nil {
		tb.Fatal(err)
	}
	// Runs before the directory is removed, after the sessions are
	// killed (cleanups run last-registered first).
	tb.Cleanup(func() {
		if left := waitQuiet(root); len(left) > 0 {
			tb.Logf("claudetest: processes %v still work in %s after %v", left, root, quietTimeout)
		}
	})
	if cfg.Ben10 != "" {
		if r := h.Run(time.Minute, nil, cfg.Ben10, "hooks", "install"); r.Err != nil {
			tb.Fatalf("ben10 hooks install: %v", r.Err)
		}
	}
	if cfg.Trace {
		if err := h.AddTraceHooks(); err != nil {
			tb.Fatal(err)
		}
	}
	return &Env{API: api, Home: h, tb: tb}
}

// MustPrint runs `claude -p prompt args…` and fails the test unless it
// succeeds; it returns the session id.
func (e *Env) MustPrint(prompt string, args ...string) string {
	e.tb.Helper()
	id, r := e.Print(PrintTimeout, prompt, args...)
	if r.Err != nil {
		e.tb.Fatalf("claude -p %q %s: %v\nstdout: %s", prompt, strings.Join(args, " "), r.Err, r.Stdout)
	}
	if id == "" {
		e.tb.Fatalf("claude -p %q: no session_id in %s", prompt, r.Stdout)
	}
	return id
}

// Session is an interactive claude running under a private tmux server.
type Session struct {
	*Tmux
	tb testing.TB
}

// readyRE matches the idle prompt's footer of the interactive UI.
var readyRE = regexp.MustCompile(`\? for shortcuts`)

// Interactive starts `claude args…` under a private tmux server (killed
// when the test ends) and waits until it is ready for input.
func (e *Env) Interactive(args ...string) *Session {
	e.tb.Helper()
	t, err := StartTmux(e.Home, e.tb.TempDir(), 160, 50, e.Claude, args...)
	if err != nil {
		e.tb.Fatal(err)
	}
	e.tb.Cleanup(t.Kill)
	s := &Session{Tmux: t, tb: e.tb}
	s.MustWait(readyRE)
	return s
}

// MustWait waits (ScreenTimeout at most) for re on the screen and returns
// the screen; it fails the test otherwise.
func (s *Session) MustWait(re *regexp.Regexp) string {
	s.tb.Helper()
	out, err := s.WaitFor(re, ScreenTimeout)
	if err != nil {
		s.tb.Fatal(err)
	}
	return out
}

// Submit types text into the prompt and presses Enter. A slash command's
// completion menu takes the first Enter, so it waits until the typed text
// is on screen first.
func (s *Session) Submit(text string) {
	s.tb.Helper()
	if err := s.Type(text); err != nil {
		s.tb.Fatal(err)
	}
	s.MustWait(regexp.MustCompile(`❯[^\n]{0,3}` + regexp.QuoteMeta(text)))
	if err := s.SendKeys("Enter"); err != nil {
		s.tb.Fatal(err)
	}
}

// WaitRequest waits (timeout at most) until the mock has received a
// request for which match is true, and returns the first such one.
func (e *Env) WaitRequest(timeout time.Duration, match func(Request) bool) (Request, error) {
	deadline := time.Now().Add(timeout)
	for {
		for _, r := range e.API.Requests() {
			if match(r) {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			return Request{}, fmt.Errorf("claudetest: no matching request among %d after %v", len(e.API.Requests()), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitTrace waits (timeout at most) until the hook trace has a call for
// which match is true, and returns it.
func (e *Env) WaitTrace(timeout time.Duration, match func(HookCall) bool) (HookCall, error) {
	deadline := time.Now().Add(timeout)
	for {
		calls, err := e.Trace()
		if err != nil {
			return HookCall{}, err
		}
		for _, c := range calls {
			if match(c) {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			return HookCall{}, fmt.Errorf("claudetest: no matching hook call after %v; calls: %v", timeout, Events(calls))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
