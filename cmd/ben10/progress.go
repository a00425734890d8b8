package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progressDelay: operations shorter than this show no progress line.
const progressDelay = time.Second

// progressTick is how often the line is redrawn.
const progressTick = 120 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// progress is a one-line status on stderr for operations that take more
// than about a second: a spinner, the label, a percentage when the total
// is known, and the elapsed time. It is drawn only on a terminal, never
// with NO_COLOR, --quiet or --json, and erased when the operation ends.
// A nil *progress is valid and does nothing.
type progress struct {
	mu          sync.Mutex
	w           io.Writer
	label       string
	done, total int64
	start       time.Time
	drawn       bool
	frame       int
	stop        chan struct{}
	finished    chan struct{}
	once        sync.Once
}

// progressEnabled: stderr is a terminal, and neither NO_COLOR, --quiet nor
// --json is set.
func progressEnabled() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || globalFlags.quiet || globalFlags.json {
		return false
	}
	return isTerminal(os.Stderr)
}

// newProgress starts a progress line on stderr (nil when not enabled).
// total 0 means unknown: a spinner without percentage.
func newProgress(label string, total int64) *progress {
	if !progressEnabled() {
		return nil
	}
	return startProgress(os.Stderr, label, total, progressDelay)
}

func startProgress(w io.Writer, label string, total int64, delay time.Duration) *progress {
	p := &progress{w: w, label: label, total: total, start: time.Now(), stop: make(chan struct{}), finished: make(chan struct{})}
	go p.run(delay)
	return p
}

func (p *progress) run(delay time.Duration) {
	defer close(p.finished)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-p.stop:
		return
	case <-t.C:
	}
	tick := time.NewTicker(progressTick)
	defer tick.Stop()
	for {
		p.mu.Lock()
		p.draw()
		p.mu.Unlock()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// draw writes the line; the caller holds mu.
func (p *progress) draw() {
	p.frame++
	line := spinnerFrames[p.frame%len(spinnerFrames)] + " " + p.label
	if p.total > 0 {
		pct := min(100*p.done/p.total, 100)
		line += fmt.Sprintf(" %3d%% (%d/%d)", pct, p.done, p.total)
	} else if p.done > 0 {
		line += fmt.Sprintf(" (%d)", p.done)
	}
	line += fmt.Sprintf(" %.1fs", time.Since(p.start).Seconds())
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
	p.drawn = true
}

// clear erases the line; the caller holds mu.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// Add counts n more units done.
func (p *progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.mu.Unlock()
}

// Done stops and erases the line. Calling it again does nothing.
func (p *progress) Done() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		<-p.finished
		p.mu.Lock()
		p.clear()
		p.mu.Unlock()
	})
}

// Writer returns w wrapped so that the progress line is erased before
// anything is written (it is redrawn on the next tick): results printed on
// the same terminal never end up after the status text.
func (p *progress) Writer(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return progressWriter{p, w}
}

type progressWriter struct {
	p *progress
	w io.Writer
}

func (pw progressWriter) Write(b []byte) (int, error) {
	pw.p.mu.Lock()
	defer pw.p.mu.Unlock()
	pw.p.clear()
	return pw.w.Write(b)
}
