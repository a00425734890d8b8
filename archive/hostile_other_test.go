//go:build !unix

package archive_test

type syscallStat struct{}

// diskBytes is unknown where the platform has no block count.
func (syscallStat) diskBytes(string) (int64, bool) { return 0, false }
