package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Progress is drawn only on a terminal, and never with --quiet or
// --json; every method of a nil *progress is safe.
func TestProgressEnabled(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		g     globalOptions
		drawn bool
	}{
		{"terminal", globalOptions{io: &IOStreams{ErrTTY: true}}, true},
		{"not a terminal", globalOptions{io: &IOStreams{}}, false},
		{"--quiet", globalOptions{io: &IOStreams{ErrTTY: true}, quiet: true}, false},
		{"--json", globalOptions{io: &IOStreams{ErrTTY: true}, json: true}, false},
	} {
		var errOut syncBuffer
		c.g.io.ErrOut = &errOut
		p := c.g.newProgress("x", 10)
		if (p != nil) != c.drawn {
			t.Errorf("%s: progress %v, want drawn %v", c.name, p != nil, c.drawn)
		}
		p.Done()
	}
	var p *progress
	p.Add(1)
	p.Set(1, 2)
	p.Done()
	if p.Report() != nil {
		t.Fatal("nil progress reports")
	}
	var b bytes.Buffer
	if w := p.Writer(&b); w != &b {
		t.Fatal("nil progress wraps the writer")
	}
}

// Under NO_COLOR the line is plain: no spinner, no escape sequences, and
// it is blanked with spaces at the end.
func TestProgressPlainUnderNoColor(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := startProgress(&out, "Saving", 0, time.Millisecond, true)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "Saving") {
		if time.Now().After(deadline) {
			t.Fatal("no plain line drawn")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Done()
	s := out.String()
	if strings.Contains(s, "\x1b") || strings.ContainsAny(s, strings.Join(spinnerFrames, "")) {
		t.Fatalf("plain line has escapes or a spinner: %q", s)
	}
	if !strings.HasSuffix(s, " \r") {
		t.Fatalf("plain line not blanked at the end: %q", s)
	}
}

func TestProgressText(t *testing.T) {
	t.Parallel()
	p := &progress{label: "Saving", total: 40 << 20, done: 10 << 20, bytes: true}
	if got := p.text(2 * time.Second); got != "Saving 10.0 MiB / 40.0 MiB  25% 2.0s, about 6s left" {
		t.Errorf("bytes: %q", got)
	}
	p = &progress{label: "Searching", total: 4, done: 4}
	if got := p.text(time.Second); got != "Searching 4 / 4 100% 1.0s" {
		t.Errorf("items, done: %q", got)
	}
	p = &progress{label: "Pruning", done: 3}
	if got := p.text(1500 * time.Millisecond); got != "Pruning 3 1.5s" {
		t.Errorf("no total: %q", got)
	}
}

func TestProgressDrawsAfterDelayAndErases(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := startProgress(&out, "Searching", 4, 10*time.Millisecond, false)
	p.Add(1)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "1 / 4  25%") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// What the status line showed at the moment the result was written.
	var atWrite string
	w := p.Writer(writerFunc(func(b []byte) (int, error) {
		atWrite = out.String()
		return len(b), nil
	}))
	w.Write([]byte("hit\n"))
	if !strings.HasSuffix(atWrite, "\r\x1b[K") {
		t.Fatalf("the line was not erased before output: %q", atWrite)
	}
	p.Done()
	p.Done() // idempotent
	if !strings.HasSuffix(out.String(), "\r\x1b[K") {
		t.Fatalf("line not erased at the end: %q", out.String())
	}
	// A fast operation draws nothing.
	var quick syncBuffer
	q := startProgress(&quick, "Saving", 0, time.Hour, false)
	q.Done()
	if quick.String() != "" {
		t.Fatalf("fast operation drew %q", quick.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// With no delay the line is drawn at once and again at every update, so
// a test sees each state; after Done nothing more is drawn.
func TestProgressEagerDrawsEveryUpdate(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	p := startProgress(&out, "Saving", 0, 0, true)
	p.mu.Lock()
	p.bytes = true
	p.mu.Unlock()
	report := p.Report()
	report(1<<20, 4<<20)
	if !strings.Contains(out.String(), "Saving 1.0 MiB / 4.0 MiB  25%") {
		t.Fatalf("update not drawn: %q", out.String())
	}
	report(4<<20, 4<<20)
	if !strings.Contains(out.String(), "4.0 MiB / 4.0 MiB 100%") {
		t.Fatalf("update not drawn: %q", out.String())
	}
	p.Done()
	end := out.String()
	p.Set(5, 10)
	if out.String() != end {
		t.Fatal("drawn after Done")
	}
}
