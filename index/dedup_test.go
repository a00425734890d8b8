package index_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/index"
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
