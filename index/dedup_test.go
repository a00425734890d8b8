package index_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/transcript"
)

// TestSharedTexts: the same session kept in several archives stores its
// texts once; removing one archive keeps the texts the others hold, and
// removing the last leaves nothing behind (Verify finds no orphan).
func TestSharedTexts(t *testing.T) {
	e := newEnv(t)
	plain := encode(t, fixture, nil)
	paths := []string{
		filepath.Join(e.storeA, "current.ctx"),
		filepath.Join(e.storeA, "history", "session-20260101T100000Z.ctx"),
	}
	for _, p := range paths {
		put(t, p, plain)
	}
	x := open(t, e.home)
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
		t.Fatal(err)
	}
	one, err := x.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if one.Texts == 0 || one.Texts*2 > one.Rows {
		t.Errorf("two copies of one archive: %d rows, %d texts (want each text once)", one.Rows, one.Texts)
	}
	for i, p := range paths {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Update(ctx, index.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		hits, err := x.Search(ctx, index.Query{Text: "pkg/calc"})
		if err != nil && i == 0 {
			t.Fatal(err)
		}
		if last := i == len(paths)-1; (len(hits) == 0) != last {
			t.Errorf("after removing %d of %d archives: %d hits", i+1, len(paths), len(hits))
		}
		r, err := x.Verify(ctx)
		if err != nil || !r.OK() {
			t.Errorf("verify after removing %s: %+v %v", p, r, err)
		}
	}
	s, err := x.Status(ctx)
	if err != nil || s.Texts != 0 || s.Rows != 0 {
		t.Errorf("everything removed: %+v %v", s, err)
	}
}

// TestSchemaVersions: an index of an older schema is emptied in place and
// filled by the next Update; one of a newer schema (a newer Ben10's) is
// moved aside, never read.
func TestSchemaVersions(t *testing.T) {
	for _, tc := range []struct {
		version   int
		movedAway bool
	}{{1, false}, {99, true}} {
		e := newEnv(t)
		put(t, filepath.Join(e.storeA, "current.ctx"), encode(t, fixture, nil))
		x := open(t, e.home)
		path := x.Path()
		x.Close()
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version=%d", tc.version)); err != nil {
			t.Fatal(err)
		}
		db.Close()
		x, err = index.Open(index.Options{Home: e.home})
		if err != nil {
			t.Fatalf("version %d: %v", tc.version, err)
		}
		if (x.Rebuilt != "") != tc.movedAway {
			t.Errorf("version %d: moved aside to %q", tc.version, x.Rebuilt)
		}
		st, err := x.Update(context.Background(), index.UpdateOptions{Projects: []string{e.projA}})
		if err != nil || st.Added != 1 {
			t.Errorf("version %d: update after open: %+v %v", tc.version, st, err)
		}
		x.Close()
	}
}

// TestReindexKeepsSharedTexts: an archive whose bytes changed (current.ctx
// saved again) is indexed again; the texts both versions hold stay, and
// nothing is left behind.
func TestReindexKeepsSharedTexts(t *testing.T) {
	e := newEnv(t)
	cur := filepath.Join(e.storeA, "current.ctx")
	put(t, cur, encode(t, fixture, nil))
	x := open(t, e.home)
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
		t.Fatal(err)
	}
	before, err := x.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Same session, other bytes (another codec).
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, fixture, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecNone}); err != nil {
		t.Fatal(err)
	}
	put(t, cur, buf.Bytes())
	st, err := x.Update(ctx, index.UpdateOptions{})
	if err != nil || st.Added != 1 {
		t.Fatalf("update after the save: %+v %v", st, err)
	}
	after, err := x.Status(ctx)
	if err != nil || after.Texts != before.Texts || after.Rows != before.Rows {
		t.Errorf("texts %d → %d, rows %d → %d (%v)", before.Texts, after.Texts, before.Rows, after.Rows, err)
	}
	if r, err := x.Verify(ctx); err != nil || !r.OK() {
		t.Errorf("verify: %+v %v", r, err)
	}
}
