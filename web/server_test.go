package web

import (
	"bytes"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/index"
)

const testToken = "test-token-0123456789abcdefghijklmnop"

type serverFixture struct {
	*testProject
	srv *Server
	log *bytes.Buffer
	now time.Time
}

func newServerFixture(t *testing.T, opts ServerOptions) *serverFixture {
	t.Helper()
	tp := newTestProject(t, claudeFixture, hostileFixture, claudeFixture)
	f := &serverFixture{testProject: tp, log: &bytes.Buffer{}, now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	opts.Token = testToken
	opts.Projects = []*Project{tp.p}
	opts.Addr = "127.0.0.1:8710"
	opts.Log = log.New(f.log, "", 0)
	opts.Now = func() time.Time { return f.now }
	srv, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	return f
}

// do sends one request; auth is "bearer", "cookie" or "".
func (f *serverFixture) do(method, target, auth string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "127.0.0.1:8710"
	switch auth {
	case "bearer":
		r.Header.Set("Authorization", "Bearer "+testToken)
	case "cookie":
		r.AddCookie(&http.Cookie{Name: CookieName, Value: testToken})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			r.Host = hdr[i+1]
		} else {
			r.Header.Set(hdr[i], hdr[i+1])
		}
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	return w
}

func TestServerAuth(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000, AuthFailed: 1000})
	id := f.p.ID
	for _, c := range []struct {
		name, method, target, auth string
		hdr                        []string
		want                       int
	}{
		{"no token, page", "GET", "/", "", nil, 401},
		{"no token, api", "GET", "/api/checkpoints", "", nil, 401},
		{"no token, view", "GET", "/p/" + id + "/view/current/current", "", nil, 401},
		{"wrong bearer", "GET", "/api/checkpoints", "", []string{"Authorization", "Bearer nope"}, 401},
		{"basic scheme", "GET", "/api/checkpoints", "", []string{"Authorization", "Basic " + testToken}, 401},
		{"token in query is not auth", "GET", "/api/checkpoints?token=" + testToken, "", nil, 401},
		{"bearer", "GET", "/api/checkpoints", "bearer", nil, 200},
		{"cookie", "GET", "/api/checkpoints", "cookie", nil, 200},
		{"home", "GET", "/", "cookie", nil, 200},
		{"project page", "GET", "/p/" + id + "/", "cookie", nil, 200},
		{"view page", "GET", "/p/" + id + "/view/current/current", "cookie", nil, 200},
		{"HEAD", "HEAD", "/api/projects", "bearer", nil, 200},
		{"POST refused", "POST", "/api/checkpoints", "bearer", nil, 405},
		{"DELETE refused", "DELETE", "/p/" + id + "/", "bearer", nil, 405},
		{"PUT refused before auth", "PUT", "/", "", nil, 405},
		{"foreign Host (DNS rebinding)", "GET", "/api/checkpoints", "bearer", []string{"Host", "evil.example:8710"}, 421},
		{"wrong port", "GET", "/api/checkpoints", "bearer", []string{"Host", "127.0.0.1:9999"}, 421},
		{"localhost", "GET", "/api/checkpoints", "bearer", []string{"Host", "localhost:8710"}, 200},
		{"[::1]", "GET", "/api/checkpoints", "bearer", []string{"Host", "[::1]:8710"}, 200},
		{"unknown route", "GET", "/api/nothing", "bearer", nil, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := f.do(c.method, c.target, c.auth, c.hdr...)
			if w.Code != c.want {
				t.Errorf("%s %s: status %d, want %d (%s)", c.method, c.target, w.Code, c.want, strings.TrimSpace(w.Body.String()))
			}
			if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
			if w.Code == 200 && c.method == "GET" && strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") &&
				!strings.Contains(w.Header().Get("Content-Security-Policy"), "script-src 'nonce-") {
				t.Errorf("HTML page without a nonce Content-Security-Policy header")
			}
		})
	}
}

func TestServerLoginLink(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000})
	w := f.do("GET", "/login?token="+testToken, "")
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" {
		t.Fatalf("login: %d to %q, want 303 to /", w.Code, w.Header().Get("Location"))
	}
	cs := w.Result().Cookies()
	if len(cs) != 1 || cs[0].Name != CookieName || cs[0].Value != testToken || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("login cookie = %+v, want one HttpOnly SameSite=Strict %s", cs, CookieName)
	}
	if w := f.do("GET", "/login?token=wrong", ""); w.Code != 401 || len(w.Result().Cookies()) != 0 {
		t.Errorf("wrong login token: %d with %d cookies, want 401 and none", w.Code, len(w.Result().Cookies()))
	}
	if strings.Contains(f.log.String(), testToken) {
		t.Errorf("the token reached the request log:\n%s", f.log.String())
	}
	if !strings.Contains(f.log.String(), "GET /login 303") {
		t.Errorf("request log lacks the login line:\n%s", f.log.String())
	}
}

func TestServerTraversal(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000})
	id := f.p.ID
	for _, target := range []string{
		"/p/" + id + "/view/history/..%2F..%2F..%2Fetc%2Fpasswd",
		"/p/" + id + "/view/current/../../../etc/passwd",
		"/p/../../etc/passwd",
		"/p/" + id + "/view/..%2Fcurrent.ctx/x",
		"/p/" + id + "/view/named/..",
		"/p/" + id + "/view/snapshot/%2e%2e",
		"/p/" + id + "/view/checkpoint/1%00",
		"/p/" + id + "//view/current/current",
		"/p/" + id + "/view/history/%2Fetc%2Fpasswd",
		"/api/checkpoints/..%2F..%2Fetc",
		"/api/checkpoints/../../etc/passwd",
		"/p/..%5C..%5Cetc/",
	} {
		w := f.do("GET", target, "bearer")
		if w.Code == 200 || w.Code/100 == 3 || w.Code/100 == 5 {
			t.Errorf("GET %s: status %d, want a 4xx refusal", target, w.Code)
		}
		if strings.Contains(w.Body.String(), "root:") {
			t.Errorf("GET %s served a system file", target)
		}
	}
}

func TestServerRateLimit(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 2, Burst: 5, AuthFailed: 3})
	codes := []int{}
	for range 7 {
		codes = append(codes, f.do("GET", "/api/projects", "bearer").Code)
	}
	want := []int{200, 200, 200, 200, 200, 429, 429}
	if !equalInts(codes, want) {
		t.Errorf("burst of 7 at one instant: %v, want %v", codes, want)
	}
	f.now = f.now.Add(time.Second) // refills Rate tokens
	if c := f.do("GET", "/api/projects", "bearer").Code; c != 200 {
		t.Errorf("after a second: %d, want 200", c)
	}
	f.now = f.now.Add(time.Hour)
	codes = codes[:0]
	for range 5 {
		codes = append(codes, f.do("GET", "/api/projects", "", "Authorization", "Bearer guess").Code)
	}
	if want := []int{401, 401, 401, 429, 429}; !equalInts(codes, want) {
		t.Errorf("failed authentications: %v, want %v", codes, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON", ct)
	}
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
	return v
}

// apiEntry is the documented shape of a checkpoint (docs/API.md).
type apiEntry struct {
	Project   string    `json:"project"`
	Kind      string    `json:"kind"`
	Name      string    `json:"name"`
	SessionID string    `json:"session_id"`
	Assistant string    `json:"assistant"`
	Title     string    `json:"title"`
	Model     string    `json:"model"`
	SavedAt   time.Time `json:"saved_at"`
	SizeBytes int64     `json:"size_bytes"`
	Messages  int       `json:"messages"`
	Tools     int       `json:"tool_executions"`
	Trigger   string    `json:"trigger"`
	Restore   string    `json:"restore_command"`
	Resume    string    `json:"resume_command"`
	Trust     string    `json:"trust"`
	Error     string    `json:"error"`
	ViewURL   string    `json:"view_url"`
}

func TestServerAPI(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000})
	id := f.p.ID
	const claudeSession = "11111111-2222-4333-8444-555555555555"

	cps := decode[struct {
		Checkpoints []apiEntry `json:"checkpoints"`
	}](t, f.do("GET", "/api/checkpoints?project="+id, "bearer"))
	// hostile, then claude: current + one history file.
	if len(cps.Checkpoints) != 2 {
		t.Fatalf("%d checkpoints, want 2: %+v", len(cps.Checkpoints), cps.Checkpoints)
	}
	cur := cps.Checkpoints[0]
	if cur.Kind != KindCurrent || cur.SessionID != claudeSession || cur.Assistant != "claude" || cur.Messages != 19 ||
		cur.ViewURL != "/p/"+id+"/view/current/current" || !strings.Contains(cur.Resume, "claude --resume "+claudeSession) ||
		!strings.HasSuffix(cur.Restore, "ben10 context restore") || cur.Trust != index.TrustUser {
		t.Errorf("newest checkpoint = %+v", cur)
	}
	one := decode[struct {
		Checkpoints []apiEntry `json:"checkpoints"`
	}](t, f.do("GET", "/api/checkpoints?project="+id+"&limit=1", "bearer"))
	if len(one.Checkpoints) != 1 {
		t.Errorf("limit=1 gave %d", len(one.Checkpoints))
	}
	byDir := decode[struct {
		Checkpoints []apiEntry `json:"checkpoints"`
	}](t, f.do("GET", "/api/checkpoints?project="+f.p.Dir, "bearer"))
	if len(byDir.Checkpoints) != 2 {
		t.Errorf("project given by directory: %d checkpoints, want 2", len(byDir.Checkpoints))
	}

	sess := decode[struct {
		SessionID   string     `json:"session_id"`
		Checkpoints []apiEntry `json:"checkpoints"`
	}](t, f.do("GET", "/api/checkpoints/"+claudeSession, "bearer"))
	kinds := map[string]int{}
	for _, e := range sess.Checkpoints {
		kinds[e.Kind]++
		if e.SessionID != claudeSession {
			t.Errorf("session answer holds another session: %+v", e)
		}
	}
	if sess.SessionID != claudeSession || kinds[KindCurrent] != 1 || kinds[KindHistory] != 0 || kinds[KindSnapshot] != 1 {
		t.Errorf("session %s: kinds %v", claudeSession, kinds)
	}

	snaps := decode[struct {
		Snapshots []struct {
			Project  string          `json:"project"`
			Name     string          `json:"name"`
			ViewURL  string          `json:"view_url"`
			Trust    string          `json:"trust"`
			Snapshot json.RawMessage `json:"snapshot"`
		} `json:"snapshots"`
	}](t, f.do("GET", "/api/snapshots?project="+id, "bearer"))
	if len(snaps.Snapshots) != 1 || !strings.HasPrefix(snaps.Snapshots[0].ViewURL, "/p/"+id+"/view/snapshot/") || snaps.Snapshots[0].Trust != index.TrustUser ||
		!bytes.Contains(snaps.Snapshots[0].Snapshot, []byte(`"session_id": "`+claudeSession)) {
		t.Errorf("snapshots = %+v", snaps)
	}
	if w := f.do("GET", snaps.Snapshots[0].ViewURL, "bearer"); w.Code != 200 || !strings.Contains(w.Body.String(), "ben10-data") {
		t.Errorf("the snapshot's view_url: %d", w.Code)
	}

	hits := decode[struct {
		Query string `json:"query"`
		Hits  []Hit  `json:"hits"`
	}](t, f.do("GET", "/api/search?q=pkg/calc&limit=2", "bearer"))
	if hits.Query != "pkg/calc" || len(hits.Hits) != 2 || hits.Hits[0].Kind != KindSnapshot || hits.Hits[0].Project != id || hits.Hits[0].Snippet == "" {
		t.Errorf("search = %+v", hits)
	}
	none := decode[struct {
		Query string `json:"query"`
		Hits  []Hit  `json:"hits"`
	}](t, f.do("GET", "/api/search?q=no-such-text-anywhere", "bearer"))
	if none.Hits == nil || len(none.Hits) != 0 {
		t.Errorf("no match must be an empty list: %+v", none)
	}

	for _, c := range []struct {
		target string
		want   int
	}{
		{"/api/checkpoints?project=nope", 404},
		{"/api/checkpoints?limit=0", 400},
		{"/api/checkpoints?limit=x", 400},
		{"/api/checkpoints/not-a-session", 404},
		{"/api/checkpoints/bad%20id", 400},
		{"/api/search", 400},
		{"/api/snapshots?project=nope", 404},
	} {
		w := f.do("GET", c.target, "bearer")
		e := decode[struct {
			Error  string `json:"error"`
			Status int    `json:"status"`
		}](t, w)
		if w.Code != c.want || e.Status != c.want || e.Error == "" {
			t.Errorf("GET %s: %d %+v, want %d with an error message", c.target, w.Code, e, c.want)
		}
	}
}

func TestServerPages(t *testing.T) {
	f := newServerFixture(t, ServerOptions{Rate: 1000, Burst: 1000})
	home := f.do("GET", "/", "cookie").Body.String()
	if !strings.Contains(home, `href="/p/`+f.p.ID+`/"`) {
		t.Errorf("home page does not link the project")
	}
	proj := f.do("GET", "/p/"+f.p.ID+"/", "cookie").Body.String()
	for _, want := range []string{"/view/current/current", "claude --resume 11111111-2222-4333-8444-555555555555", "ben10 context compaction restore"} {
		if !strings.Contains(proj, want) {
			t.Errorf("project page lacks %q", want)
		}
	}
	search := f.do("GET", "/search?q=%3Cscript%3E", "cookie").Body.String()
	if strings.Count(strings.ToLower(search), "<script") != 1 {
		t.Errorf("search page reflects markup from the query or a hit")
	}
}
