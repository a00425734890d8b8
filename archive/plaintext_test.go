package archive_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestPlaintextWhereEncryptionConfigured: with RequireEncryption (what a
// reader sets when the user configured a passphrase or key) a plaintext
// archive is refused with ErrPlaintext instead of being read silently; an
// encrypted one opens; without it, a passphrase still opens a plaintext
// archive (an archive saved before encryption was turned on, read on
// request).
func TestPlaintextWhereEncryptionConfigured(t *testing.T) {
	st, err := claude.Import(context.Background(), filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pass := []byte("correct horse battery staple")
	var plain, enc bytes.Buffer
	if err := archive.Encode(context.Background(), &plain, st, archive.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	cheap := ctxfmt.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}
	if err := archive.Encode(context.Background(), &enc, st, archive.EncodeOptions{Encryption: &ctxfmt.Encryption{Passphrase: pass, Argon2: cheap}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		opts archive.OpenOptions
		want error
	}{
		{"plaintext, encryption required", plain.Bytes(), archive.OpenOptions{Passphrase: pass, RequireEncryption: true}, archive.ErrPlaintext},
		{"plaintext, key required without a key", plain.Bytes(), archive.OpenOptions{RequireEncryption: true}, archive.ErrPlaintext},
		{"encrypted, encryption required", enc.Bytes(), archive.OpenOptions{Passphrase: pass, RequireEncryption: true}, nil},
		{"plaintext, passphrase given", plain.Bytes(), archive.OpenOptions{Passphrase: pass}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := archive.Open(bytes.NewReader(c.b), int64(len(c.b)), c.opts)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if err == nil && a.Container().Encrypted() != (c.opts.RequireEncryption) {
				t.Fatalf("Encrypted() = %v", a.Container().Encrypted())
			}
		})
	}
}
