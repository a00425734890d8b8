package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// handOn runs bin args as a child with data on its stdin and this
// process's stdout and stderr, and returns its exit code (ben10 hook
// always exits 0; a child that could not run is an error).
func handOn(bin string, args []string, data []byte) (int, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("running %s: %w", bin, err)
	}
	return 0, nil
}
