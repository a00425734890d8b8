//go:build unix

package watch

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestConfigNotRegularFile: a FIFO or a directory named as watch.yaml is
// refused with ErrConfig naming it, without blocking on the FIFO.
func TestConfigNotRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{fifo, dir} {
		if _, err := LoadConfig(p, dir); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want ErrConfig naming the file", p, err)
		}
	}
}
