//go:build unix

package archive

import (
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// minMapped is the smallest prefix ReadGrown maps rather than streams.
const minMapped = 256 << 10

// grownMapped, when set (by tests), is called once the prefix is mapped,
// before it is read.
var grownMapped func()

// readMapped reads the file's first from bytes for ReadGrown without
// copying them: mapped read-only, the chunk digests (h) and scan run on
// the mapping at once, on two goroutines; last is its last byte. mapped is
// false, with f untouched, when the prefix is small or cannot be mapped
// (the caller then streams it). A file truncated meanwhile faults on the
// bytes it lost: that is shrank, never a crash. On success f is at offset
// from.
func readMapped(f *os.File, from int, h *chunkHasher, scan func(b []byte, off int), last *byte) (mapped, shrank bool, err error) {
	if from < minMapped {
		return false, false, nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, from, unix.PROT_READ, mmapFlags)
	if err != nil {
		return false, false, nil
	}
	if grownMapped != nil {
		grownMapped()
	}
	var faulted atomic.Bool
	guard := func(fn func()) func() {
		return func() {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(interface{ Addr() uintptr }); !ok {
						panic(r)
					}
					faulted.Store(true)
				}
			}()
			fn()
		}
	}
	var wg sync.WaitGroup
	wg.Go(guard(func() { h.write(m, 0) }))
	wg.Go(guard(func() {
		scan(m, 0)
		*last = m[from-1]
	}))
	wg.Wait()
	if err := unix.Munmap(m); err != nil {
		return true, false, err
	}
	if faulted.Load() {
		return true, true, nil
	}
	if _, err := f.Seek(int64(from), io.SeekStart); err != nil {
		return true, false, err
	}
	return true, false, nil
}
