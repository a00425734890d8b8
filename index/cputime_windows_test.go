//go:build windows

package index_test

import "time"

// cpuTime is not measured on Windows: the benchmark reports wall time only.
func cpuTime() time.Duration { return 0 }
