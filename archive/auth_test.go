package archive_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

func authKey(t testing.TB, fill byte) *archive.AuthKey {
	t.Helper()
	k, err := archive.NewAuthKey(bytes.Repeat([]byte{fill}, archive.AuthKeySize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rewrite copies the archive b segment by segment (decoded payloads,
// plaintext, checksums recomputed), passing each payload through edit,
// and appends the extra segment types (optional, an empty msgpack array
// each): what an attacker holding a tagged archive can write.
func rewrite(t testing.TB, b []byte, edit func(ctxfmt.SegmentType, []byte) []byte, extra ...ctxfmt.SegmentType) []byte {
	t.Helper()
	r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := ctxfmt.NewWriter(&out, ctxfmt.WriterOptions{Codec: ctxfmt.CodecNone})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Segments() {
		p, err := r.ReadSegment(s.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddWith(s.Type, edit(s.Type, bytes.Clone(p)), ctxfmt.SegmentOptions{Optional: !s.Required, Codec: ctxfmt.CodecNone}); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range extra {
		if err := w.AddWith(st, []byte{0x90}, ctxfmt.SegmentOptions{Optional: true, Codec: ctxfmt.CodecNone}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func flipLast(want ctxfmt.SegmentType) func(ctxfmt.SegmentType, []byte) []byte {
	return func(st ctxfmt.SegmentType, p []byte) []byte {
		if st == want && len(p) > 0 {
			p[len(p)-1] ^= 1
		}
		return p
	}
}

// TestAuthenticate: an archive saved with the user's key authenticates,
// and every way of getting someone else's content past the check fails
// with the error class that names the reason: no tag, a tag from another
// key, a changed tag, a valid tag over a changed recall or metadata, a
// second tag, a tag moved onto another archive.
func TestAuthenticate(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	st.Meta.DirectoryPath = "/home/u/project"
	k, other := authKey(t, 1), authKey(t, 2)
	own := encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Auth: k})

	info, err := open(t, own, archive.OpenOptions{}).Authenticate(k)
	if err != nil {
		t.Fatalf("own archive: %v", err)
	}
	if info.Project != "/home/u/project" || info.Session != v2 || !info.Saved.Equal(fixedNow()) || info.KeyID != k.ID() {
		t.Errorf("AuthInfo = %+v", info)
	}

	st2 := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	st2.Meta.DirectoryPath = "/home/u/other"
	otherProject := encode(t, st2, archive.EncodeOptions{Auth: k})
	tagOf := func(b []byte) []byte {
		var tag []byte
		rewrite(t, b, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == archive.TypeAuthTag {
				tag = p
			}
			return p
		})
		return tag
	}

	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"no tag", encode(t, st, archive.EncodeOptions{}), archive.ErrNoTag},
		{"another key", encode(t, st, archive.EncodeOptions{Auth: other}), archive.ErrOtherKey},
		{"tag changed", rewrite(t, own, flipLast(archive.TypeAuthTag)), archive.ErrBadTag},
		{"recall changed", rewrite(t, own, flipLast(ctxfmt.TypeSummaries)), archive.ErrBadTag},
		{"metadata changed", rewrite(t, own, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == ctxfmt.TypeMetadata {
				return bytes.Replace(p, []byte("/home/u/project"), []byte("/home/u/projecT"), 1)
			}
			return p
		}), archive.ErrBadTag},
		{"recall removed", rewrite(t, own, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == ctxfmt.TypeSummaries {
				return []byte{0x80}
			}
			return p
		}), archive.ErrBadTag},
		{"tag of another archive", rewrite(t, own, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == archive.TypeAuthTag {
				return tagOf(otherProject)
			}
			return p
		}), archive.ErrBadTag},
		{"truncated tag", rewrite(t, own, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == archive.TypeAuthTag {
				return p[:20]
			}
			return p
		}), archive.ErrBadTag},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := open(t, tc.b, archive.OpenOptions{}).Authenticate(k)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Authenticate = %v, want %v", err, tc.want)
			}
		})
	}

	// The unchanged copy still authenticates (the rewrite itself is not
	// what the cases above detect).
	if _, err := open(t, rewrite(t, own, func(_ ctxfmt.SegmentType, p []byte) []byte { return p }), archive.OpenOptions{}).Authenticate(k); err != nil {
		t.Errorf("unchanged copy: %v", err)
	}
}

// TestAuthenticateEncrypted: in an encrypted archive the tag segment is
// encrypted like every other (GCM under the passphrase's key) and covers
// the plaintext payloads, so the same key authenticates it once it is
// opened with the passphrase; someone who knows the passphrase but not
// the user's key cannot make a tag.
func TestAuthenticateEncrypted(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	k := authKey(t, 1)
	enc := &ctxfmt.Encryption{Passphrase: []byte("pw"), Argon2: ctxfmt.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}}
	b := encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Encryption: enc, Auth: k})
	a := open(t, b, archive.OpenOptions{Passphrase: []byte("pw")})
	if _, err := a.Authenticate(k); err != nil {
		t.Fatalf("encrypted own archive: %v", err)
	}
	for _, s := range a.Container().Segments() {
		if s.Type == archive.TypeAuthTag && !s.Encrypted {
			t.Error("the tag segment of an encrypted archive is stored in clear")
		}
	}
	same := encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Encryption: enc})
	if _, err := open(t, same, archive.OpenOptions{Passphrase: []byte("pw")}).Authenticate(k); !errors.Is(err, archive.ErrNoTag) {
		t.Errorf("encrypted archive without tag: %v", err)
	}
}

// TestAuthKeySum: Sum is bound to the domain, the key and the field
// boundaries.
func TestAuthKeySum(t *testing.T) {
	k, other := authKey(t, 1), authKey(t, 2)
	s := k.Sum("d", []byte("ab"), []byte("c"))
	for _, tc := range []struct {
		name string
		ok   bool
		key  *archive.AuthKey
		dom  string
		f    [][]byte
	}{
		{"same", true, k, "d", [][]byte{[]byte("ab"), []byte("c")}},
		{"other boundary", false, k, "d", [][]byte{[]byte("a"), []byte("bc")}},
		{"other domain", false, k, "e", [][]byte{[]byte("ab"), []byte("c")}},
		{"other key", false, other, "d", [][]byte{[]byte("ab"), []byte("c")}},
	} {
		if got := tc.key.Verify(s, tc.dom, tc.f...); got != tc.ok {
			t.Errorf("%s: Verify = %v", tc.name, got)
		}
	}
	if _, err := archive.NewAuthKey(make([]byte, 31)); err == nil {
		t.Error("NewAuthKey accepted 31 bytes")
	}
}

// FuzzAuthTag replaces the tag segment of an authenticated archive by
// arbitrary bytes (checksums recomputed, so the bytes reach the tag
// parser): Authenticate never panics, and accepts nothing but the
// original tag.
func FuzzAuthTag(f *testing.F) {
	st := importFile(f, filepath.Join(fixtureDir, v2+".jsonl"))
	k := authKey(f, 1)
	own := encode(f, st, archive.EncodeOptions{Auth: k})
	var tag []byte
	rewrite(f, own, func(t ctxfmt.SegmentType, p []byte) []byte {
		if t == archive.TypeAuthTag {
			tag = bytes.Clone(p)
		}
		return p
	})
	f.Add(tag)
	f.Add(tag[:len(tag)-1])
	f.Add([]byte("B10A\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := rewrite(t, own, func(st ctxfmt.SegmentType, p []byte) []byte {
			if st == archive.TypeAuthTag {
				return b
			}
			return p
		})
		_, err := open(t, out, archive.OpenOptions{}).Authenticate(k)
		if err == nil && !bytes.Equal(b, tag) {
			t.Fatalf("a changed tag authenticates: %x", b)
		}
		if err != nil && bytes.Equal(b, tag) {
			t.Fatalf("the original tag fails: %v", err)
		}
	})
}
