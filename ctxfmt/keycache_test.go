package ctxfmt

import (
	"bytes"
	"testing"
)

// TestKeyCache: a file written with a KeyCache and read back with it
// derives its key once (the cache holds one key, found again); a wrong
// passphrase, another file's salt or other parameters are never answered
// from the cache (they derive their own key); every read gives the payload; Wipe zeroes what the
// cache held. (Whether a key came from the cache is seen in the cache's
// entries, not in timings.)
func TestKeyCache(t *testing.T) {
	keys := NewKeyCache()
	payload := textPayload(4096, 1)
	write := func(a Argon2Params) []byte {
		return build(t, WriterOptions{Encryption: &Encryption{Passphrase: []byte(testPassphrase), Argon2: a, Keys: keys}},
			seg{t: TypeConversation, p: payload})
	}
	f1 := write(testArgon2)
	if n := len(keys.keys); n != 1 {
		t.Fatalf("after one encrypted write the cache holds %d keys, want 1", n)
	}
	held := keys.keys[0].master
	f2 := write(testArgon2) // a fresh salt: a second key
	other := testArgon2
	other.Time++
	f3 := write(other)
	for _, tc := range []struct {
		name  string
		file  []byte
		pass  string
		nkeys int // keys in the cache after the read
	}{
		{"same file", f1, testPassphrase, 3},
		{"same file again", f1, testPassphrase, 3},
		{"second file", f2, testPassphrase, 3},
		{"other parameters", f3, testPassphrase, 3},
	} {
		r, err := open(t, tc.file, ReaderOptions{Passphrase: []byte(tc.pass), Keys: keys})
		if err != nil {
			t.Fatalf("%s: open: %v", tc.name, err)
		}
		got, err := r.ReadSegment(1) // (0: the crypto parameters)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("%s: segment read back: %v (%d bytes)", tc.name, err, len(got))
		}
		if err := Verify(bytes.NewReader(tc.file), int64(len(tc.file)), VerifyOptions{Deep: true, Passphrase: []byte(tc.pass), Keys: keys}); err != nil {
			t.Fatalf("%s: verify: %v", tc.name, err)
		}
		if n := len(keys.keys); n != tc.nkeys {
			t.Fatalf("%s: the cache holds %d keys, want %d", tc.name, n, tc.nkeys)
		}
	}
	// Another passphrase with a cached salt and parameters is derived,
	// not answered from the cache. (Through argon2Key: a wrong passphrase
	// given to NewReader costs a derivation at the default cost besides,
	// see paramsAltered.)
	k0 := keys.keys[0]
	wrong := keys.argon2Key([]byte("wrong horse"), &k0.salt, k0.params)
	if bytes.Equal(wrong, k0.master) || len(keys.keys) != 4 {
		t.Fatalf("a wrong passphrase got the cached key (%v) or was not derived (%d keys)", bytes.Equal(wrong, k0.master), len(keys.keys))
	}
	if again := keys.argon2Key([]byte(testPassphrase), &k0.salt, k0.params); !bytes.Equal(again, k0.master) || len(keys.keys) != 4 {
		t.Fatalf("the right passphrase after a wrong one: same key %v, %d keys", bytes.Equal(again, k0.master), len(keys.keys))
	}
	if _, err := open(t, f1, ReaderOptions{Passphrase: []byte(testPassphrase), Keys: keys}); err != nil {
		t.Fatal(err)
	}
	pass := keys.keys[0].pass
	keys.Wipe()
	if len(keys.keys) != 0 || !bytes.Equal(held, make([]byte, len(held))) || !bytes.Equal(pass, make([]byte, len(pass))) {
		t.Fatalf("after Wipe: %d keys, master %x, passphrase %q", len(keys.keys), held, pass)
	}
	// A wiped cache derives again; a nil one always does.
	for _, k := range []*KeyCache{keys, nil} {
		if _, err := open(t, f1, ReaderOptions{Passphrase: []byte(testPassphrase), Keys: k}); err != nil {
			t.Fatalf("open with cache %p: %v", k, err)
		}
	}
	if len(keys.keys) != 1 {
		t.Fatalf("the wiped cache holds %d keys after one open, want 1", len(keys.keys))
	}
}
