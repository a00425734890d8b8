package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/store"
)

// fixtureWithSubagents copies the Claude importer's test session with its
// subagent folder into dir and returns the main file.
func fixtureWithSubagents(t *testing.T, dir string) string {
	t.Helper()
	p := fixture(t, dir, 0)
	src := filepath.Join("..", "transcript", "claude", "testdata", fixtureSession, "subagents")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, fixtureSession, "subagents")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func openPath(t *testing.T, p string, oo archive.OpenOptions) *archive.Archive {
	t.Helper()
	a, err := archive.OpenFile(p, oo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestRecompressToMax: a snapshot written at the fastest level (as the
// PreCompact hook does) and recompressed to max holds the same content,
// component by component and the raw transcript byte for byte, is laid
// out as a direct max save (subagent files packed, no resume state) and
// is as small as one; its index entry follows (hash, sizes, level) and
// stays pinned. With redaction on (the default) and off, and encrypted.
func TestRecompressToMax(t *testing.T) {
	for _, tc := range []struct{ name, cfg string }{
		{"redaction on", ""},
		{"redaction off", "context:\n  sensitive_redaction: false\n"},
		{"encrypted", "context:\n  encryption:\n    enabled: true\n    key_source: env\n    env: BEN10_TEST_PASS\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name == "encrypted" {
				t.Skip("-short: Argon2id at its default cost on every open; make test-long runs it")
			}
			t.Setenv("BEN10_TEST_PASS", "correct horse battery staple")
			e := newEnv(t, tc.cfg)
			tr := fixtureWithSubagents(t, t.TempDir())
			now := time.Now().UTC().Add(-time.Hour)
			s := e.create(t, CreateOptions{TranscriptPath: tr, Now: now, Level: ctxfmt.LevelFastest, Force: true}).Snapshot
			if err := e.m.Pin(s.ID, true); err != nil {
				t.Fatal(err)
			}
			orig, err := os.ReadFile(e.m.Path(s))
			if err != nil {
				t.Fatal(err)
			}
			keep := filepath.Join(t.TempDir(), "orig.ctx")
			if err := os.WriteFile(keep, orig, 0o600); err != nil {
				t.Fatal(err)
			}
			oo := OpenOptions(e.m.cfg)
			if _, ok, _ := openPath(t, keep, oo).ResumeState(); !ok {
				t.Fatal("fastest snapshot without a resume state")
			}
			if err := e.m.Recompress(s.ID, ctxfmt.LevelMax); err != nil {
				t.Fatal(err)
			}
			after, err := e.m.Get(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(e.m.Path(after))
			if err != nil {
				t.Fatal(err)
			}
			h, _ := fileHash(e.m.Path(after))
			if after.Level != ctxfmt.LevelMax.String() || !after.Pinned || after.ContentHash != h || after.CompressedBytes != fi.Size() || after.ContentHash == s.ContentHash {
				t.Fatalf("index entry after recompress: %+v (file %d bytes, %s)", after, fi.Size(), h)
			}
			if err := e.m.Verify(s.ID); err != nil {
				t.Fatal(err)
			}
			got := openPath(t, e.m.Path(after), oo)
			if err := sameContent(openPath(t, keep, oo), got, false); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := got.ResumeState(); ok {
				t.Error("max snapshot keeps the resume state")
			}
			if infos := got.RawFileInfos(); len(infos) < 2 || infos[1].Shared == 0 {
				t.Errorf("subagent files not packed: %+v", infos)
			}
			// A direct max save of the same transcript (no previous archive).
			d := e.create(t, CreateOptions{TranscriptPath: tr, Now: now.Add(time.Minute), Level: ctxfmt.LevelMax, Force: true, NoPrevious: true}).Snapshot
			// Only the save time differs (a few bytes of metadata).
			if after.CompressedBytes > d.CompressedBytes+16 {
				t.Errorf("recompressed to max: %d bytes, direct max save %d", after.CompressedBytes, d.CompressedBytes)
			}
			if err := sameContentBut(openPath(t, e.m.Path(d), oo), got); err != nil {
				t.Errorf("direct max save: %v", err)
			}
		})
	}
}

// sameContentBut is sameContent for archives saved at different times:
// the metadata's UpdatedAt and CreatedAt are left out.
func sameContentBut(a, b *archive.Archive) error {
	err := sameContent(a, b, false)
	if err == nil || !strings.HasPrefix(err.Error(), "metadata") {
		return err
	}
	sa, sb := a.Summary(), b.Summary()
	sa.Meta.UpdatedAt, sa.Meta.CreatedAt = sb.Meta.UpdatedAt, sb.Meta.CreatedAt
	if same, _ := sameValue(sa, sb); !same {
		return err
	}
	return nil
}

// TestRecompressFailureKeepsSnapshot: when the snapshot cannot be read
// back whole (a damaged raw segment), Recompress fails at every level,
// and the file, its index entry and the snapshot directory are left as
// they were (no temporary file behind).
func TestRecompressFailureKeepsSnapshot(t *testing.T) {
	e := newEnv(t, "context:\n  sensitive_redaction: false\n")
	s := e.create(t, CreateOptions{TranscriptPath: fixtureWithSubagents(t, t.TempDir()), Now: time.Now().UTC(), Force: true}).Snapshot
	r, err := ctxfmt.OpenFile(e.m.Path(s), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw := r.Segments()[r.Find(ctxfmt.TypeRawTranscript)[0]]
	r.Close()
	b, err := os.ReadFile(e.m.Path(s))
	if err != nil {
		t.Fatal(err)
	}
	b[raw.Offset+raw.StoredLen/2] ^= 0xff
	if err := os.WriteFile(e.m.Path(s), b, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := e.m.Get(s.ID)
	for _, l := range []ctxfmt.Level{ctxfmt.LevelDefault, ctxfmt.LevelMax} {
		if err := e.m.Recompress(s.ID, l); err == nil {
			t.Fatalf("recompress of a damaged snapshot at %v: no error", l)
		}
		now, _ := os.ReadFile(e.m.Path(s))
		after, _ := e.m.Get(s.ID)
		if !bytes.Equal(now, b) || after.ContentHash != before.ContentHash || after.Level != before.Level {
			t.Fatalf("damaged snapshot changed by a failed recompress at %v", l)
		}
		ents, _ := os.ReadDir(e.st.SnapshotDir())
		for _, en := range ents {
			if strings.HasPrefix(en.Name(), store.TempPrefix) {
				t.Fatalf("temporary file left: %s", en.Name())
			}
		}
	}
}

// TestSameContentDetects: the content check Recompress runs before the
// replace tells archives of different content apart.
func TestSameContentDetects(t *testing.T) {
	e := newEnv(t, "context:\n  sensitive_redaction: false\n")
	dir := t.TempDir()
	full := fixtureWithSubagents(t, dir)
	a := e.create(t, CreateOptions{TranscriptPath: full, Now: time.Now().UTC(), Force: true}).Snapshot
	short := fixture(t, t.TempDir(), 12)
	b := e.create(t, CreateOptions{TranscriptPath: short, Now: time.Now().UTC().Add(time.Hour), Force: true, NoPrevious: true}).Snapshot
	oo := OpenOptions(e.m.cfg)
	if err := sameContent(openPath(t, e.m.Path(a), oo), openPath(t, e.m.Path(b), oo), false); err == nil {
		t.Fatal("different sessions compare equal")
	}
	if err := sameContent(openPath(t, e.m.Path(a), oo), openPath(t, e.m.Path(a), oo), false); err != nil {
		t.Fatal(err)
	}
}
