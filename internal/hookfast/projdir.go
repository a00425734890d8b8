package hookfast

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// HomeDir returns $HOME when set, else the platform's home directory.
func HomeDir() (string, error) {
	if h := os.Getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("store: cannot find the home directory: %w", err)
	}
	return h, nil
}

// CanonicalDir returns the absolute, symlink-free form of dir, which must
// be an existing directory.
func CanonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("store: project directory %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("store: project directory %q: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("store: project directory %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("store: project directory %q is not a directory", dir)
	}
	return real, nil
}

// DirHash names a project by its canonical path (see CanonicalDir): the
// first 16 hexadecimal digits of the path's SHA-256, with the path
// lower-cased on Windows, whose file names are case-insensitive.
func DirHash(canonical string) string {
	if runtime.GOOS == "windows" {
		canonical = strings.ToLower(canonical)
	}
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:])[:16]
}

// ProjectDir is the directory whose store the hooks use: the session's
// start directory ($CLAUDE_PROJECT_DIR, from getenv) when set, else the
// hook input's cwd; canonical. ErrNoProject when neither is known.
func ProjectDir(getenv func(string) string, cwd string) (string, error) {
	d := getenv("CLAUDE_PROJECT_DIR")
	if d == "" {
		d = cwd
	}
	if d == "" {
		return "", ErrNoProject
	}
	c, err := CanonicalDir(d)
	if err != nil {
		return "", fmt.Errorf("project directory %s: %w", d, err)
	}
	return c, nil
}
