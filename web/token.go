package web

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/store"
)

// TokenName is the file in ~/.claude-code/ that holds the server token.
const TokenName = "serve-token"

// TokenPath is where LoadOrCreateToken keeps the token: ~/.claude-code/
// serve-token.
func TokenPath(home string) string { return filepath.Join(home, ".claude-code", TokenName) }

// LoadOrCreateToken returns the server token stored in TokenPath(home),
// creating it (32 random bytes, base64url, a 0600 file in a 0700
// directory) on first use. A token file that is not a regular file, or
// that other users can read, is refused rather than used.
func LoadOrCreateToken(home string) (string, error) {
	p := TokenPath(home)
	fi, err := os.Lstat(p)
	switch {
	case err == nil:
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("web: token file %s is not a regular file (%s): remove it", p, fi.Mode().Type())
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("web: token file %s can be read by other users (mode %04o): remove it and run again", p, fi.Mode().Perm())
		}
		b, err := store.ReadFileBounded(p, 1024)
		if err != nil {
			return "", fmt.Errorf("web: reading token file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if len(tok) < 32 {
			return "", fmt.Errorf("web: token file %s holds no valid token (%d characters): remove it and run again", p, len(tok))
		}
		return tok, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("web: token file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("web: creating %s: %w", filepath.Dir(p), err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("web: token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	if err := store.WriteFileAtomic(p, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("web: writing token file: %w", err)
	}
	return tok, nil
}
