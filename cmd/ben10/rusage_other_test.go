//go:build !unix

package main

import "os"

// maxRSS is unknown where the platform reports no resource usage.
func maxRSS(*os.ProcessState) (int64, bool) { return 0, false }
