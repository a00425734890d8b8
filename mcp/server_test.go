package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/hook"
	"github.com/ben10ctx/ben10/index"
	ben10mcp "github.com/ben10ctx/ben10/mcp"
	"github.com/ben10ctx/ben10/snapshot"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const fixture = "../transcript/claude/testdata/11111111-2222-4333-8444-555555555555.jsonl"

type fixtureEnv struct {
	home, project, other string
}

// setup makes a home and a project whose store has a current context and a
// snapshot of the fixture session, plus a second project with the same
// session in its history, and indexes both.
func setup(t *testing.T) fixtureEnv {
	t.Helper()
	root := t.TempDir()
	e := fixtureEnv{home: filepath.Join(root, "home"), project: filepath.Join(root, "proj"), other: filepath.Join(root, "other")}
	for _, d := range []string{e.home, e.project, e.other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	buf := bytes.NewBuffer(encodeAs(t, fixture, userKey(t, e.home)))
	for _, p := range []string{filepath.Join(e.project, ".claude", "context", "current.ctx"), filepath.Join(e.other, ".claude", "context", "history", "session-1.ctx")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.NewManager(st, nil).Create(snapshot.CreateOptions{TranscriptPath: fixture, Trigger: "manual", Source: "cli", Force: true}); err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(index.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Update(context.Background(), index.UpdateOptions{Projects: []string{e.project, e.other}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// userKey is the authentication key of the user whose home is home: the
// key Ben10's saves tag archives with.
func userKey(t *testing.T, home string) *archive.AuthKey {
	t.Helper()
	k, err := snapshot.UserAuthKey(home)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// encodeAs saves the transcript at src as an archive tagged with key k
// (nil: untagged).
func encodeAs(t *testing.T, src string, k *archive.AuthKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, _, err := transcript.Save(context.Background(), &buf, src, "", archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Auth: k}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// connect runs the server on an in-memory transport and returns a client
// session; roots, when set, are offered to the server.
func connect(t *testing.T, e fixtureEnv, roots ...string) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, closeFn, err := ben10mcp.NewServer(ben10mcp.Options{Home: e.home, Dir: e.project, Version: "test",
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	for _, r := range roots {
		client.AddRoots(&sdk.Root{URI: "file://" + filepath.ToSlash(r)}) //lint:ignore SA1019 the server reads the client's roots
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v (a bad call must be a tool error)", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if n := utf8.RuneCountInString(b.String()); n > ben10mcp.MaxResult {
		t.Errorf("%s: %d characters, over %d", name, n, ben10mcp.MaxResult)
	}
	return b.String(), res.IsError
}

func TestTools(t *testing.T) {
	e := setup(t)
	cs := connect(t, e)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tl.Name)
		}
	}
	if strings.Join(names, ",") != strings.Join(sortedCopy(ben10mcp.ToolNames), ",") {
		t.Errorf("tools %v, want %v", names, ben10mcp.ToolNames)
	}

	out, isErr := call(t, cs, "search", map[string]any{"query": "go test ./pkg/calc"})
	if isErr || !strings.Contains(out, "«go test ./pkg/calc»") || strings.Contains(out, "project "+e.other) {
		t.Fatalf("search in this project: %v\n%s", isErr, out)
	}
	ref := firstRef(t, out)
	all, isErr := call(t, cs, "search", map[string]any{"query": "pkg/calc", "scope": "all", "kinds": []string{"command"}})
	if isErr || !strings.Contains(all, mustCanon(t, e.other)) {
		t.Errorf("search of all projects does not reach the other project: %v\n%s", isErr, all)
	}

	out, isErr = call(t, cs, "show", map[string]any{"ref": ref, "before": 1, "after": 1})
	if isErr || !strings.Contains(out, "(the hit)") || !strings.Contains(out, "go test ./pkg/calc") {
		t.Errorf("show %s: %v\n%s", ref, isErr, out)
	}

	out, isErr = call(t, cs, "recall_file", map[string]any{"path": "pkg/calc/add.go"})
	if isErr || !strings.Contains(out, "Edit") || !strings.Contains(out, "Read") || !strings.Contains(out, "pre-compact-") {
		t.Errorf("recall_file: %v\n%s", isErr, out)
	}
	out, isErr = call(t, cs, "recall_file", map[string]any{"path": "no/such/file.go"})
	if isErr || !strings.Contains(out, "No record") {
		t.Errorf("recall_file of an unknown file: %v\n%s", isErr, out)
	}

	out, isErr = call(t, cs, "list_sessions", map[string]any{})
	if isErr || !strings.Contains(out, "11111111-2222-4333-8444-555555555555") || !strings.Contains(out, "first request: Fix the failing test") {
		t.Errorf("list_sessions: %v\n%s", isErr, out)
	}
	out, isErr = call(t, cs, "list_snapshots", map[string]any{"limit": 5})
	if isErr || !strings.Contains(out, "pre-compact-") || !strings.Contains(out, "first request: Fix") {
		t.Errorf("list_snapshots: %v\n%s", isErr, out)
	}

	secret := "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
	out, isErr = call(t, cs, "session_digest", map[string]any{"text": "Goal: fix calc. Token " + secret + " was used.", "session": "11111111-2222"})
	if isErr || !strings.Contains(out, "Checkpoint stored") {
		t.Fatalf("session_digest: %v\n%s", isErr, out)
	}
	path := filepath.Join(e.project, ".claude", "context", snapshot.AgentDigestDir, "digest-20260301-120000-11111111-2222.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "Goal: fix calc.") {
		t.Errorf("stored digest not redacted or not stored:\n%s", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("digest file mode: %v %v", fi.Mode(), err)
	}
}

func TestBadArguments(t *testing.T) {
	e := setup(t)
	cs := connect(t, e)
	tests := []struct {
		tool string
		args any
	}{
		{"search", map[string]any{}},
		{"search", map[string]any{"query": ""}},
		{"search", map[string]any{"query": "ab"}},
		{"search", map[string]any{"query": "calc", "scope": "galaxy"}},
		{"search", map[string]any{"query": "calc", "limit": 1000}},
		{"search", map[string]any{"query": 42}},
		{"show", map[string]any{"ref": "not a ref"}},
		{"show", map[string]any{"ref": "00000000deadbeef:3"}},
		{"show", map[string]any{"ref": "00000000deadbeef:3", "before": -1}},
		{"recall_file", map[string]any{"path": " "}},
		{"list_sessions", map[string]any{"limit": -3}},
		{"list_snapshots", map[string]any{"limit": 101}},
		{"session_digest", map[string]any{"text": ""}},
		{"session_digest", map[string]any{"text": strings.Repeat("x", snapshot.MaxAgentDigest+1)}},
		{"session_digest", map[string]any{"text": "ok", "session": "../../etc"}},
	}
	for _, tc := range tests {
		args, _ := json.Marshal(tc.args)
		t.Run(tc.tool+string(args), func(t *testing.T) {
			out, isErr := call(t, cs, tc.tool, tc.args)
			if !isErr || out == "" {
				t.Errorf("%s %s: not a tool error with a message: %q", tc.tool, args, out)
			}
		})
	}
	if ents, _ := os.ReadDir(filepath.Join(e.project, ".claude", "context", snapshot.AgentDigestDir)); len(ents) != 0 {
		t.Errorf("a refused session_digest wrote %d files", len(ents))
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		same bool
	}{
		{"short", 10, true},
		{strings.Repeat("é", 50), 50, true},
		{strings.Repeat("é", 200), 60, false},
	}
	for _, tc := range tests {
		got := ben10mcp.Clip(tc.in, tc.n)
		if (got == tc.in) != tc.same || utf8.RuneCountInString(got) > tc.n || !utf8.ValidString(got) {
			t.Errorf("Clip(%d runes, %d) = %d runes %q", utf8.RuneCountInString(tc.in), tc.n, utf8.RuneCountInString(got), got)
		}
	}
}

func firstRef(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "ref ")
	if i < 0 {
		t.Fatalf("no ref in %q", out)
	}
	return strings.Fields(out[i+4:])[0]
}

func mustCanon(t *testing.T, p string) string {
	t.Helper()
	c, err := store.CanonicalDir(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// TestSessionDigestOfferedAtStart: a checkpoint stored through the
// session_digest tool (the SDK's in-memory client) is authenticated as
// this user's, listed as such, and offered by the next SessionStart hook
// of the project.
func TestSessionDigestOfferedAtStart(t *testing.T) {
	e := setup(t)
	cs := connect(t, e)
	const text = "Goal: make calc pass. Next: run go vet before the commit."
	if out, isErr := call(t, cs, "session_digest", map[string]any{"text": text, "session": "11111111-2222"}); isErr {
		t.Fatalf("session_digest: %s", out)
	}
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	k, err := snapshot.UserAuthKey(e.home)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := snapshot.AgentDigests(st, k)
	if len(good) != 1 || len(bad) != 0 || good[0].Text != text || good[0].Session != "11111111-2222" {
		t.Fatalf("AgentDigests = %+v, %+v", good, bad)
	}
	h := &hook.Handler{Home: e.home, Now: func() time.Time { return time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC) },
		Getenv: func(k string) string { return map[string]string{"BEN10_HOOK_RECOMPRESS": "sync"}[k] }}
	in, _ := json.Marshal(map[string]any{"session_id": "33333333-0000-4000-8000-000000000001", "source": "startup", "cwd": e.project, "hook_event_name": "SessionStart"})
	var so, se bytes.Buffer
	if code := h.Run(context.Background(), "SessionStart", bytes.NewReader(in), &so, &se); code != 0 || se.Len() != 0 {
		t.Fatalf("SessionStart: exit %d, stderr %q", code, se.String())
	}
	if !strings.Contains(so.String(), "Goal: make calc pass.") || !strings.Contains(so.String(), "Checkpoint the assistant wrote itself in session 11111111") {
		t.Errorf("SessionStart did not offer the digest:\n%s", so.String())
	}
}

// plantedTranscript is the fixture session with its paths under
// pkg/zzplant and session id id.
func plantedTranscript(t *testing.T, id string) string {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("pkg/calc"), []byte("pkg/zzplant"))
	b = bytes.ReplaceAll(b, []byte("11111111-2222-4333-8444-555555555555"), []byte(id))
	p := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// withTagOf is archive b with the authentication tag of archive own
// appended: a valid tag moved onto other content.
func withTagOf(t *testing.T, b, own []byte) []byte {
	t.Helper()
	or, err := ctxfmt.NewReader(bytes.NewReader(own), int64(len(own)), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tags := or.Find(archive.TypeAuthTag)
	if len(tags) != 1 {
		t.Fatalf("own archive has %d tags", len(tags))
	}
	tag, err := or.ReadSegment(tags[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := ctxfmt.NewReader(bytes.NewReader(b), int64(len(b)), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := ctxfmt.NewWriter(&out, ctxfmt.WriterOptions{Codec: ctxfmt.CodecNone})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Segments() {
		p, err := r.ReadSegment(s.Index)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddWith(s.Type, p, ctxfmt.SegmentOptions{Optional: !s.Required, Codec: ctxfmt.CodecNone}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddWith(archive.TypeAuthTag, tag, ctxfmt.SegmentOptions{Optional: true, Codec: ctxfmt.CodecNone}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestUnauthenticatedWithheld: archives planted in the project's store (as
// a cloned repository can bring them) — one untagged, one tagged with
// another user's key, one carrying a valid tag of this user's moved onto
// other content — are indexed but never served: search says how many hits
// it withheld and why, without their text; show refuses their
// references; list_sessions leaves their sessions out; recall_file does
// not read a tampered current context.
func TestUnauthenticatedWithheld(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	own := encodeAs(t, fixture, userKey(t, e.home))
	other, err := archive.NewAuthKey(bytes.Repeat([]byte{9}, archive.AuthKeySize))
	if err != nil {
		t.Fatal(err)
	}
	const (
		untagged = "aaaaaaaa-0000-4000-8000-000000000001"
		otherKey = "aaaaaaaa-0000-4000-8000-000000000002"
		tampered = "aaaaaaaa-0000-4000-8000-000000000003"
	)
	st := filepath.Join(e.project, ".claude", "context")
	for path, data := range map[string][]byte{
		filepath.Join(st, "checkpoints", "cp-999.ctx"):    encodeAs(t, plantedTranscript(t, untagged), nil),
		filepath.Join(st, "history", "session-other.ctx"): encodeAs(t, plantedTranscript(t, otherKey), other),
		filepath.Join(st, "current.ctx"):                  withTagOf(t, encodeAs(t, plantedTranscript(t, tampered), nil), own),
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	x, err := index.Open(index.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Update(ctx, index.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	all, err := x.Search(ctx, index.Query{Text: "pkg/zzplant", Unauthenticated: true, Limit: 50})
	if err != nil || len(all.Hits) == 0 {
		t.Fatalf("the planted archives are not indexed: %+v %v", all, err)
	}
	trusts := map[string]bool{}
	for _, h := range all.Hits {
		trusts[h.Trust] = true
	}
	for _, tr := range []string{index.TrustNoTag, index.TrustOtherKey, index.TrustBadTag} {
		if !trusts[tr] {
			t.Errorf("no hit marked %s among %v", tr, trusts)
		}
	}

	cs := connect(t, e)
	out, isErr := call(t, cs, "search", map[string]any{"query": "pkg/zzplant", "scope": "all"})
	if isErr || !strings.Contains(out, "No match") || !strings.Contains(out, "withheld") {
		t.Errorf("search of planted content: %v\n%s", isErr, out)
	}
	for _, why := range []string{"no authentication tag", "another user's key", "does not verify"} {
		if !strings.Contains(out, why) {
			t.Errorf("search result does not say %q:\n%s", why, out)
		}
	}
	if strings.Contains(out, "«") || strings.Contains(out, "Fix the failing test") {
		t.Errorf("withheld content in the result:\n%s", out)
	}
	out, isErr = call(t, cs, "show", map[string]any{"ref": all.Hits[0].Ref})
	if isErr || !strings.HasPrefix(out, "Withheld:") || strings.Contains(out, "zzplant/") {
		t.Errorf("show of a planted hit: %v\n%s", isErr, out)
	}
	out, isErr = call(t, cs, "list_sessions", map[string]any{})
	if isErr || strings.Contains(out, "aaaaaaaa-") || !strings.Contains(out, "3 sessions withheld") ||
		!strings.Contains(out, "11111111-2222-4333-8444-555555555555") {
		t.Errorf("list_sessions: %v\n%s", isErr, out)
	}
	out, isErr = call(t, cs, "recall_file", map[string]any{"path": "pkg/zzplant/add.go"})
	if isErr || !strings.Contains(out, "No record") || !strings.Contains(out, "1 archives withheld") {
		t.Errorf("recall_file from a tampered current context: %v\n%s", isErr, out)
	}
	// This user's own content is still served.
	out, isErr = call(t, cs, "search", map[string]any{"query": "go test ./pkg/calc"})
	if isErr || !strings.Contains(out, "«go test ./pkg/calc»") || strings.Contains(out, "withheld") {
		t.Errorf("search of own content: %v\n%s", isErr, out)
	}
}
