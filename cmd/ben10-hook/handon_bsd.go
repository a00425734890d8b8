//go:build unix && !linux

package main

import (
	"os"
	"syscall"
)

// inputFD is an unlinked temporary file (close-on-exec) holding data.
func inputFD(data []byte) (int, error) {
	f, err := os.CreateTemp("", ".ben10-hook-input-")
	if err != nil {
		return -1, err
	}
	_ = os.Remove(f.Name())
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	if err := writeAll(fd, data); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

func dupOnto(fd, to int) error { return syscall.Dup2(fd, to) }
