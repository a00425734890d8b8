package main

import "golang.org/x/sys/unix"

// inputFD is an anonymous memory file (close-on-exec) holding data.
func inputFD(data []byte) (int, error) {
	fd, err := unix.MemfdCreate("ben10-hook-input", unix.MFD_CLOEXEC)
	if err != nil {
		return -1, err
	}
	if err := writeAll(fd, data); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func dupOnto(fd, to int) error { return unix.Dup3(fd, to, 0) }
