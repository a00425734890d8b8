package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressDelay: operations shorter than this show no progress line.
const progressDelay = time.Second

// progressTick is how often the line is redrawn.
const progressTick = 120 * time.Millisecond

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// progress is a one-line status on stderr for operations that take more
// than about a second: a spinner, the label, what is done of the total
// (bytes or items) with a percentage and the time left when the total is
// known, and the elapsed time. It is drawn only on a terminal, never with
// --quiet or --json; under NO_COLOR it is a plain line (no spinner, no
// escape sequences). It is erased when the operation ends. A nil
// *progress is valid and does nothing.
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
	bytes       bool // done and total count bytes
	plain       bool // NO_COLOR: no spinner, no escape sequences
	width       int  // length of the last plain line, to blank it
	eager       bool // drawn at every update, not only on ticks
	stopped     bool // Done was called: nothing more is drawn
}

// startProgress draws a progress line on w after delay (at once, and at
// every update, when delay is 0); plain: NO_COLOR.
func startProgress(w io.Writer, label string, total int64, delay time.Duration, plain bool) *progress {
	p := &progress{w: w, label: label, total: total, start: time.Now(), stop: make(chan struct{}), finished: make(chan struct{}), plain: plain, eager: delay == 0}
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
	line := p.text(time.Since(p.start))
	if p.plain {
		pad := max(p.width-len(line), 0)
		fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
		p.width = len(line)
	} else {
		fmt.Fprintf(p.w, "\r\x1b[K%s %s", spinnerFrames[p.frame%len(spinnerFrames)], line)
	}
	p.drawn = true
}

// text is the line without the spinner: "Saving 12.0 MiB / 40.0 MiB 30%
// 2.1s, about 4.9s left".
func (p *progress) text(elapsed time.Duration) string {
	count := func(n int64) string {
		if p.bytes {
			return humanBytes(n)
		}
		return fmt.Sprint(n)
	}
	line := p.label
	switch {
	case p.total > 0:
		pct := min(100*p.done/p.total, 100)
		line += fmt.Sprintf(" %s / %s %3d%%", count(min(p.done, p.total)), count(p.total), pct)
	case p.done > 0:
		line += " " + count(p.done)
	}
	line += fmt.Sprintf(" %.1fs", elapsed.Seconds())
	if p.total > 0 && p.done > 0 && p.done < p.total {
		left := time.Duration(float64(elapsed) * float64(p.total-p.done) / float64(p.done))
		line += fmt.Sprintf(", about %.0fs left", left.Seconds()+0.5)
	}
	return line
}

// clear erases the line; the caller holds mu.
func (p *progress) clear() {
	if !p.drawn {
		return
	}
	if p.plain {
		fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	} else {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.drawn = false
}

// Add counts n more units done.
func (p *progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.update()
	p.mu.Unlock()
}

// update redraws an eager line after a change; the caller holds mu.
func (p *progress) update() {
	if p.eager && !p.stopped {
		p.draw()
	}
}

// Report is an archive.Progress that sets p (nil for a nil p: the
// library then counts nothing).
func (p *progress) Report() func(done, total int64) {
	if p == nil {
		return nil
	}
	return p.Set
}

// Set records how much is done of what total (a total of 0 keeps the
// one given so far); for callers that report absolute progress.
func (p *progress) Set(done, total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = done
	if total > 0 {
		p.total = total
	}
	p.update()
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
		p.stopped = true
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
