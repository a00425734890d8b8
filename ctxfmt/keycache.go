package ctxfmt

import (
	"crypto/subtle"
	"sync"

	"golang.org/x/crypto/argon2"
)

// A KeyCache remembers the Argon2id master keys derived from passphrases
// for the length of one operation, so that a file written encrypted and
// read back at once (a save and its verification, Encryption.Keys and
// ReaderOptions.Keys naming the same cache) costs one derivation instead
// of one per open. A key is found again only for the same passphrase,
// salt and parameters; nothing is written to disk. Call Wipe when the
// operation ends: it zeroes the keys and the passphrases held. A nil
// *KeyCache derives every time. A KeyCache is safe for concurrent use.
type KeyCache struct {
	mu   sync.Mutex
	keys []cachedKey
}

type cachedKey struct {
	salt   [saltSize]byte
	params Argon2Params
	pass   []byte
	master []byte
}

// NewKeyCache returns an empty KeyCache.
func NewKeyCache() *KeyCache { return &KeyCache{} }

// Wipe zeroes and forgets every key and passphrase in the cache. The
// cache stays usable (it derives again).
func (c *KeyCache) Wipe() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.keys {
		clear(k.pass)
		clear(k.master)
	}
	c.keys = nil
}

// argon2Key returns Argon2id(passphrase, salt, params), from the cache
// when it holds it (a copy: the caller may keep or clear it).
func (c *KeyCache) argon2Key(passphrase []byte, salt *[saltSize]byte, p Argon2Params) []byte {
	if c == nil {
		return argon2.IDKey(passphrase, salt[:], p.Time, p.MemoryKiB, p.Threads, 32)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.keys {
		if k.salt == *salt && k.params == p && subtle.ConstantTimeCompare(k.pass, passphrase) == 1 {
			return append([]byte(nil), k.master...)
		}
	}
	// (Under the lock: two readers of one file derive once.)
	master := argon2.IDKey(passphrase, salt[:], p.Time, p.MemoryKiB, p.Threads, 32)
	c.keys = append(c.keys, cachedKey{salt: *salt, params: p, pass: append([]byte(nil), passphrase...), master: append([]byte(nil), master...)})
	return master
}
