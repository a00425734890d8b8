package web

import (
	"context"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/index"
)

// Search through the recall index finds text in every archive of the
// served projects (current, history and snapshots alike) and links each
// hit to the page that shows it; projects not served are left out.
func TestIndexSearcher(t *testing.T) {
	tp := newTestProject(t, claudeFixture, codexFixture, claudeFixture)
	x, err := index.Open(index.Options{Home: tp.home})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx := context.Background()
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{tp.dir}}); err != nil {
		t.Fatal(err)
	}
	s := IndexSearcher{Index: x, Projects: []*Project{tp.p}}
	hits, err := s.Search(ctx, Query{Text: "pkg/calc", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, h := range hits {
		if h.Project != tp.p.ID || h.Source != "index" || !strings.HasPrefix(h.ViewURL, "/p/"+tp.p.ID+"/view/") || h.Snippet == "" {
			t.Errorf("hit %+v", h)
		}
		kinds[h.Kind] = true
	}
	if len(hits) == 0 || !kinds[KindSnapshot] || !kinds[KindCurrent] {
		t.Fatalf("hits over %v: %+v", kinds, hits)
	}
	// The view page of a hit is one the project lists.
	if _, err := tp.p.Find(hits[0].Kind + "/" + hits[0].Name); err != nil {
		t.Errorf("a hit's entry %s/%s: %v", hits[0].Kind, hits[0].Name, err)
	}
	// A project that is not served gives nothing.
	if h, err := s.Search(ctx, Query{Text: "pkg/calc", Projects: []string{"other"}}); err != nil || len(h) != 0 {
		t.Errorf("search limited to an unserved project: %v %+v", err, h)
	}
	// A query the index refuses is an error, not the fallback's answer.
	s.Fallback = StoreSearcher{Projects: []*Project{tp.p}}
	if _, err := s.Search(ctx, Query{Text: ""}); err == nil {
		t.Error("empty query accepted")
	}
}
