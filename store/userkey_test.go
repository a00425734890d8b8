package store_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ben10ctx/ben10/store"
)

// TestAuthKey: the key is created once (0600 in a 0700 directory, the
// same key for every later call and for concurrent first calls), and a
// key file that is a link, readable by others or not a key is refused.
func TestAuthKey(t *testing.T) {
	home := t.TempDir()
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = store.LoadOrCreateAuthKey(home) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if len(keys[i]) != 32 || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("call %d got another key (%x, %x)", i, keys[i], keys[0])
		}
	}
	p := store.AuthKeyPath(home)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(p)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("key directory mode: %v %v", fi.Mode(), err)
	}
	if again, err := store.LoadOrCreateAuthKey(home); err != nil || !bytes.Equal(again, keys[0]) {
		t.Errorf("second call: %x, %v", again, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("the key directory holds %d files (temporary files left?)", len(ents))
	}

	for _, tc := range []struct {
		name  string
		setup func(p string)
	}{
		{"readable by others", func(p string) { os.WriteFile(p, bytes.Repeat([]byte("a"), 64), 0o644); os.Chmod(p, 0o644) }},
		{"not a key", func(p string) { os.WriteFile(p, []byte("hello\n"), 0o600) }},
		{"a link", func(p string) {
			target := filepath.Join(filepath.Dir(p), "elsewhere")
			os.WriteFile(target, bytes.Repeat([]byte("a"), 64), 0o600)
			os.Symlink(target, p)
		}},
		{"a directory", func(p string) { os.Mkdir(p, 0o700) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := store.AuthKeyPath(home)
			os.MkdirAll(filepath.Dir(p), 0o700)
			tc.setup(p)
			if _, err := store.LoadOrCreateAuthKey(home); !errors.Is(err, store.ErrAuthKey) {
				t.Errorf("LoadOrCreateAuthKey = %v, want ErrAuthKey", err)
			}
		})
	}
}
