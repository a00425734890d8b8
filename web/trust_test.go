package web

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// encodeWith is the archive of transcript tr saved with authentication
// key k (nil: untagged, as another program or a planted file is).
func encodeWith(t *testing.T, tr string, k *archive.AuthKey) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &b, tr, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Auth: k}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestServerUnauthenticated: saved sessions a cloned repository planted in
// the store (untagged, or tagged with another user's key) are listed with
// their trust and a visible mark, and their pages render behind a mark
// that says why; an archive replaced after it was listed is judged on the
// bytes the page renders. This user's own entries carry no mark.
func TestServerUnauthenticated(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000})
	other, err := archive.NewAuthKey(bytes.Repeat([]byte{7}, archive.AuthKeySize))
	if err != nil {
		t.Fatal(err)
	}
	root := f.p.Store().Root()
	planted := map[string][]byte{
		filepath.Join(root, store.NamedName, "planted.ctx"):     encodeWith(t, claudeFixture, nil),
		filepath.Join(root, "history", "session-other-key.ctx"): encodeWith(t, claudeFixture, other),
	}
	for path, b := range planted {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	es, err := f.p.Entries()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Entry{}
	for _, e := range es {
		byName[e.Kind+"/"+e.Name] = e
	}
	project := f.do("GET", "/p/"+f.p.ID+"/", "cookie").Body.String()
	for _, c := range []struct {
		ref, trust, why string
	}{
		{"named/planted", index.TrustNoTag, "no authentication tag"},
		{"history/session-other-key", index.TrustOtherKey, "tagged with another user"},
		{"current/current", index.TrustUser, ""},
	} {
		e, ok := byName[c.ref]
		if !ok {
			t.Fatalf("%s is not listed: %v", c.ref, byName)
		}
		if e.Trust != c.trust {
			t.Errorf("%s: trust %q, want %q", c.ref, e.Trust, c.trust)
		}
		page := f.do("GET", ViewURL(f.p.ID, e.Kind, e.Name), "cookie")
		body := page.Body.String()
		if page.Code != 200 || !strings.Contains(body, "ben10-data") {
			t.Errorf("%s: page %d", c.ref, page.Code)
			continue
		}
		if marked := strings.Contains(body, `id="untrusted"`); marked != (c.why != "") || !strings.Contains(body, c.why) {
			t.Errorf("%s: the page's mark (%v) does not say %q", c.ref, marked, c.why)
		}
		if c.why != "" && !strings.Contains(project, "not authenticated: "+c.why) {
			t.Errorf("%s: the project page does not mark it (%q)", c.ref, c.why)
		}
	}
	if n := strings.Count(project, "not authenticated: "); n != len(planted) {
		t.Errorf("the project page marks %d entries, want %d", n, len(planted))
	}
	home := f.do("GET", "/", "cookie").Body.String()
	if !strings.Contains(home, "2 not authenticated as yours") {
		t.Errorf("the home page does not count the unauthenticated entries")
	}

	// current.ctx replaced by another user's archive after it was listed:
	// the page is judged on what it renders, not on the listing.
	cur := byName["current/current"]
	if err := os.WriteFile(cur.Path(), encodeWith(t, claudeFixture, other), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, trust, err := f.p.Load(cur); err != nil || trust != index.TrustOtherKey {
		t.Errorf("Load of the replaced current.ctx: trust %q, %v", trust, err)
	}
	if body := f.do("GET", ViewURL(f.p.ID, cur.Kind, cur.Name), "cookie").Body.String(); !strings.Contains(body, `id="untrusted"`) {
		t.Errorf("the replaced current.ctx's page carries no mark")
	}
}
