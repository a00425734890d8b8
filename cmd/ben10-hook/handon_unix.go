//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// handOn replaces this process with bin args, its stdin a file holding
// data from the start. It returns only when that fails.
func handOn(bin string, args []string, data []byte) (int, error) {
	fd, err := inputFD(data)
	if err == nil {
		err = dupOnto(fd, 0)
		if err == nil {
			err = syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
		}
	}
	return 0, fmt.Errorf("starting %s: %w", bin, err)
}

// writeAll writes data to fd and rewinds it.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err != nil {
			return err
		}
		data = data[n:]
	}
	_, err := syscall.Seek(fd, 0, io.SeekStart)
	return err
}
