package hookstart

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/internal/recall"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
)

// openStore opens (creating) the store of a new project under home.
func openStore(t *testing.T, home, name string) *store.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func sampleRecall() recall.Recall {
	at := time.Date(2026, 3, 2, 9, 0, 0, 123456789, time.UTC)
	return recall.Recall{
		Version:  1,
		Session:  recall.RecallSession{Harness: "claude", SessionID: "s1", Directory: "/p", LastActivity: at},
		Requests: []recall.RecallRequest{{Text: "fix the cart total", Time: at}},
		Files:    []recall.RecallFile{{Path: "internal/cart/total.go", Edits: 2, Last: at, Seq: 3}},
		Commands: []recall.RecallCommand{{Command: "go test ./...", Runs: 2, OK: true, Last: at, Seq: 4}},
		Tasks:    recall.RecallTasks{Active: []recall.Task{{Content: "fix", Status: "in_progress"}}},
		Omitted:  recall.RecallOmitted{Files: 3},
	}
}

// TestPreparedRoundTrip: what WritePrepared writes, ReadPrepared gives
// back for the same project, session and snapshot, as a 0600 file.
func TestPreparedRoundTrip(t *testing.T) {
	home := t.TempDir()
	st := openStore(t, home, "p")
	r := sampleRecall()
	if err := WritePrepared(st, "s1", "pre-compact-001", r, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPrepared(st, AuthKey(st), "s1", "pre-compact-001")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("read back %+v, want %+v", got, r)
	}
	if d1, d2 := recall.Digest(got, recall.DigestOptions{Summary: "go test ./..."}), recall.Digest(r, recall.DigestOptions{Summary: "go test ./..."}); d1 != d2 {
		t.Fatalf("digests differ:\n%s\n%s", d1, d2)
	}
	fi, err := os.Stat(filepath.Join(st.Root(), PreparedDir, "pre-compact-001.recall"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("prepared file: %v, %v", fi, err)
	}
	RemovePrepared(st, "pre-compact-001")
	if _, err := ReadPrepared(st, AuthKey(st), "s1", "pre-compact-001"); !errors.Is(err, ErrNotPrepared) {
		t.Fatalf("after RemovePrepared: %v", err)
	}
}

// TestPreparedHostile: a prepared file nobody authenticated for this
// project, session and snapshot is never returned (ErrNotPrepared), and
// nothing is written through a planted link.
func TestPreparedHostile(t *testing.T) {
	home := t.TempDir()
	r := sampleRecall()
	for _, tc := range []struct {
		name string
		// plant damages the store st whose prepared recall of session s1,
		// snapshot pre-compact-001, is at p.
		plant   func(t *testing.T, st *store.Store, p string)
		session string
		id      string
	}{
		{name: "forged tag", plant: func(t *testing.T, st *store.Store, p string) {
			data, _ := os.ReadFile(p)
			data[0] ^= 1
			os.WriteFile(p, data, 0o600)
		}},
		{name: "changed body", plant: func(t *testing.T, st *store.Store, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(data, []byte("cart total"), []byte("cart totaL"), 1), 0o600)
		}},
		{name: "truncated", plant: func(t *testing.T, st *store.Store, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)-5], 0o600)
		}},
		{name: "tag line only", plant: func(t *testing.T, st *store.Store, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:64], 0o600)
		}},
		{name: "oversized", plant: func(t *testing.T, st *store.Store, p string) {
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, bytes.Repeat([]byte(" "), MaxPreparedBytes)...), 0o600)
		}},
		{name: "symbolic link", plant: func(t *testing.T, st *store.Store, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x")
			data, _ := os.ReadFile(p)
			os.WriteFile(elsewhere, data, 0o600)
			os.Remove(p)
			if err := os.Symlink(elsewhere, p); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "linked directory", plant: func(t *testing.T, st *store.Store, p string) {
			elsewhere := t.TempDir()
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(elsewhere, filepath.Base(p)), data, 0o600)
			os.RemoveAll(filepath.Dir(p))
			if err := os.Symlink(elsewhere, filepath.Dir(p)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another project's", plant: func(t *testing.T, st *store.Store, p string) {
			other := openStore(t, home, "other")
			if err := WritePrepared(other, "s1", "pre-compact-001", r, time.Now()); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(filepath.Join(other.Root(), PreparedDir, "pre-compact-001.recall"))
			os.WriteFile(p, data, 0o600)
		}},
		{name: "another user's key", plant: func(t *testing.T, st *store.Store, p string) {
			other, err := store.Open(st.ProjectDir(), store.Options{Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if err := WritePrepared(other, "s1", "pre-compact-001", r, time.Now()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another session's", session: "s2"},
		{name: "another snapshot's", id: "pre-compact-002", plant: func(t *testing.T, st *store.Store, p string) {
			os.Rename(p, filepath.Join(filepath.Dir(p), "pre-compact-002.recall"))
		}},
		{name: "id naming a path", id: "../hook-state"},
		{name: "id with a leading dot", id: ".x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, home, "p")
			if err := WritePrepared(st, "s1", "pre-compact-001", r, time.Now()); err != nil {
				t.Fatal(err)
			}
			if tc.plant != nil {
				tc.plant(t, st, filepath.Join(st.Root(), PreparedDir, "pre-compact-001.recall"))
			}
			session, id := "s1", "pre-compact-001"
			if tc.session != "" {
				session = tc.session
			}
			if tc.id != "" {
				id = tc.id
			}
			if got, err := ReadPrepared(st, AuthKey(st), session, id); !errors.Is(err, ErrNotPrepared) {
				t.Fatalf("read %+v, %v; want ErrNotPrepared", got, err)
			}
		})
	}
	t.Run("no key", func(t *testing.T) {
		st := openStore(t, home, "p")
		if _, err := ReadPrepared(st, nil, "s1", "pre-compact-001"); !errors.Is(err, ErrNotPrepared) {
			t.Fatalf("without a key: %v", err)
		}
	})
	t.Run("no write through a linked directory", func(t *testing.T) {
		st := openStore(t, home, "p")
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(st.Root(), PreparedDir)); err != nil {
			t.Fatal(err)
		}
		if err := WritePrepared(st, "s1", "pre-compact-001", r, time.Now()); !errors.Is(err, store.ErrUnsafePath) {
			t.Fatalf("write through a link: %v", err)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Fatalf("written through the link: %v", ents)
		}
	})
}

// TestSumIsArchiveScheme: the light MAC is archive.AuthKey.Sum's.
func TestSumIsArchiveScheme(t *testing.T) {
	key := bytes.Repeat([]byte{7}, archive.AuthKeySize)
	k, err := archive.NewAuthKey(key)
	if err != nil {
		t.Fatal(err)
	}
	fields := [][]byte{[]byte("/p"), nil, []byte("s1")}
	if got, want := Sum(key, "d", fields...), k.Sum("d", fields...); !bytes.Equal(got, want) {
		t.Fatalf("Sum %x, archive %x", got, want)
	}
}

// TestTrustedSummary: the summary PostCompact keeps is used only under
// its tag, bound to the project and session.
func TestTrustedSummary(t *testing.T) {
	home := t.TempDir()
	st := openStore(t, home, "p")
	key := AuthKey(st)
	ss := &hooknote.SessionState{CompactSummary: "kept summary", CompactSummaryTag: SummaryTag(st, "s1", "kept summary")}
	if got := trustedSummary(key, st.ProjectDir(), "s1", ss); got != "kept summary" {
		t.Errorf("own summary not trusted: %q", got)
	}
	if got := trustedSummary(key, st.ProjectDir(), "another-session", ss); got != "" {
		t.Errorf("another session's summary is trusted: %q", got)
	}
	if got := trustedSummary(key, "/another/project", "s1", ss); got != "" {
		t.Errorf("another project's summary is trusted: %q", got)
	}
	ss.CompactSummary = "changed summary"
	if got := trustedSummary(key, st.ProjectDir(), "s1", ss); got != "" {
		t.Errorf("a changed summary is trusted: %q", got)
	}
}

// TestAgentDigestDir: Startup looks for the assistants' checkpoints where
// package snapshot keeps them.
func TestAgentDigestDir(t *testing.T) {
	if agentDigestDir != snapshot.AgentDigestDir {
		t.Fatalf("agentDigestDir %q, snapshot keeps them in %q", agentDigestDir, snapshot.AgentDigestDir)
	}
}
