package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
)

// CookieName is the cookie the login link sets.
const CookieName = "ben10_token"

// Default rate limits: requests per second and burst, for all clients
// together (the server is for one user), and failed authentications per
// minute.
const (
	DefaultRate       = 20
	DefaultBurst      = 60
	DefaultAuthFailed = 10
)

// MaxLimit bounds the limit parameter of the API.
const MaxLimit = 1000

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Token is required on every request (see the package documentation).
	Token string
	// Projects are the projects served.
	Projects []*Project
	// Index, when set, answers /search and /api/search (see Server's
	// search); without it, the projects' snapshots are searched.
	Index *index.Index
	// Addr is the address the server listens on (host:port, port
	// resolved). Requests whose Host header is not localhost,
	// 127.0.0.1 or [::1] with its port, or Addr itself, are refused.
	Addr string
	// Rate and Burst limit requests (0: DefaultRate, DefaultBurst);
	// AuthFailed limits failed authentications per minute (0:
	// DefaultAuthFailed).
	Rate, Burst, AuthFailed int
	// Log receives one line per request: method, path (never the query,
	// never the token), status. Nil logs nothing.
	Log *log.Logger
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// Server is the read-only web UI and JSON API. Create it with NewServer.
type Server struct {
	opts  ServerOptions
	hosts map[string]bool

	limiter *rate.Limiter // requests, for all clients together
	fails   *rate.Limiter // failed authentications

	byID    map[string]*Project
	ordered []*Project
	// views bounds the session pages rendered at once (each loads a
	// whole archive).
	views chan struct{}
}

// MaxConcurrentViews is how many session pages a Server renders at once;
// more wait their turn.
const MaxConcurrentViews = 2

// NewServer returns a Server; opts.Token must be set.
func NewServer(opts ServerOptions) (*Server, error) {
	if len(opts.Token) < 16 {
		return nil, errors.New("web: server: no token (see LoadOrCreateToken)")
	}
	if opts.Rate <= 0 {
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultBurst
	}
	if opts.AuthFailed <= 0 {
		opts.AuthFailed = DefaultAuthFailed
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	host, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("web: server address %q: %w", opts.Addr, err)
	}
	s := &Server{opts: opts, hosts: map[string]bool{}, byID: map[string]*Project{},
		limiter: rate.NewLimiter(rate.Limit(opts.Rate), opts.Burst), views: make(chan struct{}, MaxConcurrentViews),
		fails: rate.NewLimiter(rate.Every(time.Minute/time.Duration(opts.AuthFailed)), opts.AuthFailed)}
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		s.hosts[h+":"+port] = true
	}
	s.hosts[strings.ToLower(net.JoinHostPort(host, port))] = true
	for _, p := range opts.Projects {
		if _, dup := s.byID[p.ID]; !dup {
			s.byID[p.ID] = p
			s.ordered = append(s.ordered, p)
		}
	}
	return s, nil
}

// LoginURL is the link that exchanges the token for a cookie, for base
// ("http://127.0.0.1:8080").
func (s *Server) LoginURL(base string) string {
	return base + "/login?token=" + url.QueryEscape(s.opts.Token)
}

// ViewURL is the server path of a saved session's view page.
func ViewURL(project, kind, name string) string {
	return "/p/" + url.PathEscape(project) + "/view/" + url.PathEscape(kind) + "/" + url.PathEscape(name)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw}
	defer func() {
		if s.opts.Log != nil {
			// The path only: the query of /login holds the token.
			s.opts.Log.Printf("%s %s %d", r.Method, r.URL.Path, w.status)
		}
	}()
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.fail(w, r, http.StatusMethodNotAllowed, "read-only server: only GET and HEAD")
		return
	}
	if !s.hosts[strings.ToLower(r.Host)] {
		s.fail(w, r, http.StatusMisdirectedRequest, "unexpected Host header")
		return
	}
	if !s.limiter.AllowN(s.opts.Now(), 1) {
		h.Set("Retry-After", "1")
		s.fail(w, r, http.StatusTooManyRequests, "too many requests")
		return
	}
	p := r.URL.Path
	if strings.Contains(r.URL.RawPath, "%2f") || strings.Contains(r.URL.RawPath, "%2F") ||
		strings.ContainsAny(p, "\\\x00") || (p != "/" && path.Clean(p) != strings.TrimSuffix(p, "/")) {
		s.fail(w, r, http.StatusBadRequest, "bad path")
		return
	}
	if p == "/login" {
		s.login(w, r)
		return
	}
	if !s.authorized(r) {
		h.Set("WWW-Authenticate", `Bearer realm="ben10"`)
		s.unauthorized(w, r, "authentication required: open the login link `ben10 serve` printed, or send Authorization: Bearer <token>")
		return
	}
	s.route(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/":
		s.home(w, r)
	case r.URL.Path == "/search":
		s.searchPage(w, r)
	case len(parts) == 2 && parts[0] == "api" && parts[1] == "projects":
		s.apiProjects(w, r)
	case len(parts) == 2 && parts[0] == "api" && parts[1] == "checkpoints":
		s.apiCheckpoints(w, r)
	case len(parts) == 3 && parts[0] == "api" && parts[1] == "checkpoints":
		s.apiSession(w, r, parts[2])
	case len(parts) == 2 && parts[0] == "api" && parts[1] == "snapshots":
		s.apiSnapshots(w, r)
	case len(parts) == 2 && parts[0] == "api" && parts[1] == "search":
		s.apiSearch(w, r)
	case len(parts) == 2 && parts[0] == "p":
		s.projectPage(w, r, parts[1])
	case len(parts) == 5 && parts[0] == "p" && parts[2] == "view":
		s.viewPage(w, r, parts[1], parts[3], parts[4])
	default:
		s.fail(w, r, http.StatusNotFound, "no such page")
	}
}

// unauthorized records a failed authentication and answers 401 with msg,
// or 429 when there were too many (more than AuthFailed at once, or
// AuthFailed a minute over time).
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, msg string) {
	if !s.fails.AllowN(s.opts.Now(), 1) {
		w.Header().Del("WWW-Authenticate")
		w.Header().Set("Retry-After", "60")
		s.fail(w, r, http.StatusTooManyRequests, "too many failed authentications")
		return
	}
	s.fail(w, r, http.StatusUnauthorized, msg)
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}

func (s *Server) authorized(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, tok, ok := strings.Cut(a, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && s.tokenOK(strings.TrimSpace(tok))
	}
	c, err := r.Cookie(CookieName)
	return err == nil && s.tokenOK(c.Value)
}

// login exchanges ?token= for the cookie and redirects to the home page,
// so the token leaves the address bar and the history entry.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.tokenOK(r.URL.Query().Get("token")) {
		s.unauthorized(w, r, "wrong or missing token")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s.opts.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func wantsJSON(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if wantsJSON(r) || r.URL.Path == "/login" && code != http.StatusUnauthorized {
		writeJSON(w, r, code, map[string]any{"error": msg, "status": code})
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, "%d %s: %s\n", code, http.StatusText(code), msg)
	}
}

func writeJSON(w http.ResponseWriter, r *http.Request, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\": %q, \"status\": 500}\n", err.Error())
	}
	writeBody(w, r, code, "application/json; charset=utf-8", buf.Bytes())
}

// writeBody answers with body (none to a HEAD request) of type ctype.
func writeBody(w http.ResponseWriter, r *http.Request, code int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// projects is the project parameter's projects: all when it is absent,
// else the one whose ID or directory it is.
func (s *Server) projects(r *http.Request) ([]*Project, error) {
	ref := r.URL.Query().Get("project")
	if ref == "" {
		return s.ordered, nil
	}
	if p, ok := s.byID[ref]; ok {
		return []*Project{p}, nil
	}
	for _, p := range s.ordered {
		if p.Dir == ref {
			return []*Project{p}, nil
		}
	}
	return nil, fmt.Errorf("%w: no project %q", ErrNotFound, ref)
}

func limitParam(r *http.Request, def int) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > MaxLimit {
		return 0, fmt.Errorf("limit %q: want a number from 1 to %d", v, MaxLimit)
	}
	return n, nil
}

// ProjectInfo is one project in /api/projects.
type ProjectInfo struct {
	ID        string `json:"id"`
	Dir       string `json:"dir"`
	Store     string `json:"store"`
	Fallback  bool   `json:"fallback_store"`
	Saved     int    `json:"saved"`
	Snapshots int    `json:"snapshots"`
	// Unauthenticated counts the saved sessions and snapshots this
	// user's key does not authenticate (Entry.Trust).
	Unauthenticated int    `json:"unauthenticated,omitempty"`
	URL             string `json:"url"`
	Error           string `json:"error,omitempty"`
}

func (s *Server) projectInfos() []ProjectInfo {
	out := make([]ProjectInfo, 0, len(s.ordered))
	for _, p := range s.ordered {
		pi := ProjectInfo{ID: p.ID, Dir: p.Dir, Store: p.st.Root(), Fallback: p.st.IsFallback(), URL: "/p/" + p.ID + "/"}
		es, err := p.Entries()
		if err != nil {
			pi.Error = err.Error()
		}
		for _, e := range es {
			if e.Kind == KindSnapshot {
				pi.Snapshots++
			} else {
				pi.Saved++
			}
			if untrusted(e.Trust) != "" {
				pi.Unauthenticated++
			}
		}
		out = append(out, pi)
	}
	return out
}

func (s *Server) apiProjects(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]any{"projects": s.projectInfos()})
}

func (s *Server) entries(w http.ResponseWriter, r *http.Request, keep func(Entry) bool) ([]Entry, bool) {
	ps, err := s.projects(r)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err.Error())
		return nil, false
	}
	out := []Entry{}
	for _, p := range ps {
		es, err := p.Entries()
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err.Error())
			return nil, false
		}
		for _, e := range es {
			if keep(e) {
				out = append(out, e)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SavedAt.After(out[j].SavedAt) })
	return out, true
}

func (s *Server) apiCheckpoints(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r, 50)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	es, ok := s.entries(w, r, func(e Entry) bool { return e.Kind != KindSnapshot })
	if !ok {
		return
	}
	if len(es) > limit {
		es = es[:limit]
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"checkpoints": withURLs(es)})
}

// EntryJSON is an Entry with its view page.
type EntryJSON struct {
	Entry
	ViewURL string `json:"view_url"`
}

func withURLs(es []Entry) []EntryJSON {
	out := make([]EntryJSON, len(es))
	for i, e := range es {
		out[i] = EntryJSON{Entry: e, ViewURL: ViewURL(e.Project, e.Kind, e.Name)}
	}
	return out
}

func validSession(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return s != "." && s != ".."
}

func (s *Server) apiSession(w http.ResponseWriter, r *http.Request, session string) {
	session, err := url.PathUnescape(session)
	if err != nil || !validSession(session) {
		s.fail(w, r, http.StatusBadRequest, "bad session id")
		return
	}
	es, ok := s.entries(w, r, func(e Entry) bool { return e.SessionID == session })
	if !ok {
		return
	}
	if len(es) == 0 {
		s.fail(w, r, http.StatusNotFound, fmt.Sprintf("no saved context of session %s", session))
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"session_id": session, "checkpoints": withURLs(es)})
}

// SnapshotJSON is one compaction snapshot in /api/snapshots.
type SnapshotJSON struct {
	Project  string            `json:"project"`
	Name     string            `json:"name"`
	ViewURL  string            `json:"view_url"`
	Trust    string            `json:"trust,omitempty"` // as in Entry
	Snapshot snapshot.Snapshot `json:"snapshot"`
}

func (s *Server) apiSnapshots(w http.ResponseWriter, r *http.Request) {
	limit, err := limitParam(r, MaxLimit)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err.Error())
		return
	}
	ps, err := s.projects(r)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, err.Error())
		return
	}
	out := []SnapshotJSON{}
	for _, p := range ps {
		snaps, err := p.Snapshots()
		if err == nil {
			var es []Entry
			es, err = p.Entries()
			trust := map[string]string{}
			for _, e := range es {
				if e.Kind == KindSnapshot {
					trust[e.Name] = e.Trust
				}
			}
			for _, sn := range snaps {
				name := snapshot.ShortID(sn.ID)
				out = append(out, SnapshotJSON{Project: p.ID, Name: name, ViewURL: ViewURL(p.ID, KindSnapshot, name), Trust: trust[name], Snapshot: sn})
			}
		}
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err.Error())
			return
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"snapshots": out})
}

// runSearch answers the q, project and limit parameters: the query
// text, the hits (never nil) and the status of an error.
func (s *Server) runSearch(r *http.Request) (string, []Hit, int, error) {
	text := strings.TrimSpace(r.URL.Query().Get("q"))
	if text == "" {
		return text, []Hit{}, http.StatusBadRequest, errors.New("missing q")
	}
	if len(text) > 1000 {
		return text, []Hit{}, http.StatusBadRequest, errors.New("q is longer than 1000 bytes")
	}
	limit, err := limitParam(r, 100)
	if err != nil {
		return text, []Hit{}, http.StatusBadRequest, err
	}
	ps, err := s.projects(r)
	if err != nil {
		return text, []Hit{}, http.StatusNotFound, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	hits, err := search(ctx, s.opts.Index, s.opts.Log, ps, text, limit)
	if hits == nil {
		hits = []Hit{}
	}
	if err != nil {
		return text, hits, http.StatusInternalServerError, err
	}
	return text, hits, http.StatusOK, nil
}

func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	q, hits, code, err := s.runSearch(r)
	if err != nil {
		s.fail(w, r, code, "search: "+err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"query": q, "hits": hits})
}

func (s *Server) viewPage(w http.ResponseWriter, r *http.Request, id, kind, name string) {
	p, ok := s.byID[id]
	if !ok {
		s.fail(w, r, http.StatusNotFound, "no such project")
		return
	}
	name, err := url.PathUnescape(name)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, "bad name")
		return
	}
	// The entry is looked up in the listing: no path is built from the
	// request.
	e, err := p.Find(kind + "/" + name)
	if errors.Is(err, ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "no such saved session")
		return
	} else if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	select {
	case s.views <- struct{}{}:
		defer func() { <-s.views }()
	case <-r.Context().Done():
		s.fail(w, r, http.StatusServiceUnavailable, "request ended while waiting")
		return
	}
	// An archive this user's key does not authenticate is rendered
	// behind a mark that says so (ViewOptions.Unauthenticated), decided on
	// the archive rendered.
	st, trust, err := p.Load(e)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	var cmds []string
	if e.Resume != "" {
		cmds = append(cmds, e.Resume)
	}
	cmds = append(cmds, e.Restore)
	s.writeHTML(w, r, ContentSecurityPolicy, func(out io.Writer, nonce string) error {
		return Render(out, st, ViewOptions{Nonce: nonce, Commands: cmds, BackURL: "/p/" + p.ID + "/",
			Source: fmt.Sprintf("%s %s of %s", e.Kind, e.Name, p.Dir), Unauthenticated: untrusted(trust)})
	})
}

// writeHTML answers with the page render writes, given a fresh nonce,
// under the Content-Security-Policy csp makes of that nonce.
func (s *Server) writeHTML(w http.ResponseWriter, r *http.Request, csp func(nonce string) string, render func(out io.Writer, nonce string) error) {
	var buf bytes.Buffer
	nonce, err := NewNonce()
	if err == nil {
		err = render(&buf, nonce)
	}
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Security-Policy", csp(nonce))
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}

type uiPage struct {
	Title, Nonce, Query string
	CSS                 template.CSS
	JS                  template.JS
	Projects            []ProjectInfo
	Project             *ProjectInfo
	Entries             []EntryJSON
	Hits                []Hit
	Error               string
}

func (s *Server) renderUI(w http.ResponseWriter, r *http.Request, pg uiPage) {
	s.writeHTML(w, r, uiCSP, func(out io.Writer, nonce string) error {
		pg.Nonce, pg.CSS, pg.JS = nonce, template.CSS(viewCSS), template.JS(uiJS)
		return templates.ExecuteTemplate(out, "ui.html", pg)
	})
}

// uiCSP is the policy of the server's own pages: the view policy, with
// the search form allowed to submit to the server.
func uiCSP(nonce string) string {
	return strings.Replace(ContentSecurityPolicy(nonce), "form-action 'none'", "form-action 'self'", 1)
}

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	s.renderUI(w, r, uiPage{Title: "Ben10 — projects", Projects: s.projectInfos()})
}

func (s *Server) projectPage(w http.ResponseWriter, r *http.Request, id string) {
	p, ok := s.byID[id]
	if !ok {
		s.fail(w, r, http.StatusNotFound, "no such project")
		return
	}
	es, err := p.Entries()
	pg := uiPage{Title: "Ben10 — " + p.Dir, Entries: withURLs(es)}
	if err != nil {
		pg.Error = err.Error()
	}
	for _, pi := range s.projectInfos() {
		if pi.ID == id {
			pg.Project = &pi
		}
	}
	s.renderUI(w, r, pg)
}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	q, hits, _, err := s.runSearch(r)
	pg := uiPage{Title: "Ben10 — search", Query: q, Hits: hits}
	if err != nil {
		pg.Error = err.Error()
	}
	s.renderUI(w, r, pg)
}
