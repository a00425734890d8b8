package web

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/index"
)

// searchHits runs /api/search on srv and decodes its hits.
func searchHits(t *testing.T, srv *Server, target string) ([]Hit, int) {
	t.Helper()
	r := httptest.NewRequest("GET", target, nil)
	r.Host = "127.0.0.1:8710"
	r.Header.Set("Authorization", "Bearer "+testToken)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != 200 {
		return nil, w.Code
	}
	return decode[struct {
		Query string `json:"query"`
		Hits  []Hit  `json:"hits"`
	}](t, w).Hits, w.Code
}

func newSearchServer(t *testing.T, x *index.Index, ps ...*Project) *Server {
	t.Helper()
	srv, err := NewServer(ServerOptions{Token: testToken, Projects: ps, Addr: "127.0.0.1:8710", Index: x, Rate: 1000, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// Search through the recall index finds text in every archive of the
// served projects (current, history and snapshots alike) and links each
// hit to the page that shows it; projects not served are left out.
func TestIndexSearch(t *testing.T) {
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
	srv := newSearchServer(t, x, tp.p)
	hits, code := searchHits(t, srv, "/api/search?q=pkg/calc&limit=20")
	kinds := map[string]bool{}
	for _, h := range hits {
		if h.Project != tp.p.ID || h.Source != "index" || !strings.HasPrefix(h.ViewURL, "/p/"+tp.p.ID+"/view/") || h.Snippet == "" {
			t.Errorf("hit %+v", h)
		}
		kinds[h.Kind] = true
	}
	if code != 200 || len(hits) == 0 || !kinds[KindSnapshot] || !kinds[KindCurrent] {
		t.Fatalf("%d: hits over %v: %+v", code, kinds, hits)
	}
	// The view page of a hit is one the project lists.
	if _, err := tp.p.Find(hits[0].Kind + "/" + hits[0].Name); err != nil {
		t.Errorf("a hit's entry %s/%s: %v", hits[0].Kind, hits[0].Name, err)
	}
	// A query the index refuses is an error, not the snapshot search's
	// answer.
	if _, code := searchHits(t, srv, "/api/search?q=ab"); code != 500 {
		t.Errorf("a query of two characters: status %d", code)
	}
	// A project that is not served gives nothing: the index holds it,
	// the server does not list it.
	other := newTestProject(t, "", codexFixture)
	if _, err := x.Update(ctx, index.UpdateOptions{Projects: []string{other.dir}}); err != nil {
		t.Fatal(err)
	}
	for _, h := range func() []Hit { h, _ := searchHits(t, srv, "/api/search?q=pkg/calc&limit=100"); return h }() {
		if h.Project != tp.p.ID {
			t.Errorf("hit from a project not served: %+v", h)
		}
	}
}

// Without the index, the snapshots are searched, and only those this
// user's key authenticates are served: the same project's snapshots,
// served to another user (another home, another key), find nothing, as
// the index and the MCP server withhold them.
func TestSnapshotSearchTrust(t *testing.T) {
	tp := newTestProject(t, claudeFixture, claudeFixture)
	hits, code := searchHits(t, newSearchServer(t, nil, tp.p), "/api/search?q=pkg/calc")
	if code != 200 || len(hits) == 0 || hits[0].Source != "snapshots" || hits[0].Kind != KindSnapshot {
		t.Fatalf("owner's search: %d %+v", code, hits)
	}
	p, err := OpenProject(tp.dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if e, err := p.Find("current"); err != nil || e.Trust != index.TrustOtherKey {
		t.Fatalf("the other user does not see the store as another key's: %v", err)
	}
	if hits, code := searchHits(t, newSearchServer(t, nil, p), "/api/search?q=pkg/calc"); code != 200 || len(hits) != 0 {
		t.Errorf("another user's search served unauthenticated snapshots: %d %+v", code, hits)
	}
}
