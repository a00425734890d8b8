package remote

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKey(t testing.TB) *Key {
	t.Helper()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyText(t *testing.T) {
	k := testKey(t)
	k2, err := ParseKey("  " + k.String() + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if k2.ID() != k.ID() || k2.raw != k.raw {
		t.Fatal("the text form does not round-trip")
	}
	for _, bad := range []string{"", "BEN10-REMOTE-KEY-1-", k.String()[:len(k.String())-2], strings.Replace(k.String(), "KEY-1", "KEY-2", 1), k.String() + "!!"} {
		if _, err := ParseKey(bad); !errors.Is(err, ErrBadKey) {
			t.Errorf("ParseKey(%q) = %v, want ErrBadKey", bad, err)
		}
	}
}

func TestKeyFile(t *testing.T) {
	home := t.TempDir()
	if _, err := LoadKey(home, "team"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("missing key: %v", err)
	}
	k := testKey(t)
	if err := SaveKey(home, "team", k, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(KeyPath(home, "team"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", fi.Mode(), err)
	}
	if err := SaveKey(home, "team", testKey(t), false); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("replacing without force: %v", err)
	}
	got, err := LoadKey(home, "team")
	if err != nil || got.ID() != k.ID() {
		t.Fatalf("LoadKey: %v", err)
	}
	link := KeyPath(home, "link")
	if err := os.Symlink(KeyPath(home, "team"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(home, "link"); err == nil {
		t.Fatal("a key file that is a symlink was read")
	}
	_ = filepath.Base(link)
}

func TestChunkSealOpen(t *testing.T) {
	k := testKey(t)
	p := []byte(strings.Repeat(`{"type":"user","message":"hello"}`+"\n", 500))
	id := k.ChunkID(p)
	obj, err := k.SealChunk(id, p)
	if err != nil {
		t.Fatal(err)
	}
	obj2, _ := k.SealChunk(id, p)
	if !bytes.Equal(obj, obj2) {
		t.Fatal("sealing is not deterministic: equal chunks would not deduplicate")
	}
	if bytes.Contains(obj, []byte("hello")) {
		t.Fatal("plaintext in the sealed chunk")
	}
	got, err := k.OpenChunk(id, obj, len(p))
	if err != nil || !bytes.Equal(got, p) {
		t.Fatalf("OpenChunk: %v", err)
	}
	other := testKey(t)
	if other.ChunkID(p) == id {
		t.Fatal("chunk ids do not depend on the key")
	}

	cases := map[string]func() (string, []byte, int){
		"flipped byte": func() (string, []byte, int) {
			b := bytes.Clone(obj)
			b[len(b)/2] ^= 1
			return id, b, len(p)
		},
		"truncated":   func() (string, []byte, int) { return id, obj[:len(obj)-1], len(p) },
		"empty":       func() (string, []byte, int) { return id, nil, len(p) },
		"bad magic":   func() (string, []byte, int) { b := bytes.Clone(obj); b[0] = 'X'; return id, b, len(p) },
		"renamed":     func() (string, []byte, int) { return k.ChunkID([]byte("other")), obj, len(p) },
		"bad id":      func() (string, []byte, int) { return "zz", obj, len(p) },
		"over limit":  func() (string, []byte, int) { return id, obj, len(p) - 1 },
		"another key": func() (string, []byte, int) { o, _ := other.SealChunk(id, p); return id, o, len(p) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			id, b, max := mk()
			if _, err := k.OpenChunk(id, b, max); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestManifestSealOpen(t *testing.T) {
	k := testKey(t)
	obj, err := k.sealManifest("p/m1", []byte(`{"version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.openManifest("p/m1", obj, 1<<20); err != nil || string(got) != `{"version":1}` {
		t.Fatalf("openManifest: %q %v", got, err)
	}
	if _, err := k.openManifest("p/m2", obj, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a manifest moved to another name opened: %v", err)
	}
	if _, err := k.openManifest("p/m1", obj[:len(obj)-3], 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a truncated manifest opened: %v", err)
	}
	if _, err := testKey(t).openManifest("p/m1", obj, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("another key opened the manifest: %v", err)
	}
}
