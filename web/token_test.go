package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadOrCreateToken(t *testing.T) {
	home := t.TempDir()
	tok, err := LoadOrCreateToken(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) < 40 {
		t.Errorf("token %d characters, want ≥ 40", len(tok))
	}
	fi, err := os.Stat(TokenPath(home))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(TokenPath(home))); di.Mode().Perm() != 0o700 {
		t.Errorf("token directory mode %04o, want 0700", di.Mode().Perm())
	}
	again, err := LoadOrCreateToken(home)
	if err != nil || again != tok {
		t.Errorf("second use: %q, %v; want the same token", again, err)
	}
	other, err := LoadOrCreateToken(t.TempDir())
	if err != nil || other == tok {
		t.Errorf("another home got %q (%v), want a different token", other, err)
	}
}

func TestLoadOrCreateTokenRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string
	}{
		{"readable by others", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(strings.Repeat("a", 43)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "read by other users"},
		{"symlink", func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.WriteFile(target, []byte(strings.Repeat("a", 43)), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"too short", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("short\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "no valid token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			p := TokenPath(home)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(t, p)
			_, err := LoadOrCreateToken(home)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %v, want one naming %s and saying %q", err, p, c.want)
			}
		})
	}
}
