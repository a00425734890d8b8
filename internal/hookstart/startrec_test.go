package hookstart

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/store"
)

// savedFile writes a saved context file of st (its content does not
// matter to the record, only its identity) and returns its candidate.
func savedFile(t *testing.T, st *store.Store, rel string) Candidate {
	t.Helper()
	p := filepath.Join(st.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("an archive of "+rel), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return Candidate{Path: p, Kind: store.KindCheckpoint, Mod: fi.ModTime()}
}

func sampleSaved() Saved {
	r := sampleRecall()
	at := time.Date(2026, 3, 2, 9, 0, 0, 123456789, time.UTC)
	return Saved{Session: "s1", Harness: "claude", Directory: "/p", Updated: at.Add(time.Minute), LastActivity: at, Authentic: true, Recall: &r}
}

// record writes the startup record of cand with sv.
func record(t *testing.T, st *store.Store, cand Candidate, sv Saved) {
	t.Helper()
	id, err := StatSaved(st, cand.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteStartupRecord(st, id, sv, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestStartupRecordRoundTrip: what WriteStartupRecord writes,
// ReadStartupRecord gives back for the same project and unchanged file,
// as a 0600 file; an archive that is not this user's is recorded without
// its recall; SweepStartupRecords removes the records of files gone.
func TestStartupRecordRoundTrip(t *testing.T) {
	st := openStore(t, t.TempDir(), "p")
	cp := savedFile(t, st, "checkpoints/cp-1.ctx")
	cur := savedFile(t, st, "current.ctx")
	sv := sampleSaved()
	record(t, st, cp, sv)
	got, err := ReadStartupRecord(st, AuthKey(st), cp)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sv) {
		t.Fatalf("read back %+v, want %+v", got, sv)
	}
	p := filepath.Join(st.Root(), PreparedDir, "checkpoints-cp-1.ctx"+startupSuffix)
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v, %v", fi, err)
	}
	foreign := sv
	foreign.Authentic = false
	record(t, st, cur, foreign)
	if got, err := ReadStartupRecord(st, AuthKey(st), cur); err != nil || got.Authentic || got.Recall != nil {
		t.Fatalf("a foreign archive's record: %+v, %v", got, err)
	}
	if err := SweepStartupRecords(st, []Candidate{cur}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the record of a file gone was kept: %v", err)
	}
	if _, err := ReadStartupRecord(st, AuthKey(st), cur); err != nil {
		t.Fatalf("the sweep removed a live record: %v", err)
	}
	noRecall := sv
	noRecall.Recall = nil
	if err := WriteStartupRecord(st, statSaved(t, st, cp.Path), noRecall, time.Now()); err == nil {
		t.Fatal("recorded this user's archive without its recall")
	}
}

// statSaved is StatSaved in a test.
func statSaved(t *testing.T, st *store.Store, path string) FileID {
	t.Helper()
	id, err := StatSaved(st, path)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestStartupRecordHostile: a startup record is used only when the user's
// key authenticates it for this project and this file, and the file is
// still the one it describes; anything else is ErrNotPrepared (the event
// goes to `ben10 hook`, which reads the archive).
func TestStartupRecordHostile(t *testing.T) {
	home := t.TempDir()
	const rel = "checkpoints/cp-1.ctx"
	for _, tc := range []struct {
		name string
		// plant damages the store st whose record of cand is at p.
		plant func(t *testing.T, st *store.Store, cand Candidate, p string)
	}{
		{"forged tag", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			data, _ := os.ReadFile(p)
			data[0] ^= 1
			os.WriteFile(p, data, 0o600)
		}},
		{"changed body", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(data, []byte(`"authentic":true`), []byte(`"authentic":false`), 1), 0o600)
		}},
		{"truncated", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)-5], 0o600)
		}},
		{"oversized", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, bytes.Repeat([]byte(" "), MaxPreparedBytes)...), 0o600)
		}},
		{"symbolic link", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x")
			data, _ := os.ReadFile(p)
			os.WriteFile(elsewhere, data, 0o600)
			os.Remove(p)
			if err := os.Symlink(elsewhere, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"linked directory", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			elsewhere := t.TempDir()
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(elsewhere, filepath.Base(p)), data, 0o600)
			os.RemoveAll(filepath.Dir(p))
			if err := os.Symlink(elsewhere, filepath.Dir(p)); err != nil {
				t.Fatal(err)
			}
		}},
		{"another file's", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			// The record of cp-2 renamed to cp-1's: bound to cp-2's path.
			other := savedFile(t, st, "checkpoints/cp-2.ctx")
			record(t, st, other, sampleSaved())
			os.Rename(filepath.Join(filepath.Dir(p), "checkpoints-cp-2.ctx"+startupSuffix), p)
		}},
		{"another project's", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			other := openStore(t, home, "other")
			oc := savedFile(t, other, rel)
			// The same identity cannot be had; the MAC fails first.
			record(t, other, oc, sampleSaved())
			data, _ := os.ReadFile(filepath.Join(other.Root(), PreparedDir, filepath.Base(p)))
			os.WriteFile(p, data, 0o600)
		}},
		{"another user's key", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			other, err := store.Open(st.ProjectDir(), store.Options{Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			record(t, other, cand, sampleSaved())
		}},
		{"file rewritten", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			os.WriteFile(cand.Path, []byte("another archive, longer than the first"), 0o600)
		}},
		{"file replaced, same size and time", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			data, _ := os.ReadFile(cand.Path)
			tmp := cand.Path + ".new"
			os.WriteFile(tmp, bytes.ToUpper(data), 0o600)
			os.Chtimes(tmp, cand.Mod, cand.Mod)
			if err := os.Rename(tmp, cand.Path); err != nil {
				t.Fatal(err)
			}
		}},
		{"file a symbolic link", func(t *testing.T, st *store.Store, cand Candidate, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x.ctx")
			os.Rename(cand.Path, elsewhere)
			if err := os.Symlink(elsewhere, cand.Path); err != nil {
				t.Fatal(err)
			}
		}},
		{"record missing", func(t *testing.T, st *store.Store, cand Candidate, p string) { os.Remove(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, home, "p")
			cand := savedFile(t, st, rel)
			record(t, st, cand, sampleSaved())
			tc.plant(t, st, cand, filepath.Join(st.Root(), PreparedDir, "checkpoints-cp-1.ctx"+startupSuffix))
			if got, err := ReadStartupRecord(st, AuthKey(st), cand); !errors.Is(err, ErrNotPrepared) {
				t.Fatalf("read %+v, %v; want ErrNotPrepared", got, err)
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		st := openStore(t, home, "p")
		cand := savedFile(t, st, rel)
		record(t, st, cand, sampleSaved())
		if _, err := ReadStartupRecord(st, nil, cand); !errors.Is(err, ErrNotPrepared) {
			t.Fatalf("without a key: %v", err)
		}
	})
	t.Run("no record of a file changed while read", func(t *testing.T) {
		st := openStore(t, home, "p")
		cand := savedFile(t, st, rel)
		id := statSaved(t, st, cand.Path)
		os.WriteFile(cand.Path, []byte("rewritten meanwhile"), 0o600)
		if err := WriteStartupRecord(st, id, sampleSaved(), time.Now()); err == nil {
			t.Fatal("recorded a file that changed while read")
		}
	})
	t.Run("no write through a linked directory", func(t *testing.T) {
		st := openStore(t, home, "p")
		cand := savedFile(t, st, rel)
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(st.Root(), PreparedDir)); err != nil {
			t.Fatal(err)
		}
		if err := WriteStartupRecord(st, statSaved(t, st, cand.Path), sampleSaved(), time.Now()); !errors.Is(err, store.ErrUnsafePath) {
			t.Fatalf("write through a link: %v", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Fatalf("written through the link: %v", ents)
		}
	})
}
