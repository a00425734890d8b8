package ctxfmt

import (
	"bytes"
	"errors"
	"testing"
)

func encOpts(c Codec) WriterOptions {
	return WriterOptions{Codec: c, Encryption: &Encryption{Passphrase: []byte(testPassphrase), Argon2: testArgon2}}
}

func TestEncryptedRoundTrip(t *testing.T) {
	key := bytes.Repeat([]byte{0x5a}, 32)
	text := textPayload(100_000, 11)
	for name, opts := range map[string]WriterOptions{
		"passphrase-zstd": encOpts(CodecZstd),
		"passphrase-none": encOpts(CodecNone),
		"key-lz4":         {Codec: CodecLZ4, Encryption: &Encryption{Key: key}},
	} {
		t.Run(name, func(t *testing.T) {
			b := build(t, opts, seg{t: TypeMetadata, p: []byte(`{"id":"x"}`)}, seg{t: TypeConversation, p: text}, seg{t: TypeSummaries, p: nil})
			if bytes.Contains(b, text[:64]) {
				t.Fatal("plaintext visible in the encrypted file")
			}
			ro := ReaderOptions{Passphrase: []byte(testPassphrase)}
			if opts.Encryption.Key != nil {
				ro = ReaderOptions{Key: key}
			}
			r, err := open(t, b, ro)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Encrypted() || r.Segments()[0].Type != TypeCryptoParams || r.NumSegments() != 4 {
				t.Fatalf("layout %+v", r.Segments())
			}
			ci, ok := r.CryptoInfo()
			if !ok || ci.AEAD != "aes-256-gcm" || (opts.Encryption.Key == nil) != (ci.KDF == "argon2id") {
				t.Fatalf("crypto info %+v", ci)
			}
			for i, want := range [][]byte{[]byte(`{"id":"x"}`), text, {}} {
				got, err := r.ReadSegment(i + 1)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("segment %d: %v", i+1, err)
				}
				if !r.Segments()[i+1].Encrypted {
					t.Fatalf("segment %d not flagged encrypted", i+1)
				}
			}
			vo := VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key}
			if err := Verify(bytes.NewReader(b), int64(len(b)), vo); err != nil {
				t.Fatal(err)
			}
			// Without a key: the index is readable, segments are not.
			r, err = open(t, b, ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.ReadSegment(1); !errors.Is(err, ErrKeyRequired) {
				t.Fatalf("no key: %v", err)
			}
			if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{}); err != nil {
				t.Fatalf("cheap verify without key: %v", err)
			}
			if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true}); !errors.Is(err, ErrKeyRequired) {
				t.Fatalf("deep verify without key: %v", err)
			}
		})
	}
}

func TestWrongKey(t *testing.T) {
	b := build(t, encOpts(CodecZstd), seg{t: TypeConversation, p: []byte("secret")})
	for name, ro := range map[string]ReaderOptions{
		"wrong passphrase": {Passphrase: []byte("Correct horse battery staple")},
		"empty passphrase": {Passphrase: []byte{}},
		"raw key":          {Key: make([]byte, 32)},
	} {
		if _, err := open(t, b, ro); !errors.Is(err, ErrWrongKey) || errors.Is(err, ErrAuth) {
			t.Errorf("%s: %v", name, err)
		}
		if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key}); !errors.Is(err, ErrWrongKey) {
			t.Errorf("%s verify: %v", name, err)
		}
	}
	kb := build(t, WriterOptions{Encryption: &Encryption{Key: bytes.Repeat([]byte{1}, 32)}}, seg{t: TypeConversation, p: []byte("secret")})
	if _, err := open(t, kb, ReaderOptions{Key: bytes.Repeat([]byte{2}, 32)}); !errors.Is(err, ErrWrongKey) {
		t.Errorf("wrong raw key: %v", err)
	}
	if _, err := open(t, kb, ReaderOptions{Passphrase: []byte("x")}); !errors.Is(err, ErrWrongKey) {
		t.Errorf("passphrase for a raw-key file: %v", err)
	}
}

func TestFreshSaltPerFile(t *testing.T) {
	a := build(t, encOpts(CodecNone), seg{t: TypeConversation, p: []byte("same")})
	b := build(t, encOpts(CodecNone), seg{t: TypeConversation, p: []byte("same")})
	if bytes.Equal(a, b) {
		t.Fatal("two encrypted files with the same input are identical: salt not random")
	}
}

// TestTamperEncrypted modifies an encrypted file and recomputes every
// checksum, as a deliberate attacker would: authentication must fail.
func TestTamperEncrypted(t *testing.T) {
	p1, p2 := textPayload(3000, 1), textPayload(3000, 2)
	b := build(t, encOpts(CodecNone), seg{t: TypeConversation, p: p1}, seg{t: TypeConversation, p: p2}, seg{t: TypeSummaries, p: []byte("s")})
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Segments()
	ro := ReaderOptions{Passphrase: []byte(testPassphrase)}
	deep := func(b []byte) error {
		return Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase})
	}
	entryAt := func(i int) int { return HeaderSize + i*EntrySize }

	cases := map[string]func() []byte{
		"flip ciphertext bit": func() []byte {
			m := bytes.Clone(b)
			m[s[1].Offset+10] ^= 1
			return reseal(m, true)
		},
		"flip tag bit": func() []byte {
			m := bytes.Clone(b)
			m[s[2].Offset+s[2].StoredLen-1] ^= 0x80
			return reseal(m, true)
		},
		"swap equal-length segments": func() []byte {
			m := bytes.Clone(b)
			a, c := m[s[1].Offset:s[1].Offset+s[1].StoredLen], m[s[2].Offset:s[2].Offset+s[2].StoredLen]
			tmp := bytes.Clone(a)
			copy(a, c)
			copy(c, tmp)
			return reseal(m, true)
		},
		"change a segment's type": func() []byte {
			m := bytes.Clone(b)
			le.PutUint16(m[entryAt(3)+32:], uint16(TypeTaskState))
			return reseal(m, true)
		},
		"clear an entry's optional flag": func() []byte {
			m := bytes.Clone(b)
			m[entryAt(1)+34] &^= byte(FlagRequired)
			return reseal(m, true)
		},
		"change raw length": func() []byte {
			m := bytes.Clone(b)
			// Codec none requires raw == stored - tag, so declare LZ4 too.
			m[entryAt(1)+36] = byte(CodecLZ4)
			return reseal(m, true)
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			m := mk()
			if err := deep(m); !errors.Is(err, ErrAuth) {
				t.Fatalf("got %v, want ErrAuth", err)
			}
		})
	}
}

func TestArgon2Caps(t *testing.T) {
	b := build(t, encOpts(CodecNone), seg{t: TypeConversation, p: []byte("x")})
	r, _ := open(t, b, ReaderOptions{})
	cs := r.Segments()[0].Offset
	for name, mod := range map[string]func(m []byte){
		"memory": func(m []byte) { le.PutUint32(m[cs+8:], MaxArgon2MemoryKiB+1) },
		"time":   func(m []byte) { le.PutUint32(m[cs+4:], 1000) },
		"lanes":  func(m []byte) { le.PutUint32(m[cs+12:], 255) },
		"kdf":    func(m []byte) { m[cs+1] = 9 },
		"aead":   func(m []byte) { m[cs+2] = 2 },
	} {
		m := bytes.Clone(b)
		mod(m)
		m = reseal(m, true)
		if _, err := open(t, m, ReaderOptions{Passphrase: []byte(testPassphrase)}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCopyRaw(t *testing.T) {
	text := textPayload(80_000, 21)
	segs := []seg{{t: TypeMetadata, p: []byte("meta")}, {t: TypeConversation, p: text}, {t: 0x8001, p: []byte("ext"), o: SegmentOptions{UseDefaults: true, Optional: true}}}
	plain := build(t, WriterOptions{Codec: CodecZstd}, segs...)
	enc := build(t, encOpts(CodecLZ4), segs...)
	pass := []byte(testPassphrase)
	key := bytes.Repeat([]byte{7}, 32)

	copyAll := func(src []byte, ro ReaderOptions, wo WriterOptions) ([]byte, error) {
		r, err := open(t, src, ro)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		w, err := NewWriter(&out, wo)
		if err != nil {
			return nil, err
		}
		for i, s := range r.Segments() {
			if s.Type == TypeCryptoParams {
				continue
			}
			if err := w.CopyRaw(r, i); err != nil {
				return nil, err
			}
		}
		err = w.Close()
		return out.Bytes(), err
	}
	check := func(t *testing.T, b []byte, ro ReaderOptions, codec Codec) {
		t.Helper()
		if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key}); err != nil {
			t.Fatal(err)
		}
		r, err := open(t, b, ro)
		if err != nil {
			t.Fatal(err)
		}
		idx := r.Find(TypeConversation)
		got, err := r.ReadSegment(idx[0])
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("conversation after copy: %v", err)
		}
		if c := r.Segments()[idx[0]].Codec; c != codec {
			t.Fatalf("codec after copy %s, want %s (no recompression)", c, codec)
		}
		ext := r.Find(0x8001)
		if len(ext) != 1 || r.Segments()[ext[0]].Required {
			t.Fatalf("extension segment lost its optional flag: %+v", r.Segments())
		}
	}
	t.Run("plain to plain is byte-identical", func(t *testing.T) {
		out, err := copyAll(plain, ReaderOptions{}, WriterOptions{Codec: CodecLZ4})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, plain) {
			t.Fatal("copy of every segment differs from the original")
		}
		check(t, out, ReaderOptions{}, CodecZstd)
	})
	t.Run("plain to encrypted", func(t *testing.T) {
		out, err := copyAll(plain, ReaderOptions{}, WriterOptions{Encryption: &Encryption{Key: key}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, out, ReaderOptions{Key: key}, CodecZstd)
	})
	t.Run("encrypted to encrypted re-encrypts", func(t *testing.T) {
		out, err := copyAll(enc, ReaderOptions{Passphrase: pass}, WriterOptions{Encryption: &Encryption{Key: key}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, out, ReaderOptions{Key: key}, CodecLZ4)
	})
	t.Run("encrypted to plain is refused", func(t *testing.T) {
		if _, err := copyAll(enc, ReaderOptions{Passphrase: pass}, WriterOptions{}); err == nil {
			t.Fatal("decrypting copy into a plain file accepted")
		}
	})
	t.Run("encrypted without key", func(t *testing.T) {
		if _, err := copyAll(enc, ReaderOptions{}, WriterOptions{Encryption: &Encryption{Key: key}}); !errors.Is(err, ErrKeyRequired) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("damaged source is refused", func(t *testing.T) {
		m := bytes.Clone(plain)
		r, _ := open(t, m, ReaderOptions{})
		m[r.Segments()[1].Offset+3] ^= 4
		if _, err := copyAll(m, ReaderOptions{}, WriterOptions{}); !errors.Is(err, ErrChecksum) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("crypto-params is refused", func(t *testing.T) {
		r, _ := open(t, enc, ReaderOptions{Passphrase: pass})
		w, _ := NewWriter(&bytes.Buffer{}, WriterOptions{Encryption: &Encryption{Key: key}})
		if err := w.CopyRaw(r, 0); err == nil {
			t.Fatal("crypto-params copied")
		}
		if err := w.CopyRaw(r, 99); err == nil {
			t.Fatal("segment 99 copied")
		}
	})
}
