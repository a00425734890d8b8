package archive

import (
	"sync"
	"sync/atomic"
)

// Progress is told how far an encoding has come, in bytes of the raw
// transcript (the sum of the State's raw files): done of total. Each raw
// byte is worked on in up to two passes, redaction (when
// EncodeOptions.RedactLine is set) and compression (or a copy of an
// unchanged segment from EncodeOptions.Previous); done counts both passes,
// scaled to total, so that it reaches total when the raw transcript is
// stored. The model segments are encoded and written after that, in a
// small share of the time. Calls come from the encoder's goroutines, one
// at a time, with done never decreasing; the last call has done == total.
type Progress func(done, total int64)

// progressSteps: a Progress is called about this many times over an
// encoding, however many lines and segments the work comes in.
const progressSteps = 256

// progressCounter turns the encoder's work on the raw files into calls of
// a Progress. A nil *progressCounter does nothing. Work is counted with
// an atomic add (redaction counts every line, from several goroutines);
// the lock is taken only to report a step.
type progressCounter struct {
	fn          Progress
	raw         int64 // the raw files' bytes: Progress's total
	units, step int64 // work in passes × bytes, and a step of it
	done, next  atomic.Int64
	mu          sync.Mutex
	reported    int64 // guarded by mu
}

// newProgressCounter counts the passes over files for fn (nil without
// fn or without raw bytes).
func newProgressCounter(fn Progress, files []RawFile, redacting bool) *progressCounter {
	if fn == nil {
		return nil
	}
	var raw int64
	for _, f := range files {
		raw += int64(len(f.Data))
	}
	if raw == 0 {
		return nil
	}
	passes := int64(1)
	if redacting {
		passes = 2
	}
	units := passes * raw
	return &progressCounter{fn: fn, raw: raw, units: units, step: max(units/progressSteps, 1)}
}

// add counts n more bytes of one pass done.
func (p *progressCounter) add(n int) {
	if p == nil || n <= 0 {
		return
	}
	if d := p.done.Add(int64(n)); d < p.next.Load() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d := min(p.done.Load(), p.units)
	if r := d * p.raw / p.units; r > p.reported {
		p.reported = r
		p.fn(r, p.raw)
	}
	p.next.Store(d + p.step)
}

// finish reports everything done (the passes skipped, such as the
// unchanged lines of an incremental save, count as done).
func (p *progressCounter) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reported < p.raw {
		p.reported = p.raw
		p.fn(p.raw, p.raw)
	}
}

// countingRedactLine wraps fn so that every line it redacts counts
// towards p (with its line ending).
func countingRedactLine(fn func([]byte) []byte, p *progressCounter) func([]byte) []byte {
	if fn == nil || p == nil {
		return fn
	}
	return func(line []byte) []byte {
		out := fn(line)
		p.add(len(line) + 1)
		return out
	}
}
