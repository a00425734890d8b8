package ctxfmt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
)

// randReader supplies salts. Tests replace it to produce reproducible
// golden files; nothing else may.
var randReader io.Reader = rand.Reader

// KDF identifiers stored in the crypto parameters segment.
const (
	KDFArgon2id uint8 = 1 // master key = Argon2id(passphrase, salt, t, m, p)
	KDFRawKey   uint8 = 2 // master key = the caller's 32-byte key
)

const (
	aeadAES256GCM       uint8 = 1
	cryptoParamsV1      uint8 = 1
	saltSize                  = 32
	keyCheckSize              = 32
	infoSegmentKey            = "ben10/ctx/v1/segment-key"
	infoKeyCheck              = "ben10/ctx/v1/key-check"
	defaultArgonTime          = 3
	defaultArgonMemKiB        = 64 * 1024
	defaultArgonThreads       = 4
)

// Caps on the Argon2id parameters a reader accepts (and a writer writes):
// a hostile file cannot demand more than 256 MiB or ten passes.
const (
	MaxArgon2Time      = 10
	MaxArgon2MemoryKiB = 256 * 1024
	MaxArgon2Threads   = 16
)

// Argon2Params are the Argon2id cost parameters. A zero field takes its
// default: Time 3, MemoryKiB 65536 (64 MiB), Threads 4 (RFC 9106's second
// recommended setting).
type Argon2Params struct {
	Time      uint32 // passes, 1–10
	MemoryKiB uint32 // memory in KiB, 8·Threads – 262144
	Threads   uint8  // lanes, 1–16
}

func (p Argon2Params) withDefaults() Argon2Params {
	if p.Time == 0 {
		p.Time = defaultArgonTime
	}
	if p.MemoryKiB == 0 {
		p.MemoryKiB = defaultArgonMemKiB
	}
	if p.Threads == 0 {
		p.Threads = defaultArgonThreads
	}
	return p
}

func (p Argon2Params) check() error {
	switch {
	case p.Time < 1 || p.Time > MaxArgon2Time:
		return fmt.Errorf("argon2id time %d outside 1–%d", p.Time, MaxArgon2Time)
	case p.Threads < 1 || p.Threads > MaxArgon2Threads:
		return fmt.Errorf("argon2id threads %d outside 1–%d", p.Threads, MaxArgon2Threads)
	case p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > MaxArgon2MemoryKiB:
		return fmt.Errorf("argon2id memory %d KiB outside %d–%d", p.MemoryKiB, 8*uint32(p.Threads), MaxArgon2MemoryKiB)
	}
	return nil
}

// Encryption turns on encryption for a Writer. Exactly one of Passphrase
// and Key must be set.
type Encryption struct {
	Passphrase []byte       // stretched with Argon2id
	Key        []byte       // a raw 32-byte key (keychain or key file)
	Argon2     Argon2Params // zero = defaults; ignored with Key
	// Keys, when set, keeps the key derived for the file written, so
	// that reading it back with the same cache (ReaderOptions.Keys)
	// does not derive it again.
	Keys *KeyCache
}

// CryptoInfo describes an encrypted file's key derivation (no secrets).
type CryptoInfo struct {
	KDF    string       // "argon2id" or "raw-key"
	Argon2 Argon2Params // zero with a raw key
	AEAD   string       // "aes-256-gcm"
}

// cryptoParams is the decoded crypto parameters segment.
type cryptoParams struct {
	kdf      uint8
	argon    Argon2Params
	salt     [saltSize]byte
	keyCheck [keyCheckSize]byte
}

func (c *cryptoParams) marshal() []byte {
	b := make([]byte, cryptoSegSize)
	b[0] = cryptoParamsV1
	b[1] = c.kdf
	b[2] = aeadAES256GCM
	le.PutUint32(b[4:], c.argon.Time)
	le.PutUint32(b[8:], c.argon.MemoryKiB)
	le.PutUint32(b[12:], uint32(c.argon.Threads))
	copy(b[16:48], c.salt[:])
	copy(b[48:80], c.keyCheck[:])
	return b
}

// cryptoRegion is where the crypto parameters are: the first segment.
var cryptoRegion = segRegion(0, TypeCryptoParams)

// parseCryptoParams decodes the crypto parameters segment; an error is a
// *FormatError naming that segment.
func parseCryptoParams(b []byte) (*cryptoParams, error) {
	bad := func(kind error, format string, args ...any) error { return ferr(cryptoRegion, kind, format, args...) }
	if len(b) != cryptoSegSize {
		return nil, bad(ErrCorrupt, "crypto parameters are %d bytes, want %d", len(b), cryptoSegSize)
	}
	if b[0] != cryptoParamsV1 {
		return nil, bad(ErrUnsupported, "crypto parameters version %d", b[0])
	}
	if b[2] != aeadAES256GCM {
		return nil, bad(ErrUnsupported, "AEAD %d (only 1 = AES-256-GCM)", b[2])
	}
	if b[3] != 0 {
		return nil, bad(ErrUnsupported, "reserved crypto parameter byte is %d", b[3])
	}
	c := &cryptoParams{kdf: b[1]}
	t, m, p := le.Uint32(b[4:]), le.Uint32(b[8:]), le.Uint32(b[12:])
	switch c.kdf {
	case KDFArgon2id:
		if p > MaxArgon2Threads {
			return nil, bad(ErrUnsupported, "argon2id threads %d above the cap %d", p, MaxArgon2Threads)
		}
		c.argon = Argon2Params{Time: t, MemoryKiB: m, Threads: uint8(p)}
		if err := c.argon.check(); err != nil {
			return nil, bad(ErrUnsupported, "%v", err)
		}
	case KDFRawKey:
		if t != 0 || m != 0 || p != 0 {
			return nil, bad(ErrCorrupt, "raw-key file has non-zero argon2id parameters")
		}
	default:
		return nil, bad(ErrUnsupported, "key derivation %d", c.kdf)
	}
	copy(c.salt[:], b[16:48])
	copy(c.keyCheck[:], b[48:80])
	return c, nil
}

func (c *cryptoParams) info() CryptoInfo {
	ci := CryptoInfo{AEAD: "aes-256-gcm", KDF: "raw-key"}
	if c.kdf == KDFArgon2id {
		ci.KDF, ci.Argon2 = "argon2id", c.argon
	}
	return ci
}

var errKeyLen = errors.New("ctxfmt: a raw key must be exactly 32 bytes")

// masterKey derives the 32-byte master key from a passphrase (through
// keys, which may be nil) or raw key.
func (c *cryptoParams) masterKey(passphrase, key []byte, keys *KeyCache) ([]byte, error) {
	switch c.kdf {
	case KDFArgon2id:
		if passphrase == nil {
			return nil, ferr("file", ErrWrongKey, "the file is encrypted with a passphrase, a raw key was given")
		}
		return keys.argon2Key(passphrase, &c.salt, c.argon), nil
	default:
		if key == nil {
			return nil, ferr("file", ErrWrongKey, "the file is encrypted with a raw key, a passphrase was given")
		}
		if len(key) != 32 {
			return nil, errKeyLen
		}
		return append([]byte(nil), key...), nil
	}
}

// subkeys derives the segment key and the key-check value.
func (c *cryptoParams) subkeys(master []byte) (segKey, check []byte, err error) {
	segKey, err = hkdf.Key(sha256.New, master, c.salt[:], infoSegmentKey, 32)
	if err != nil {
		return nil, nil, err
	}
	check, err = hkdf.Key(sha256.New, master, c.salt[:], infoKeyCheck, keyCheckSize)
	return segKey, check, err
}

// openAEAD derives the segment AEAD, checking the key against the stored
// key-check value first: a mismatch is ErrWrongKey (region "file"), or
// ErrAuth on the crypto parameters when they were altered, never ErrAuth
// otherwise.
func (c *cryptoParams) openAEAD(passphrase, key []byte, keys *KeyCache) (cipher.AEAD, error) {
	master, err := c.masterKey(passphrase, key, keys)
	if err != nil {
		return nil, err
	}
	segKey, check, err := c.subkeys(master)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(check, c.keyCheck[:]) != 1 {
		if c.paramsAltered(passphrase) {
			return nil, ferr(cryptoRegion, ErrAuth, "the Argon2id parameters were altered (the passphrase opens the file with the writer's defaults t=%d, m=%d KiB, p=%d)",
				defaultArgonTime, defaultArgonMemKiB, defaultArgonThreads)
		}
		return nil, ferr("file", ErrWrongKey, "")
	}
	return newGCM(segKey)
}

// paramsAltered tells KDF-parameter tampering from a wrong passphrase
// where it can: nothing in the file authenticates the parameters (they
// are an input of the key they would be checked with), but the writer
// uses its defaults unless told otherwise, so when the stored parameters
// are not the defaults and the key check does match under the defaults,
// the parameters were changed after writing. A wrong passphrase costs one
// more derivation with the defaults (bounded like any other).
func (c *cryptoParams) paramsAltered(passphrase []byte) bool {
	def := Argon2Params{}.withDefaults()
	if c.kdf != KDFArgon2id || passphrase == nil || c.argon == def {
		return false
	}
	alt := *c
	alt.argon = def
	master, err := alt.masterKey(passphrase, nil, nil)
	if err != nil {
		return false
	}
	_, check, err := alt.subkeys(master)
	return err == nil && subtle.ConstantTimeCompare(check, c.keyCheck[:]) == 1
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// check refuses an Encryption a writer cannot use: not exactly one of
// Passphrase and Key, a key of another length than 32 bytes, an empty
// passphrase, or Argon2id parameters outside the caps.
func (e *Encryption) check() error {
	switch {
	case (e.Passphrase == nil) == (e.Key == nil):
		return errors.New("ctxfmt: encryption needs exactly one of Passphrase and Key")
	case e.Key != nil && len(e.Key) != 32:
		return errKeyLen
	case e.Passphrase != nil && len(e.Passphrase) == 0:
		return errors.New("ctxfmt: empty passphrase")
	case e.Passphrase != nil:
		if err := e.Argon2.withDefaults().check(); err != nil {
			return fmt.Errorf("ctxfmt: %w", err)
		}
	}
	return nil
}

// newCryptoParams creates fresh parameters (random salt) for a writer and
// returns them with the segment AEAD.
func newCryptoParams(e *Encryption) (*cryptoParams, cipher.AEAD, error) {
	if err := e.check(); err != nil {
		return nil, nil, err
	}
	c := &cryptoParams{kdf: KDFRawKey}
	if e.Passphrase != nil {
		c.kdf, c.argon = KDFArgon2id, e.Argon2.withDefaults()
	}
	if _, err := io.ReadFull(randReader, c.salt[:]); err != nil {
		return nil, nil, fmt.Errorf("ctxfmt: reading random salt: %w", err)
	}
	master, err := c.masterKey(e.Passphrase, e.Key, e.Keys)
	if err != nil {
		return nil, nil, err
	}
	segKey, check, err := c.subkeys(master)
	if err != nil {
		return nil, nil, err
	}
	copy(c.keyCheck[:], check)
	aead, err := newGCM(segKey)
	return c, aead, err
}
