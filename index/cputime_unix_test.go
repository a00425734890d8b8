//go:build !windows

package index_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process used so far: the
// benchmark reports it beside wall time, which other work on a shared
// machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
