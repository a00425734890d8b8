package index_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/internal/indexnotes"
)

// TestNoteArchive: a save that notes its archive gets it indexed by the
// next Update, even an Update scoped to another project (the background
// worker's), and the project is remembered afterwards.
func TestNoteArchive(t *testing.T) {
	e := newEnv(t)
	x := open(t, e.home)
	ctx := context.Background()
	cur := filepath.Join(e.storeA, "current.ctx")
	put(t, cur, encode(t, fixture, nil))

	// Not noted, not named: the index does not know project A.
	st, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projB}, Only: true})
	if err != nil || st.Added != 0 {
		t.Fatalf("update before the note: %+v %v", st, err)
	}
	if err := indexnotes.Append(e.home, e.projA, cur); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(indexnotes.Path(e.home))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("notes file: %v %v", fi, err)
	}
	st, err = x.Update(ctx, index.UpdateOptions{Projects: []string{e.projB}, Only: true})
	if err != nil || st.Added != 1 {
		t.Fatalf("update after the note: %+v %v", st, err)
	}
	if left, _ := filepath.Glob(indexnotes.Path(e.home) + "*"); len(left) != 0 {
		t.Errorf("notes left after an Update that indexed them: %v", left)
	}
	hits, err := hitsOf(x.Search(ctx, index.Query{Text: "pkg/calc"}))
	if err != nil || len(hits) == 0 || hits[0].Archive != cur {
		t.Fatalf("search after the note: %+v %v", hits, err)
	}
	// Remembered: a full update with no note and no project still scans A.
	if err := os.Remove(cur); err != nil {
		t.Fatal(err)
	}
	st, err = x.Update(ctx, index.UpdateOptions{})
	if err != nil || st.Removed != 1 {
		t.Fatalf("full update after the archive left: %+v %v", st, err)
	}
}

// TestNoteArchiveHostile: the notes file is never written through a link,
// torn or foreign lines are ignored, a project gone since its note is
// dropped without failing the Update, and bad arguments are errors.
func TestNoteArchiveHostile(t *testing.T) {
	e := newEnv(t)
	if err := indexnotes.Append(e.home, "", "x.ctx"); err == nil {
		t.Error("a note without a project was accepted")
	}
	notes := indexnotes.Path(e.home)
	if err := os.MkdirAll(filepath.Dir(notes), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, notes); err != nil {
		t.Fatal(err)
	}
	if err := indexnotes.Append(e.home, e.projA, "x.ctx"); err == nil {
		t.Error("a note was written through a symbolic link")
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the link's target was created: %v", err)
	}
	os.Remove(notes)

	cur := filepath.Join(e.storeA, "current.ctx")
	put(t, cur, encode(t, fixture, nil))
	gone := filepath.Join(t.TempDir(), "gone")
	lines := []string{
		`{"project":"` + gone + `","path":"x.ctx","t":1}`,
		`not json`,
		`{"project":"relative/dir","t":1}`,
		`{"project":"` + e.projA + `","path":"` + cur + `","t":1}`,
		`{"project":"` + e.projA + `","pa`, // torn: a writer died mid-line
	}
	put(t, notes, []byte(strings.Join(lines, "\n")))
	x := open(t, e.home)
	st, err := x.Update(context.Background(), index.UpdateOptions{Only: true})
	if err != nil || st.Added != 1 || st.Projects != 1 {
		t.Fatalf("update over hostile notes: %+v %v", st, err)
	}
}

// TestPullArea: archives pulled from a team remote without a local
// checkout are indexed, marked with their source, counted by Status, and
// leave the index when deleted.
func TestPullArea(t *testing.T) {
	e := newEnv(t)
	pulled := filepath.Join(index.PullArea(e.home), "team", "github.com_acme_app", "history-main-0123abcd.ctx")
	put(t, pulled, encodeWith(t, fixture, nil)) // untagged, as pulls write them
	// A link in the pull area is not followed.
	if err := os.Symlink(filepath.Dir(pulled), filepath.Join(index.PullArea(e.home), "team", "linked")); err != nil {
		t.Fatal(err)
	}
	x := open(t, e.home)
	ctx := context.Background()
	st, err := x.Update(ctx, index.UpdateOptions{})
	if err != nil || st.Added != 1 {
		t.Fatalf("update: %+v %v", st, err)
	}
	hits, err := hitsOf(x.Search(ctx, index.Query{Text: "pkg/calc"}))
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %+v %v", hits, err)
	}
	if h := hits[0]; h.Source != "remote:team/github.com_acme_app" || h.Archive != pulled {
		t.Errorf("hit source %q archive %q", h.Source, h.Archive)
	}
	c, err := x.Show(ctx, hits[0].Ref, 0, 0)
	if err != nil || c.Source != hits[0].Source {
		t.Errorf("show: %+v %v", c, err)
	}
	s, err := x.Status(ctx)
	if err != nil || s.Pulled != 1 || s.Indexed != 1 {
		t.Errorf("status: %+v %v", s, err)
	}
	// An Update scoped to a project leaves the pull area alone; a full one
	// finds the deletion.
	os.Remove(pulled)
	if st, err = x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}, Only: true}); err != nil || st.Removed != 0 {
		t.Fatalf("scoped update: %+v %v", st, err)
	}
	if st, err = x.Update(ctx, index.UpdateOptions{}); err != nil || st.Removed != 1 {
		t.Fatalf("full update: %+v %v", st, err)
	}
}
