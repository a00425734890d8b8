package snapshot

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/store"
)

// TestKeyErrorsKeepTheirCause: a key that cannot be read is ErrNoKey and,
// through the same chain, the file system's own error, so a caller can
// tell a missing key file from a wrong one with errors.Is.
func TestKeyErrorsKeepTheirCause(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	for _, tc := range []struct {
		name string
		enc  store.EncryptionConfig
	}{
		{"passphrase-file", store.EncryptionConfig{Enabled: true, KeySource: "passphrase-file", PassphraseFile: missing}},
		{"keyfile", store.EncryptionConfig{Enabled: true, KeySource: "keyfile", KeyFile: missing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := store.DefaultConfig()
			cfg.Encryption = tc.enc
			_, ok, err := Key(cfg)
			if ok || err == nil {
				t.Fatalf("Key with a missing %s: ok %v, err %v", tc.name, ok, err)
			}
			if !errors.Is(err, ErrNoKey) || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%v: errors.Is ErrNoKey %v, fs.ErrNotExist %v", err, errors.Is(err, ErrNoKey), errors.Is(err, fs.ErrNotExist))
			}
		})
	}
}
