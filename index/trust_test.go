package index_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/transcript"
)

// encodeWith saves the session at src as an archive tagged with k (nil:
// untagged, as another program or `remote pull` writes them).
func encodeWith(t testing.TB, src string, k *archive.AuthKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, src, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Auth: k}); err != nil {
		t.Fatalf("save %s: %v", src, err)
	}
	return buf.Bytes()
}

var otherKey = func() *archive.AuthKey {
	k, err := archive.NewAuthKey(bytes.Repeat([]byte{8}, archive.AuthKeySize))
	if err != nil {
		panic(err)
	}
	return k
}()

// trustEnv puts one archive of each trust in e's stores and the pull
// area: this user's own, an untagged one planted in project A's store, an
// untagged one `remote pull` wrote into A's store (noted by NotePulled),
// one of another user's in B's store, and one in the pull area. It
// returns the planted archive's path.
func trustEnv(t *testing.T, e env) string {
	t.Helper()
	put(t, filepath.Join(e.storeA, "current.ctx"), encodeWith(t, fixture, testKey))
	planted := filepath.Join(e.storeA, "checkpoints", "cp-999.ctx")
	put(t, planted, encodeWith(t, "testdata/second.jsonl", nil))
	pulled := filepath.Join(e.storeA, "history", "session-pulled.ctx")
	put(t, pulled, encodeWith(t, "testdata/second.jsonl", nil))
	if err := index.NotePulled(e.home, mustCanon(t, e.projA), pulled); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(e.storeB, "history", "session-1.ctx"), encodeWith(t, fixture, otherKey))
	put(t, filepath.Join(index.PullArea(e.home), "team", "github.com_acme_app", "history-main-0123abcd.ctx"), encodeWith(t, fixture, nil))
	return planted
}

// TestTrust: each archive's trust is recorded; search serves only this
// user's and pulled team content unless asked, and counts what it
// withholds; show refuses a withheld reference; status and verify report
// them. A pull's note vouches for the bytes it wrote: the planted archive,
// of the same session beside it, stays unauthenticated.
func TestTrust(t *testing.T) {
	e := newEnv(t)
	trustEnv(t, e)
	x := open(t, e.home)
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA, e.projB}}); err != nil {
		t.Fatal(err)
	}
	s, err := x.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{index.TrustUser: 1, index.TrustTeam: 2, index.TrustNoTag: 1, index.TrustOtherKey: 1}
	if len(s.Trust) != len(want) {
		t.Errorf("trust counts %v, want %v", s.Trust, want)
	}
	for k, n := range want {
		if s.Trust[k] != n {
			t.Errorf("trust counts %v, want %v", s.Trust, want)
		}
	}
	res, err := x.Search(ctx, index.Query{Text: "pkg/calc", Project: mustCanon(t, e.projB)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Withheld[index.TrustOtherKey] == 0 || len(res.Withheld) != 1 {
		t.Errorf("another user's archive: hits %+v, withheld %v", res.Hits, res.Withheld)
	}
	if w := res.Withheld.Say("hits"); !strings.Contains(w, "another user's key") {
		t.Errorf("withheld note %q", w)
	}
	res, err = x.Search(ctx, index.Query{Text: "pkg/calc", Project: mustCanon(t, e.projB), Unauthenticated: true})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Trust != index.TrustOtherKey || res.Withheld != nil {
		t.Fatalf("asked for unauthenticated hits: %+v %v", res, err)
	}
	ref := res.Hits[0].Ref
	if c, err := x.Show(ctx, ref, 1, 1); !errors.Is(err, index.ErrUnauthenticated) || len(c.Rows) != 0 || c.Trust != index.TrustOtherKey {
		t.Errorf("show of a withheld reference: %d rows, trust %q, %v", len(c.Rows), c.Trust, err)
	}
	if c, err := x.ShowAny(ctx, ref, 1, 1); err != nil || len(c.Rows) == 0 {
		t.Errorf("show any: %+v %v", c, err)
	}
	res, err = x.Search(ctx, index.Query{Text: "frobnicate_widget"})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("pulled team content: %+v %v", res, err)
	}
	for _, h := range res.Hits {
		if h.Trust != index.TrustTeam {
			t.Errorf("pulled hit %s of trust %q", h.Archive, h.Trust)
		}
	}
	r, err := x.Verify(ctx)
	if err != nil || !r.OK() || len(r.Unauthenticated) != 2 || !strings.Contains(r.Unauthenticated[0], "cp-999.ctx: no authentication tag") ||
		!strings.Contains(r.Unauthenticated[1], "session-1.ctx: tagged with another user's key") {
		t.Errorf("verify: %+v %v", r, err)
	}
}

// TestTrustWithoutNote: an untagged archive in a project's store that no
// pull noted (planted) is withheld, with its reason.
func TestTrustWithoutNote(t *testing.T) {
	e := newEnv(t)
	put(t, filepath.Join(e.storeA, "current.ctx"), encodeWith(t, fixture, testKey))
	put(t, filepath.Join(e.storeA, "checkpoints", "cp-999.ctx"), encodeWith(t, "testdata/second.jsonl", nil))
	x := open(t, e.home)
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
		t.Fatal(err)
	}
	res, err := x.Search(ctx, index.Query{Text: "frobnicate_widget"})
	if err != nil || len(res.Hits) != 0 || res.Withheld[index.TrustNoTag] == 0 {
		t.Errorf("planted archive: %+v %v", res, err)
	}
	ss, w, err := x.Sessions(ctx, mustCanon(t, e.projA))
	if err != nil || len(ss) != 1 || ss[0].Session != "11111111-2222-4333-8444-555555555555" || w[index.TrustNoTag] != 1 {
		t.Errorf("sessions %+v, withheld %v, %v", ss, w, err)
	}
}

// TestTrustKeyChange: when the user's key is not the one the index was
// built with, every archive's trust is checked again.
func TestTrustKeyChange(t *testing.T) {
	e := newEnv(t)
	put(t, filepath.Join(e.storeA, "current.ctx"), encodeWith(t, fixture, testKey))
	ctx := context.Background()
	for _, tc := range []struct {
		key  *archive.AuthKey
		want string
	}{{testKey, index.TrustUser}, {otherKey, index.TrustOtherKey}, {testKey, index.TrustUser}} {
		x, err := index.Open(index.Options{Home: e.home, Key: tc.key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
			t.Fatal(err)
		}
		res, err := x.Search(ctx, index.Query{Text: "pkg/calc", Unauthenticated: true})
		x.Close()
		if err != nil || len(res.Hits) == 0 || res.Hits[0].Trust != tc.want {
			t.Fatalf("key %s: %+v %v, want trust %s", tc.key.ID(), res, err, tc.want)
		}
	}
}

// TestTrustRebuildEqualsIncremental: with archives of every trust, indexed
// as they appear (the pull's note taken by a later update than the one
// that first saw its archive), a rebuild gives the same index.
func TestTrustRebuildEqualsIncremental(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	x := open(t, e.home)
	pulled := filepath.Join(e.storeA, "history", "session-pulled.ctx")
	put(t, pulled, encodeWith(t, "testdata/second.jsonl", nil))
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}}); err != nil {
		t.Fatal(err)
	}
	trustEnv(t, e) // rewrites the pulled archive and notes it
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projB}}); err != nil {
		t.Fatal(err)
	}
	inc := dump(t, x, e)
	if _, err := x.Rebuild(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	reb := dump(t, x, e)
	if strings.Join(inc, "\n") != strings.Join(reb, "\n") {
		t.Errorf("rebuild differs from incremental:\nincremental:\n%s\nrebuild:\n%s", strings.Join(inc, "\n"), strings.Join(reb, "\n"))
	}
	for _, want := range []string{" team ", " other-key ", " user ", "no-tag:1"} {
		if !strings.Contains(strings.Join(inc, "\n"), want) {
			t.Errorf("no hit of trust%s in the dump:\n%s", want, strings.Join(inc, "\n"))
		}
	}
}

// TestSegmentsStayFew: archives indexed one Update at a time leave the
// full-text index with at most 8 segments (searches seek every term in
// each), and a rebuild leaves one.
func TestSegmentsStayFew(t *testing.T) {
	e := newEnv(t)
	x := open(t, e.home)
	ctx := context.Background()
	src, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	segments := func() int {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+x.Path()+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(DISTINCT segid) FROM fts_idx`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	most := 0
	for i := range 24 {
		tr := filepath.Join(t.TempDir(), "s.jsonl")
		put(t, tr, bytes.ReplaceAll(src, []byte("pkg/calc"), []byte(fmt.Sprintf("pkg/calc%03d", i))))
		put(t, filepath.Join(e.storeA, "history", fmt.Sprintf("session-%03d.ctx", i)), encodeWith(t, tr, testKey))
		if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA}, Only: true}); err != nil {
			t.Fatal(err)
		}
		most = max(most, segments())
	}
	if most > 8 || most < 2 {
		t.Errorf("at most %d segments over 24 updates, want 2 to 8", most)
	}
	if _, err := x.Rebuild(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Errorf("%d segments after a rebuild, want 1", n)
	}
}

// TestTrustNow: the trust of an open archive file, decided now, is the
// one Update records for the same bytes; a file replaced after it was
// indexed is judged on its new bytes (a pull's note vouches for the bytes
// it wrote, not for what replaces them).
func TestTrustNow(t *testing.T) {
	e := newEnv(t)
	planted := trustEnv(t, e)
	x := open(t, e.home)
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{e.projA, e.projB}}); err != nil {
		t.Fatal(err)
	}
	current := filepath.Join(e.storeA, "current.ctx")
	pulled := filepath.Join(e.storeA, "history", "session-pulled.ctx")
	area := filepath.Join(index.PullArea(e.home), "team", "github.com_acme_app", "history-main-0123abcd.ctx")
	other := filepath.Join(e.storeB, "history", "session-1.ctx")
	trustNow := func(path string) string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		a, err := archive.Open(f, fi.Size(), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := x.TrustNow(ctx, f, a)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, c := range []struct {
		name, path, want string
		replace          []byte // the file's new bytes, after indexing
	}{
		{"own", current, index.TrustUser, nil},
		{"planted", planted, index.TrustNoTag, nil},
		{"pulled into the store", pulled, index.TrustTeam, nil},
		{"pull area", area, index.TrustTeam, nil},
		{"another user's", other, index.TrustOtherKey, nil},
		{"own, replaced", current, index.TrustOtherKey, encodeWith(t, fixture, otherKey)},
		{"pulled, replaced", pulled, index.TrustNoTag, encodeWith(t, fixture, nil)},
	} {
		if c.replace != nil {
			put(t, c.path, c.replace)
		}
		if got := trustNow(c.path); got != c.want {
			t.Errorf("%s: TrustNow %q, want %q", c.name, got, c.want)
		}
	}
}
