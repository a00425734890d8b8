package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// AuthKeyName is the file in ~/.claude-code/ that holds the user's
// authentication key: the secret with which Ben10 tags the archives and
// state it writes, so that a session start injects only what this user's
// Ben10 wrote (see archive.AuthKey).
const AuthKeyName = "auth.key"

// AuthKeyPath is ~/.claude-code/auth.key for home directory home.
func AuthKeyPath(home string) string { return filepath.Join(home, ".claude-code", AuthKeyName) }

// ErrAuthKey: the authentication key file exists but cannot be used.
var ErrAuthKey = errors.New("store: unusable authentication key")

// LoadOrCreateAuthKey returns the user's 32-byte authentication key from
// AuthKeyPath(home), creating it on first use: 32 random bytes written as
// 64 hexadecimal digits and a newline, a 0600 file in a 0700 directory.
// Two processes creating it at once agree on one key (it is linked into
// place, never renamed over another). A key file that is not a regular
// file, can be read by other users, or holds anything but a key is
// refused: remove it, and the archives it tagged are no longer
// authenticated.
func LoadOrCreateAuthKey(home string) ([]byte, error) {
	if home == "" {
		return nil, fmt.Errorf("%w: no home directory", ErrAuthKey)
	}
	p := AuthKeyPath(home)
	k, err := readAuthKey(p)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: creating %s: %w", dir, err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("store: authentication key: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".auth.key-*")
	if err != nil {
		return nil, fmt.Errorf("store: authentication key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write([]byte(hex.EncodeToString(b[:]) + "\n"))
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("store: writing %s: %w", tmp.Name(), werr)
	}
	// os.Link fails when the key exists: a process that created it
	// meanwhile wins, and its key is read back.
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("store: creating %s: %w", p, err)
	}
	SyncDir(dir)
	return readAuthKey(p)
}

// readAuthKey reads and checks the key file p.
func readAuthKey(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%s)", ErrAuthKey, p, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s can be read by other users (mode %04o): chmod 600 it", ErrAuthKey, p, fi.Mode().Perm())
	}
	b, err := ReadFileBounded(p, 1024)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuthKey, err)
	}
	k, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(k) != 32 {
		return nil, fmt.Errorf("%w: %s does not hold 64 hexadecimal digits", ErrAuthKey, p)
	}
	return k, nil
}

// AuthSum is the HMAC-SHA256 of fields under key in the domain named by
// domain, every field (the domain first) prefixed by its length as 8
// little-endian bytes: the scheme of archive.AuthKey.Sum. Every use of the
// user's key has its own domain.
func AuthSum(key []byte, domain string, fields ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	var n [8]byte
	for _, f := range append([][]byte{[]byte(domain)}, fields...) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
		m.Write(n[:])
		m.Write(f)
	}
	return m.Sum(nil)
}
