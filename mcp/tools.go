package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/index"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SearchArgs are the search tool's arguments.
type SearchArgs struct {
	Query string   `json:"query" jsonschema:"words, paths, identifiers or flags to find; every term must occur (as a substring, any case); quote a phrase; terms need 3+ characters"`
	Scope string   `json:"scope,omitempty" jsonschema:"project (default): this project only; all: every project"`
	Limit int      `json:"limit,omitempty" jsonschema:"number of hits, 1 to 50 (default 10)"`
	Kinds []string `json:"kinds,omitempty" jsonschema:"only these kinds: user, assistant, command, output, path, error, todo, summary"`
}

// ShowArgs are the show tool's arguments.
type ShowArgs struct {
	Ref    string `json:"ref" jsonschema:"a reference from search (HASH:POSITION)"`
	Before int    `json:"before,omitempty" jsonschema:"rows before the hit, 0 to 20 (default 3)"`
	After  int    `json:"after,omitempty" jsonschema:"rows after the hit, 0 to 20 (default 3)"`
}

// RecallFileArgs are the recall_file tool's arguments.
type RecallFileArgs struct {
	Path string `json:"path" jsonschema:"the file, relative to the project or absolute"`
}

// ListArgs are the arguments of list_sessions and list_snapshots.
type ListArgs struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many, newest first, 1 to 100 (default 20)"`
}

// DigestArgs are the session_digest tool's arguments.
type DigestArgs struct {
	Text    string `json:"text" jsonschema:"the checkpoint: goal, state, decisions, next steps (at most 20000 characters)"`
	Session string `json:"session,omitempty" jsonschema:"the current session id, when known"`
}

func (s *server) register(srv *sdk.Server) {
	sdk.AddTool(srv, readTool("search", "Search everything Ben10 captured from past and current sessions (also what compaction summarized away): "+
		"user and assistant messages, shell commands, tool outputs, errors, paths touched, todos, compaction summaries. "+
		"Returns ranked hits, each with a reference for show. Only this user's own archives and the team archives they pulled are searched; "+
		"hits from any other archive (such as one that came with a cloned repository) are withheld and counted."), s.search)
	sdk.AddTool(srv, readTool("show", "Show the messages, commands and outputs around a search hit (its reference), in transcript order."), s.show)
	sdk.AddTool(srv, readTool("recall_file", "What the session did to a file before the last compaction: reads, edits with their old and new text, writes, "+
		"and the file's last content when Ben10 captured it. Reads this project's newest snapshot, else its current context."), s.recallFile)
	sdk.AddTool(srv, readTool("list_sessions", "List this project's captured sessions, newest first: id, assistant, time, size, title and first request."), s.listSessions)
	sdk.AddTool(srv, readTool("list_snapshots", "List this project's pre-compaction snapshots, newest first: id, time, size, session, tokens before compaction and first request."), s.listSnapshots)
	sdk.AddTool(srv, &sdk.Tool{
		Name: "session_digest",
		Description: "Store a checkpoint you write yourself (goal, state, decisions, next steps) in this project's Ben10 store, " +
			"redacted of secrets and authenticated as this user's, so that it survives compaction and the next session of this project is offered it at its start.",
	}, s.sessionDigest)
}

// readTool is a tool that only reads (ReadOnlyHint).
func readTool(name, description string) *sdk.Tool {
	return &sdk.Tool{Name: name, Description: description, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}
}

func (s *server) search(ctx context.Context, req *sdk.CallToolRequest, a SearchArgs) (*sdk.CallToolResult, any, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, nil, badArgs("query is empty")
	}
	q := index.Query{Text: a.Query, Limit: a.Limit, Kinds: a.Kinds}
	if q.Limit == 0 {
		q.Limit = 10
	}
	if q.Limit < 1 || q.Limit > 50 {
		return nil, nil, badArgs("limit %d is not between 1 and 50", a.Limit)
	}
	switch a.Scope {
	case "", "project":
		p, err := s.project(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		q.Project = p
	case "all":
	default:
		return nil, nil, badArgs("scope %q is neither project nor all", a.Scope)
	}
	x, err := s.index()
	if err != nil {
		return nil, nil, err
	}
	s.catchUp(ctx, x, q.Project)
	res, err := x.Search(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	hits := res.Hits
	withheld := withheldNote(res.Withheld, "hits")
	if len(hits) == 0 {
		where := "this project (" + q.Project + ")"
		if q.Project == "" {
			where = "any project"
		}
		return text(withheld + fmt.Sprintf("No match for %q in %s.", a.Query, where)), nil, nil
	}
	var b strings.Builder
	b.WriteString(withheld)
	fmt.Fprintf(&b, "%d hits for %q (show REF for the context):\n", len(hits), a.Query)
	for i, h := range hits {
		when := "-"
		if !h.Time.IsZero() {
			when = h.Time.Format("2006-01-02 15:04")
		}
		fmt.Fprintf(&b, "\n%d. ref %s  %s  %s %s  session %s", i+1, h.Ref, when, h.Assistant, h.Kind, h.Session)
		if q.Project == "" {
			fmt.Fprintf(&b, "  project %s", h.Project)
		}
		if h.Trust == index.TrustTeam {
			b.WriteString("  (team content, pulled from a remote)")
		}
		fmt.Fprintf(&b, "\n   %s\n", oneLine(h.Snippet, 400))
	}
	return text(b.String()), nil, nil
}

func (s *server) show(ctx context.Context, _ *sdk.CallToolRequest, a ShowArgs) (*sdk.CallToolResult, any, error) {
	if a.Before == 0 && a.After == 0 {
		a.Before, a.After = 3, 3
	}
	if a.Before < 0 || a.Before > 20 || a.After < 0 || a.After > 20 {
		return nil, nil, badArgs("before and after must be between 0 and 20")
	}
	x, err := s.index()
	if err != nil {
		return nil, nil, err
	}
	c, err := x.Show(ctx, a.Ref, a.Before, a.After)
	if errors.Is(err, index.ErrUnauthenticated) {
		// Withheld: say why, never what it holds.
		return text(fmt.Sprintf("Withheld: %s is from an archive not authenticated as this user's (%s).", a.Ref, index.TrustReason(c.Trust))), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Project %s, session %s (%s)", c.Project, c.Session, c.Assistant)
	if c.Title != "" {
		fmt.Fprintf(&b, ": %s", c.Title)
	}
	b.WriteString("\n")
	// Share the budget: the hit in full as far as it fits, the others cut.
	per := MaxResult / (len(c.Rows) + 1)
	for _, r := range c.Rows {
		mark := ""
		n := per
		if r.Hit {
			mark, n = " (the hit)", per*2
		}
		when := ""
		if !r.Time.IsZero() {
			when = " " + r.Time.Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(&b, "\n--- %s %s%s%s [ref %s]\n%s\n", r.Role, r.Kind, when, mark, r.Ref, Clip(r.Text, n))
	}
	return text(b.String()), nil, nil
}

func (s *server) listSessions(ctx context.Context, req *sdk.CallToolRequest, a ListArgs) (*sdk.CallToolResult, any, error) {
	p, limit, err := s.listArgs(ctx, req, a)
	if err != nil {
		return nil, nil, err
	}
	x, err := s.index()
	if err != nil {
		return nil, nil, err
	}
	ss, w, err := x.Sessions(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	withheld := withheldNote(w, "sessions")
	if len(ss) == 0 {
		return text(withheld + "No captured session of " + p + " in the index (run `ben10 index update` if one was saved)."), nil, nil
	}
	var b strings.Builder
	b.WriteString(withheld)
	fmt.Fprintf(&b, "Sessions of %s (%d, newest first):\n", p, len(ss))
	for i, se := range ss {
		if i == limit {
			fmt.Fprintf(&b, "\n… and %d older\n", len(ss)-limit)
			break
		}
		fmt.Fprintf(&b, "\n- %s (%s) %s → %s, %s, %d archives", se.Session, se.Assistant, stamp(se.First), stamp(se.Last), store.FormatBytes(se.Size), se.Archives)
		if se.Title != "" {
			fmt.Fprintf(&b, "\n  title: %s", oneLine(se.Title, 120))
		}
		if se.Request != "" {
			fmt.Fprintf(&b, "\n  first request: %s", oneLine(se.Request, 200))
		}
		b.WriteString("\n")
	}
	return text(b.String()), nil, nil
}

func (s *server) listSnapshots(ctx context.Context, req *sdk.CallToolRequest, a ListArgs) (*sdk.CallToolResult, any, error) {
	p, limit, err := s.listArgs(ctx, req, a)
	if err != nil {
		return nil, nil, err
	}
	m, err := s.snapshots(p)
	if err != nil {
		return nil, nil, err
	}
	ix, err := m.Index()
	if err != nil {
		return nil, nil, err
	}
	if len(ix.Snapshots) == 0 {
		return text("No pre-compaction snapshot of " + p + "."), nil, nil
	}
	requests := map[string]string{}
	if x, err := s.index(); err == nil {
		if ss, _, err := x.Sessions(ctx, p, index.ArchiveSnapshot); err == nil {
			for _, se := range ss {
				requests[se.Session] = se.Request
			}
		}
	}
	var list strings.Builder
	w := index.Withheld{}
	shown := 0
	for i := len(ix.Snapshots) - 1; i >= 0; i-- {
		sn := ix.Snapshots[i]
		if shown == limit {
			fmt.Fprintf(&list, "\n… and %d older\n", i+1)
			break
		}
		// The snapshot listing is the project's (untrusted) file: each
		// snapshot is listed only when this user's key authenticates it.
		if t := s.trust(m.Path(sn)); !index.Trusted(t) {
			w[t]++
			continue
		}
		shown++
		fmt.Fprintf(&list, "\n- %s  %s  %s  session %s  %s, %d tokens before compaction (%s)", sn.ID, stamp(sn.CreatedAt), sn.Harness, sn.SessionID, store.FormatBytes(sn.CompressedBytes), sn.PreCompaction.TokenCount, sn.Trigger)
		if sn.Pinned {
			list.WriteString(", pinned")
		}
		if r := requests[sn.SessionID]; r != "" {
			fmt.Fprintf(&list, "\n  first request: %s", oneLine(r, 200))
		}
		list.WriteString("\n")
	}
	return text(fmt.Sprintf("%sPre-compaction snapshots of %s (%d, newest first):\n%s", withheldNote(w, "snapshots"), p, shown, list.String())), nil, nil
}

// snapshots is the snapshot manager of project p's store, opened
// read-only.
func (s *server) snapshots(p string) (*snapshot.Manager, error) {
	st, err := store.Open(p, store.Options{Home: s.opts.Home, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return snapshot.NewManager(st, nil), nil
}

// trust is the trust of the archive at path under this user's key: only
// index.TrustUser is served by the tools that read a store directly
// (list_snapshots, recall_file); "" when it cannot be opened.
func (s *server) trust(path string) string {
	return index.TrustOfFile(path, archive.OpenOptions{}, s.authKey())
}

// authKey is this user's authentication key, read once (nil when it
// cannot be read: nothing is then served from the stores).
func (s *server) authKey() *archive.AuthKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil {
		s.key, _ = snapshot.UserAuthKey(s.opts.Home)
	}
	return s.key
}

// withheldNote is the line a result starts with when w withheld some
// (what: "hits", "sessions", "snapshots"), else "".
func withheldNote(w index.Withheld, what string) string {
	if s := w.Say(what); s != "" {
		return "Note: " + s + ". Their content is not shown.\n\n"
	}
	return ""
}

// listArgs are the project and limit of a listing (list_sessions,
// list_snapshots).
func (s *server) listArgs(ctx context.Context, req *sdk.CallToolRequest, a ListArgs) (string, int, error) {
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > 100 {
		return "", 0, badArgs("limit %d is not between 1 and 100", a.Limit)
	}
	p, err := s.project(ctx, req)
	return p, a.Limit, err
}

func (s *server) recallFile(ctx context.Context, req *sdk.CallToolRequest, a RecallFileArgs) (*sdk.CallToolResult, any, error) {
	want := strings.TrimSpace(a.Path)
	if want == "" {
		return nil, nil, badArgs("path is empty")
	}
	p, err := s.project(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if filepath.IsAbs(want) {
		if rel, err := filepath.Rel(p, want); err == nil && !strings.HasPrefix(rel, "..") {
			want = rel
		}
	}
	want = filepath.ToSlash(filepath.Clean(want))
	m, err := s.snapshots(p)
	if err != nil {
		return nil, nil, err
	}
	var cands []string
	if ix, err := m.Index(); err == nil {
		for i := len(ix.Snapshots) - 1; i >= 0 && len(cands) < 3; i-- {
			cands = append(cands, m.Path(ix.Snapshots[i]))
		}
	}
	cands = append(cands, m.Store().CurrentPath())
	var problems []string
	w := index.Withheld{}
	for _, path := range cands {
		out, found, err := fileStory(path, want, s.authKey(), w)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if found {
			return text(out), nil, nil
		}
	}
	msg := withheldNote(w, "archives") + fmt.Sprintf("No record of %s in this project's newest snapshots or current context authenticated as this user's.", want)
	if len(problems) > 0 {
		msg += "\nUnreadable: " + strings.Join(problems, "; ")
	}
	return text(msg), nil, nil
}

// samePath tells whether a recorded path names the file asked for.
func samePath(recorded, want string) bool {
	r := filepath.ToSlash(filepath.Clean(recorded))
	return r == want || strings.HasSuffix(r, "/"+want) || strings.HasSuffix(want, "/"+r)
}

// fileStory renders what the archive at path holds about file want. An
// archive key does not authenticate is counted in w and not read.
func fileStory(path, want string, key *archive.AuthKey, w index.Withheld) (string, bool, error) {
	a, err := archive.OpenFile(path, archive.OpenOptions{})
	if err != nil {
		if errors.Is(err, ctxfmt.ErrKeyRequired) {
			return "", false, fmt.Errorf("%s is encrypted (not served without its key)", filepath.Base(path))
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	defer a.Close()
	if t := index.TrustOf(a, key, false); t != index.TrustUser {
		w[t]++
		return "", false, nil
	}
	tools, err := a.Tools()
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	var events []archive.ToolExec
	for _, t := range tools {
		for _, f := range t.RelatedFiles {
			if samePath(f, want) {
				events = append(events, t)
				break
			}
		}
	}
	var content *archive.FileContent
	if fcs, err := a.FileContents(); err == nil {
		for i := range fcs {
			if samePath(fcs[i].Path, want) {
				content = &fcs[i]
			}
		}
	}
	if len(events) == 0 && content == nil {
		return "", false, nil
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].Timestamp.Before(events[j].Timestamp) })
	m := a.Meta()
	var b strings.Builder
	fmt.Fprintf(&b, "%s in session %s (%s, archive %s): %d tool calls\n", want, m.SessionID, m.Harness, filepath.Base(path), len(events))
	budget := MaxResult - 1500
	if content != nil {
		budget -= min(len(content.Data), 3000)
	}
	per := budget / max(len(events), 1)
	per = max(per, 200)
	for _, t := range events {
		status := "ok"
		if !t.Success {
			status = "failed"
		}
		in := t.Input
		if t.Command != "" {
			in = t.Command
		}
		fmt.Fprintf(&b, "\n--- %s %s (%s)\n%s\n", stamp(t.Timestamp), t.Name, status, Clip(in, per))
		if !t.Success && t.Output != "" {
			fmt.Fprintf(&b, "output: %s\n", Clip(t.Output, 300))
		}
	}
	if content != nil {
		fmt.Fprintf(&b, "\n--- last captured content (%d bytes)\n%s\n", len(content.Data), Clip(string(content.Data), 3000))
	}
	return b.String(), true, nil
}

func (s *server) sessionDigest(ctx context.Context, req *sdk.CallToolRequest, a DigestArgs) (*sdk.CallToolResult, any, error) {
	body := strings.TrimSpace(a.Text)
	if body == "" {
		return nil, nil, badArgs("text is empty")
	}
	if n := len([]rune(body)); n > snapshot.MaxAgentDigest {
		return nil, nil, badArgs("text has %d characters, over %d", n, snapshot.MaxAgentDigest)
	}
	if a.Session != "" && !safeName(a.Session) {
		return nil, nil, badArgs("session %q is not a session id", a.Session)
	}
	p, err := s.project(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(p, store.Options{Home: s.opts.Home})
	if err != nil {
		return nil, nil, err
	}
	// Redacted with the project's settings, authenticated with the
	// user's key so that the next session start offers it, 0600,
	// atomically (snapshot.SaveAgentDigest).
	k, err := snapshot.UserAuthKey(st.Home())
	if err != nil {
		return nil, nil, fmt.Errorf("session digest: %w", err)
	}
	d, n, err := snapshot.SaveAgentDigest(st, k, a.Session, body, s.opts.Now())
	if err != nil {
		return nil, nil, err
	}
	msg := fmt.Sprintf("Checkpoint stored: %s (%d characters", d.Path, len([]rune(body)))
	if n > 0 {
		msg += fmt.Sprintf(", %d secrets redacted", n)
	}
	return text(msg + ")."), nil, nil
}

func safeName(s string) bool {
	if len(s) > 100 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}
