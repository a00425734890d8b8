package snapshot

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// saveMemory is what the Go runtime may hold beside the transcript
// during a save: the model, the compressed archive, the zstd encoders'
// states. It is the budget of a save's resident memory, 64 MiB beside the
// transcript, less the 15 MiB of the ben10 binary's code the runtime's
// limit does not count (resident file pages measured during a 100 MB
// save), with 1 MiB to spare.
const saveMemory = 48 << 20

// LimitMemory holds the Go runtime to the budget of a save of the
// transcript file, saveMemory beside its size, until the function it
// returns is called (it never raises a lower limit the process set).
// SaveCurrent and Manager.Create call it; a caller that saves through
// transcript.Save itself (`context save --out`, a checkpoint) calls it
// around the save and its verification. Without it the
// garbage collector lets the heap grow to twice the live data: a 100 MB
// transcript's save peaked at 320 MiB. Saves running at once in one
// process (the watcher's, the web server's) share one limit: saveMemory
// beside the sum of their transcripts; the last to finish restores the
// limit found by the first.
func LimitMemory(transcript string) func() {
	fi, err := os.Stat(transcript)
	if err != nil {
		return func() {}
	}
	memLimit.Lock()
	defer memLimit.Unlock()
	if memLimit.saves == 0 {
		memLimit.found = debug.SetMemoryLimit(-1)
	}
	memLimit.saves++
	memLimit.bytes += fi.Size()
	memLimit.apply()
	var once sync.Once
	return func() {
		once.Do(func() {
			memLimit.Lock()
			defer memLimit.Unlock()
			memLimit.saves--
			memLimit.bytes -= fi.Size()
			if memLimit.saves == 0 {
				debug.SetMemoryLimit(memLimit.found)
				return
			}
			memLimit.apply()
		})
	}
}

// memLimit is the state LimitMemory shares between the saves of one
// process.
var memLimit memLimiter

type memLimiter struct {
	sync.Mutex
	saves int   // saves running
	bytes int64 // the sum of their transcripts' sizes
	found int64 // the limit before the first of them
}

// apply sets the limit for the saves running (m held): saveMemory beside
// their transcripts, or the limit found when that is lower.
func (m *memLimiter) apply() {
	debug.SetMemoryLimit(min(m.found, saveMemory+m.bytes))
}

// memFile is the archive SaveCurrent builds before it takes the store
// lock, in blocks of at most memBlock bytes: it grows without the copies
// of a bytes.Buffer, whose doubling held up to three times the archive's
// size while it grew.
type memFile struct {
	blocks [][]byte
	size   int64
}

// memBlock is the largest block of a memFile; the first are smaller
// (64 KiB, doubling), so that a small archive takes little.
const memBlock = 1 << 20

func (m *memFile) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if k := len(m.blocks); k == 0 || len(m.blocks[k-1]) == cap(m.blocks[k-1]) {
			m.blocks = append(m.blocks, make([]byte, 0, min(memBlock, 64<<10<<min(k, 8))))
		}
		b := &m.blocks[len(m.blocks)-1]
		c := copy((*b)[len(*b):cap(*b)], p)
		*b, p = (*b)[:len(*b)+c], p[c:]
	}
	m.size += int64(n)
	return n, nil
}

// ReadAt reads the archive's bytes at off, as ctxfmt.Verify does.
func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("snapshot: read before the start of the archive")
	}
	n := 0
	for _, b := range m.blocks {
		if off >= int64(len(b)) {
			off -= int64(len(b))
			continue
		}
		n += copy(p[n:], b[off:])
		off = 0
		if n == len(p) {
			return n, nil
		}
	}
	return n, io.EOF
}

// WriteTo writes the archive's bytes to w.
func (m *memFile) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, b := range m.blocks {
		k, err := w.Write(b)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
