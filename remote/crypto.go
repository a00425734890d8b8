package remote

import (
	"bytes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/hkdf"

	"github.com/ben10ctx/ben10/store"
)

// KeySize is the size of a team key in bytes.
const KeySize = 32

// keyPrefix starts the text form of a team key.
const keyPrefix = "BEN10-REMOTE-KEY-1-"

// Key is a team key: 32 random bytes every teammate holds, which the
// bucket never sees. All other keys are derived from it with HKDF-SHA256.
type Key struct {
	raw     [KeySize]byte
	id      string // public fingerprint, stored in the bucket's marker
	idKey   []byte // HMAC-SHA256 key for chunk, entry and project ids
	gear    []byte // seed of the chunker's gear table
	chunk   cipher.AEAD
	man     cipher.AEAD
	chunker *Chunker
}

// NewKey returns a fresh random team key.
func NewKey() (*Key, error) {
	var raw [KeySize]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("remote: generating a team key: %w", err)
	}
	return keyFrom(raw), nil
}

func keyFrom(raw [KeySize]byte) *Key {
	k := &Key{raw: raw}
	derive := func(info string) []byte {
		out := make([]byte, 32)
		if _, err := io.ReadFull(hkdf.New(sha256.New, raw[:], nil, []byte("ben10 remote v1 "+info)), out); err != nil {
			panic(err) // HKDF-SHA256 yields up to 8160 bytes
		}
		return out
	}
	id := derive("key id")
	k.id = hex.EncodeToString(id[:8])
	k.idKey = derive("ids")
	k.gear = derive("chunker")
	var err error
	if k.chunk, err = chacha20poly1305.NewX(derive("chunks")); err != nil {
		panic(err) // the key size is fixed
	}
	if k.man, err = chacha20poly1305.NewX(derive("manifests")); err != nil {
		panic(err)
	}
	k.chunker = NewChunker(k.gear)
	return k
}

// ID is the key's public fingerprint (16 hexadecimal digits). It is
// stored in the bucket so that a wrong key is told apart from tampering.
func (k *Key) ID() string { return k.id }

// String is the text form of the key, to hand to a teammate over a
// channel you trust. It is the secret itself.
func (k *Key) String() string {
	return keyPrefix + base64.RawURLEncoding.EncodeToString(k.raw[:])
}

// ParseKey reads the text form written by Key.String (surrounding white
// space is ignored).
func ParseKey(s string) (*Key, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, keyPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: it does not start with %s", ErrBadKey, keyPrefix)
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadKey, err)
	}
	if len(b) != KeySize {
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrBadKey, len(b), KeySize)
	}
	var raw [KeySize]byte
	copy(raw[:], b)
	return keyFrom(raw), nil
}

// KeyPath is where the team key of the remote named name is kept:
// ~/.claude-code/remote-keys/<name>.key (0600).
func KeyPath(home, name string) string {
	return filepath.Join(home, ".claude-code", "remote-keys", name+".key")
}

// LoadKey reads the team key of the remote named name.
func LoadKey(home, name string) (*Key, error) {
	p := KeyPath(home, name)
	b, err := store.ReadFileBounded(p, 1<<10)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w for remote %q: %s does not exist (ben10 remote key create %s, or key import)", ErrNoKey, name, p, name)
	}
	if err != nil {
		return nil, fmt.Errorf("remote: reading the team key %s: %w", p, err)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return k, nil
}

// SaveKey writes k as the team key of the remote named name (0600, in a
// 0700 directory). An existing key is replaced only when replace is set.
func SaveKey(home, name string, k *Key, replace bool) error {
	p := KeyPath(home, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if _, err := os.Lstat(p); err == nil && !replace {
		return fmt.Errorf("%w: %s (pass --force to replace it; data pushed with it can then no longer be read)", ErrKeyExists, p)
	}
	return store.WriteFileAtomic(p, []byte(k.String()+"\n"))
}

// mac is HMAC-SHA256 under the id key, in hexadecimal.
func (k *Key) mac(parts ...[]byte) string {
	h := hmac.New(sha256.New, k.idKey)
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ChunkID is the content address of a plaintext chunk: HMAC-SHA256 under
// a key derived from the team key, so the bucket cannot confirm a guess
// of the content by hashing it.
func (k *Key) ChunkID(p []byte) string { return k.mac([]byte("chunk\x00"), p) }

// ProjectID names a project in the bucket without revealing its name.
func (k *Key) ProjectID(project string) string {
	return k.mac([]byte("project\x00"), []byte(project))[:32]
}

// Object magics.
var (
	chunkMagic    = []byte("B10C\x01")
	manifestMagic = []byte("B10M\x01")
)

// codecs are the shared zstd encoder and decoder, made on first use.
var codecs = sync.OnceValues(func() (*zstd.Encoder, *zstd.Decoder) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
	if err != nil {
		panic(err) // fixed, valid options
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		panic(err)
	}
	return enc, dec
})

// SealChunk returns the object of plaintext chunk p, whose id is
// k.ChunkID(p): the magic, then XChaCha20-Poly1305 over the zstd-compressed
// chunk, with the first 24 bytes of the id as nonce and the id as
// additional data. Encryption is deterministic (convergent under the team
// key): the same chunk gives the same object on every teammate's machine,
// so objects deduplicate; the nonce repeats only for the same plaintext,
// which reveals equality and nothing else, as in SIV.
func (k *Key) SealChunk(id string, p []byte) ([]byte, error) {
	nonce, err := hex.DecodeString(id)
	if err != nil || len(nonce) < chacha20poly1305.NonceSizeX {
		return nil, fmt.Errorf("remote: bad chunk id %q", id)
	}
	enc, _ := codecs()
	z := enc.EncodeAll(p, nil)
	out := append([]byte(nil), chunkMagic...)
	return k.chunk.Seal(out, nonce[:chacha20poly1305.NonceSizeX], z, []byte("ben10 chunk "+id)), nil
}

// OpenChunk authenticates and decrypts a chunk object named id, checks
// that its plaintext hashes to id and is at most max bytes.
func (k *Key) OpenChunk(id string, obj []byte, max int) ([]byte, error) {
	nonce, err := hex.DecodeString(id)
	if err != nil || len(nonce) < chacha20poly1305.NonceSizeX {
		return nil, fmt.Errorf("%w: bad chunk id %q", ErrCorrupt, id)
	}
	if !bytes.HasPrefix(obj, chunkMagic) {
		return nil, fmt.Errorf("%w: not a Ben10 chunk (bad magic)", ErrCorrupt)
	}
	z, err := k.chunk.Open(nil, nonce[:chacha20poly1305.NonceSizeX], obj[len(chunkMagic):], []byte("ben10 chunk "+id))
	if err != nil {
		return nil, fmt.Errorf("%w: authentication failed (changed or truncated)", ErrCorrupt)
	}
	p, err := decompress(z, max)
	if err != nil {
		return nil, err
	}
	if k.ChunkID(p) != id {
		return nil, fmt.Errorf("%w: content does not hash to its name", ErrCorrupt)
	}
	return p, nil
}

// decompress inflates a zstd frame to at most max bytes.
func decompress(z []byte, max int) ([]byte, error) {
	_, dec := codecs()
	var h zstd.Header
	if err := h.Decode(z); err != nil {
		return nil, fmt.Errorf("%w: zstd header: %w", ErrCorrupt, err)
	}
	if h.HasFCS && h.FrameContentSize > uint64(max) {
		return nil, fmt.Errorf("%w: declared size over %d bytes", ErrCorrupt, max)
	}
	var p []byte
	var err error
	if h.HasFCS {
		p, err = dec.DecodeAll(z, make([]byte, 0, h.FrameContentSize))
	} else {
		var r *zstd.Decoder
		if r, err = zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20)); err == nil {
			p, err = io.ReadAll(io.LimitReader(r, int64(max)+1))
			r.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrCorrupt, err)
	}
	if len(p) > max {
		return nil, fmt.Errorf("%w: over %d bytes", ErrCorrupt, max)
	}
	return p, nil
}

// sealManifest encrypts a manifest payload with a random nonce; ad binds
// it to its object name.
func (k *Key) sealManifest(ad string, p []byte) ([]byte, error) {
	enc, _ := codecs()
	z := enc.EncodeAll(p, nil)
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out := append(append([]byte(nil), manifestMagic...), nonce...)
	return k.man.Seal(out, nonce, z, []byte("ben10 manifest "+ad)), nil
}

func (k *Key) openManifest(ad string, obj []byte, max int) ([]byte, error) {
	n := len(manifestMagic) + chacha20poly1305.NonceSizeX
	if len(obj) < n || !bytes.HasPrefix(obj, manifestMagic) {
		return nil, fmt.Errorf("%w: not a Ben10 manifest (bad magic or truncated)", ErrCorrupt)
	}
	z, err := k.man.Open(nil, obj[len(manifestMagic):n], obj[n:], []byte("ben10 manifest "+ad))
	if err != nil {
		return nil, fmt.Errorf("%w: authentication failed (changed or truncated)", ErrCorrupt)
	}
	return decompress(z, max)
}
