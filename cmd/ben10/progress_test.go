package main

import (
	"bytes"
	"os"
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

func TestProgressDisabledWithoutTerminal(t *testing.T) {
	// go test's stderr is not a terminal (or NO_COLOR is set by the e2e
	// helper): no progress object, and its methods are safe on nil.
	if p := newProgress("x", 10); p != nil && !isTerminal(osStderr()) {
		t.Fatal("progress enabled without a terminal")
	}
	var p *progress
	p.Add(1)
	p.Done()
	var b bytes.Buffer
	if w := p.Writer(&b); w != &b {
		t.Fatal("nil progress wraps the writer")
	}
}

func TestProgressQuietAndJSONDisable(t *testing.T) {
	for _, set := range []func(bool){func(v bool) { globalFlags.quiet = v }, func(v bool) { globalFlags.json = v }} {
		set(true)
		if progressEnabled() {
			t.Error("progress enabled with --quiet/--json")
		}
		set(false)
	}
}

// Under NO_COLOR the line is plain: no spinner, no escape sequences, and
// it is blanked with spaces at the end.
func TestProgressPlainUnderNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var out syncBuffer
	p := startProgress(&out, "Saving", 0, time.Millisecond)
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
	p := &progress{label: "Saving", total: 40 << 20, done: 10 << 20, bytes: true}
	if got := p.text(2 * time.Second); got != "Saving 10.0 MB / 40.0 MB  25% 2.0s, about 6s left" {
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
	var out syncBuffer
	p := startProgress(&out, "Searching", 4, 10*time.Millisecond)
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
	q := startProgress(&quick, "Saving", 0, time.Hour)
	q.Done()
	if quick.String() != "" {
		t.Fatalf("fast operation drew %q", quick.String())
	}
}

func osStderr() *os.File { return os.Stderr }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
