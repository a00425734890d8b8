package web

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/store"
)

func TestProjectFind(t *testing.T) {
	tp := newTestProject(t, claudeFixture, hostileFixture, codexFixture)
	es, err := tp.p.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var hist, snap string
	for _, e := range es {
		switch e.Kind {
		case KindHistory:
			hist = e.Name
		case KindSnapshot:
			snap = e.Name
		}
	}
	for _, c := range []struct {
		ref, kind, session string
		err                error
	}{
		{"", KindCurrent, "019c0000-0000-7000-8000-000000000001", nil},
		{"current", KindCurrent, "019c0000-0000-7000-8000-000000000001", nil},
		{"history/" + hist, KindHistory, "7e57b0d1-0000-4000-8000-00000000beef", nil},
		{"7e57b0d1", KindHistory, "7e57b0d1-0000-4000-8000-00000000beef", nil},
		{snap, KindSnapshot, "11111111-2222-4333-8444-555555555555", nil},
		{"11111111-2222", KindSnapshot, "11111111-2222-4333-8444-555555555555", nil},
		{"checkpoint/9", "", "", ErrNotFound},
		{"ffffffff", "", "", ErrNotFound},
	} {
		e, err := tp.p.Find(c.ref)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Find(%q) error %v, want %v", c.ref, err, c.err)
			}
			continue
		}
		if err != nil || e.Kind != c.kind || e.SessionID != c.session {
			t.Errorf("Find(%q) = %s %s %s, %v; want %s of %s", c.ref, e.Kind, e.Name, e.SessionID, err, c.kind, c.session)
			continue
		}
		st, trust, err := tp.p.Load(e)
		if err != nil || st.Meta.SessionID != c.session || trust != index.TrustUser || e.Trust != trust {
			t.Errorf("Load(%s %s): trust %q (listed %q), %v", e.Kind, e.Name, trust, e.Trust, err)
		}
	}
}

func TestKnownProjects(t *testing.T) {
	home := t.TempDir()
	a, b, gone := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "gone")
	fb := filepath.Join(home, ".claude-code", "contexts", "0123456789abcdef")
	if err := os.MkdirAll(fb, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fb, store.ProjectName), []byte(a+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	audit := `{"timestamp":"2026-01-01T00:00:00Z","action":"save","directory":"` + b + `"}
not json
{"timestamp":"2026-01-01T00:00:00Z","action":"save","directory":"` + gone + `"}
{"timestamp":"2026-01-01T00:00:00Z","action":"save","directory":"relative/dir"}
{"timestamp":"2026-01-01T00:00:00Z","action":"save","directory":"` + a + `"}
`
	if err := os.WriteFile(store.AuditPath(home), []byte(audit), 0o600); err != nil {
		t.Fatal(err)
	}
	got := KnownProjects(home)
	want := []string{a, b}
	if a > b {
		want = []string{b, a}
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("KnownProjects = %q, want %q (existing, absolute, deduplicated)", got, want)
	}
}

// TestProjectHostileIndex: index.json is project data; a snapshot entry
// naming a file outside the snapshot directory, or a symlink, is listed
// with an error and never read.
func TestProjectHostileIndex(t *testing.T) {
	tp := newTestProject(t, claudeFixture, codexFixture)
	ixPath := tp.p.Store().IndexPath()
	data, err := os.ReadFile(ixPath)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.ctx")
	if err := os.Link(tp.p.Store().CurrentPath(), outside); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tp.p.Store().SnapshotDir(), "pre-compact-link.ctx")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../../../../" + outside, outside, "pre-compact-link.ctx"} {
		var ix map[string]any
		if err := json.Unmarshal(data, &ix); err != nil {
			t.Fatal(err)
		}
		ix["snapshots"].([]any)[0].(map[string]any)["file"] = file
		b, _ := json.Marshal(ix)
		if err := os.WriteFile(ixPath, b, 0o600); err != nil {
			t.Fatal(err)
		}
		es, err := tp.p.Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Kind != KindSnapshot {
				continue
			}
			if e.Error == "" || e.Path() != "" {
				t.Errorf("file %q: entry %+v, want an error and no path", file, e)
			}
			if _, _, err := tp.p.Load(e); err == nil {
				t.Errorf("file %q: Load read it", file)
			}
		}
	}
}
