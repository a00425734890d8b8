package gemini

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// Import reads one Gemini CLI session file (session-*.json or .jsonl) and,
// unless opt.NoSubagents, the subagent sessions under chats/<sessionId>/.
// The project directory is resolved from the file's location (see
// ProjectDir). When ctx is done it stops between two records with an
// error that wraps ctx.Err() and names the line.
func Import(ctx context.Context, path string, opt archive.ImportOptions) (*archive.State, error) {
	data, err := imp.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	g := newConv(ctx, opt)
	g.main(filepath.Base(path), data)
	if dir := ProjectDir(path, g.b.S.Meta.DirectoryHash); dir != "" {
		g.b.S.Meta.DirectoryPath = dir
	}
	if !opt.NoSubagents && g.b.S.Meta.SessionID != "" {
		g.subagents(filepath.Join(filepath.Dir(path), g.b.S.Meta.SessionID))
	}
	s, err := g.finish()
	if err == nil {
		err = imp.CaptureFiles(ctx, s, cmp.Or(opt.ProjectDir, s.Meta.DirectoryPath), opt)
	}
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return s, nil
}

// ImportBytes imports a session held in memory (legacy JSON or JSONL,
// told apart by content); name becomes the raw file's name. The project
// directory is taken from opt.ProjectDir when its sha256 matches the
// session's projectHash.
func ImportBytes(name string, data []byte, opt archive.ImportOptions) (*archive.State, error) {
	g := newConv(context.Background(), opt)
	g.main(cmp.Or(name, "session.jsonl"), data)
	return g.finish()
}

type conv struct {
	b    *imp.Builder
	opt  archive.ImportOptions
	list []*entry // the conversation as it finally stands
	// messages a $set.messages replacement dropped, in order, with the
	// compactions they belong to.
	archived []*entry
	comps    []pendingComp
	ts       time.Time // latest lastUpdated
	pos      map[string]int
}

type pendingComp struct {
	at      int // len(archived) at the replacement
	line    int
	file    int
	summary string
}

type entry struct {
	id    string
	raw   json.RawMessage
	file  int
	line  int
	side  bool
	agent string
	// whole: raw is line of file, as read (not an element of a $set
	// list), so texts can be located in it (imp.Spans).
	whole bool
}

func newConv(ctx context.Context, opt archive.ImportOptions) *conv {
	return &conv{b: imp.NewBuilder(ctx, archive.HarnessGemini), opt: opt}
}

// header is the ConversationRecord without its messages.
type header struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Summary     string `json:"summary"`
}

func (g *conv) applyHeader(h header) {
	m := &g.b.S.Meta
	if h.SessionID != "" && m.SessionID == "" {
		m.SessionID = h.SessionID
	}
	if h.ProjectHash != "" {
		m.DirectoryHash = h.ProjectHash
	}
	if t := imp.ParseTime(h.StartTime); !t.IsZero() && m.CreatedAt.IsZero() {
		m.CreatedAt = t
	}
	if t := imp.ParseTime(h.LastUpdated); t.After(g.ts) {
		g.ts = t
	}
	if h.Summary != "" {
		m.Title = h.Summary
	}
}

// main parses the session file itself.
func (g *conv) main(name string, data []byte) {
	b := g.b
	f := b.AddRaw(name, data)
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if strings.HasSuffix(name, ".json") || (len(t) > 0 && t[0] == '{' && !strings.HasSuffix(name, ".jsonl") && json.Valid(data)) {
		g.legacy(f, data)
	} else {
		g.jsonl(f, false, "")
	}
	m := &b.S.Meta
	if m.DirectoryPath == "" && g.opt.ProjectDir != "" && m.DirectoryHash != "" && hashDir(g.opt.ProjectDir) == m.DirectoryHash {
		m.DirectoryPath = g.opt.ProjectDir
	}
}

// legacy reads a ≤ v0.38 whole-file ConversationRecord.
func (g *conv) legacy(f int, data []byte) {
	b := g.b
	b.S.Import.Lines++
	if !utf8.Valid(data) {
		b.S.Import.InvalidUTF8++
	}
	var rec struct {
		header
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		b.S.Import.Skipped++
		// A record cut short (a file still being written) ends early.
		b.S.Import.Truncated = strings.Contains(err.Error(), "unexpected end of JSON input") && len(bytes.TrimSpace(data)) > 0
		b.Problem(f, 0, "not a JSON conversation record: %v", err)
		return
	}
	g.applyHeader(rec.header)
	for _, raw := range rec.Messages {
		g.upsert(&entry{id: msgID(raw), raw: raw, file: f, line: 0})
	}
}

func msgID(raw json.RawMessage) string {
	var m struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.ID
}

// jsonl reads a ≥ v0.39 append-only session file.
func (g *conv) jsonl(f int, side bool, agent string) {
	b := g.b
	for l, p := range imp.Records[map[string]json.RawMessage](b, f) {
		obj := *p
		if obj == nil {
			b.S.Import.Skipped++
			b.Problem(f, l.N, "not a JSON object")
			continue
		}
		switch {
		case obj["$set"] != nil:
			g.set(f, l.N, obj["$set"], side)
		case obj["$rewindTo"] != nil:
			id := imp.Str(obj["$rewindTo"])
			if !g.rewind(id) {
				b.S.Import.Partial++
				b.Problem(f, l.N, "$rewindTo unknown message %q", id)
			}
		case obj["id"] != nil && imp.Str(obj["id"]) != "":
			g.upsert(&entry{id: imp.Str(obj["id"]), raw: json.RawMessage(l.Data), file: f, line: l.N, side: side, agent: agent, whole: true})
		case obj["sessionId"] != nil:
			if side {
				continue
			}
			var h header
			if json.Unmarshal(l.Data, &h) == nil {
				g.applyHeader(h)
			}
		default:
			b.Unknown("record{" + strings.Join(slices.Sorted(maps.Keys(obj)), ",") + "}")
		}
	}
}

// upsert replaces a message with the same id in place, or appends it.
func (g *conv) upsert(e *entry) {
	if g.pos == nil {
		g.reindex()
	}
	if e.id != "" {
		if i, ok := g.pos[e.key()]; ok {
			g.list[i] = e
			return
		}
		g.pos[e.key()] = len(g.list)
	}
	g.list = append(g.list, e)
}

func (e *entry) key() string { return e.agent + "\x00" + e.id }

// reindex rebuilds the id -> position map after the list changed shape.
func (g *conv) reindex() {
	g.pos = make(map[string]int, len(g.list))
	for i, x := range g.list {
		if x.id != "" {
			if _, dup := g.pos[x.key()]; !dup {
				g.pos[x.key()] = i
			}
		}
	}
}

func (g *conv) rewind(id string) bool {
	if g.pos == nil {
		g.reindex()
	}
	i, ok := g.pos[(&entry{id: id}).key()]
	if !ok || id == "" {
		return false
	}
	// Subagent entries are not part of the main conversation's rewind.
	g.list = append(g.list[:i], slices.DeleteFunc(slices.Clone(g.list[i:]), func(x *entry) bool { return !x.side })...)
	g.reindex()
	return true
}

func (g *conv) set(f, line int, raw json.RawMessage, side bool) {
	var s struct {
		header
		Messages *[]json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(raw, &s) != nil {
		g.b.S.Import.Partial++
		g.b.Problem(f, line, "$set is not an object")
		return
	}
	if !side {
		g.applyHeader(s.header)
	}
	if s.Messages == nil || side {
		return
	}
	// A replacement of the whole list: chat compression (or a resumed
	// conversion). Messages it drops stay in the history as archived.
	keep := map[string]bool{}
	for _, m := range *s.Messages {
		keep[msgID(m)] = true
	}
	var sideEntries []*entry
	for _, x := range g.list {
		switch {
		case x.side:
			sideEntries = append(sideEntries, x)
		case !keep[x.id]:
			g.archived = append(g.archived, x)
		}
	}
	g.list = g.list[:0]
	summary := ""
	for _, m := range *s.Messages {
		g.list = append(g.list, &entry{id: msgID(m), raw: m, file: f, line: line})
		var mm struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if summary == "" && json.Unmarshal(m, &mm) == nil && mm.Type == "user" {
			if t, _ := partsText(mm.Content); strings.Contains(t, "<state_snapshot>") {
				summary = t
			}
		}
	}
	g.list = append(g.list, sideEntries...)
	g.reindex()
	g.comps = append(g.comps, pendingComp{at: len(g.archived), line: line, file: f, summary: summary})
}

// subagents imports chats/<sessionId>/*.jsonl as sidechains.
func (g *conv) subagents(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	parent := filepath.Base(dir)
	for _, e := range ents {
		if !e.Type().IsRegular() || !(strings.HasSuffix(e.Name(), ".jsonl") || strings.HasSuffix(e.Name(), ".json")) {
			continue
		}
		if g.b.StoppedBefore(parent + "/" + e.Name()) {
			return
		}
		data, err := imp.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			g.b.S.Import.Skipped++
			g.b.Problem(0, 0, "subagent %s: %v", e.Name(), err)
			continue
		}
		agent := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".jsonl"), ".json")
		f := g.b.AddRaw(parent+"/"+e.Name(), data)
		g.b.S.Meta.SubagentIDs = append(g.b.S.Meta.SubagentIDs, agent)
		g.jsonl(f, true, agent)
	}
}

// ProjectDir resolves the project root of a session file at
// <gemini>/tmp/<projectDir>/chats/…: the slug directory's .project_root
// (≥ v0.29), then <gemini>/projects.json (slug → path, or a path whose
// sha256 is the hash directory name / the session's projectHash for
// ≤ v0.28). It returns "" when nothing matches.
func ProjectDir(sessionPath, projectHash string) string {
	abs, err := filepath.Abs(sessionPath)
	if err != nil {
		return ""
	}
	chats := filepath.Dir(abs)
	for filepath.Base(chats) != "chats" {
		up := filepath.Dir(chats)
		if up == chats {
			return ""
		}
		chats = up
	}
	pdir := filepath.Dir(chats)
	if data, err := os.ReadFile(filepath.Join(pdir, ".project_root")); err == nil {
		if p := strings.TrimSpace(string(data)); p != "" {
			return p
		}
	}
	slug := filepath.Base(pdir)
	gdir := filepath.Dir(filepath.Dir(pdir)) // <gemini>/tmp/<slug> -> <gemini>
	data, err := os.ReadFile(filepath.Join(gdir, "projects.json"))
	if err != nil {
		return ""
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return ""
	}
	paths := slices.Sorted(maps.Keys(reg.Projects))
	for _, p := range paths {
		if reg.Projects[p] == slug {
			return p
		}
	}
	for _, p := range paths {
		h := hashDir(p)
		if h == slug || (projectHash != "" && h == projectHash) {
			return p
		}
	}
	return ""
}

func hashDir(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

// message is a MessageRecord.
type message struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	Tokens    *tokens    `json:"tokens"`
	Model     string     `json:"model"`
	ToolCalls []toolCall `json:"toolCalls"`
}

type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

type toolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        string          `json:"status"`
	Timestamp     string          `json:"timestamp"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// partsText renders a PartListUnion: a string, a part or a list of parts.
// lit is the JSON string literal the text is, when it is one literal
// decoded as it is (for imp.Spans), else nil.
func partsText(raw json.RawMessage) (text string, lit json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, raw
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal(raw, &one) != nil {
			return "", nil
		}
		parts = []map[string]json.RawMessage{one}
	}
	var out []string
	for _, p := range parts {
		var t string
		switch {
		case p["text"] != nil:
			t, lit = imp.Str(p["text"]), p["text"]
		case p["functionResponse"] != nil:
			t, lit = functionOutput(p["functionResponse"])
		case p["inlineData"] != nil, p["fileData"] != nil:
			t = "[attachment]"
		default:
			continue
		}
		out = append(out, t)
	}
	if len(out) != 1 {
		lit = nil
	}
	return strings.Join(out, "\n"), lit
}

// functionOutput renders a functionResponse part; lit as for partsText.
func functionOutput(raw json.RawMessage) (string, json.RawMessage) {
	var fr struct {
		Response map[string]json.RawMessage `json:"response"`
	}
	if json.Unmarshal(raw, &fr) != nil {
		return "", nil
	}
	for _, k := range []string{"output", "error", "content"} {
		if v, ok := fr.Response[k]; ok {
			if s := imp.Str(v); s != "" {
				return s, v
			}
			return string(v), nil
		}
	}
	if len(fr.Response) > 0 {
		b, _ := json.Marshal(fr.Response)
		return string(b), nil
	}
	return "", nil
}

// spans locates text, read from the literal lit of entry e, in e's line
// (nil when e is not a line as read, or text is empty).
func (e *entry) spans(text string, lit json.RawMessage) []archive.Span {
	if !e.whole || text == "" {
		return nil
	}
	return imp.Spans(e.raw, lit)
}

func (g *conv) finish() (*archive.State, error) {
	b := g.b
	m := &b.S.Meta
	b.Cwd = m.DirectoryPath
	b.Root = cmp.Or(g.opt.ProjectDir, m.DirectoryPath)
	all := append(append([]*entry{}, g.archived...), g.list...)
	ci := 0
	for i, e := range all {
		if b.Stopped(e.file, e.line) {
			break
		}
		for ci < len(g.comps) && g.comps[ci].at == i {
			g.addCompaction(g.comps[ci])
			ci++
		}
		g.message(e)
	}
	for ; ci < len(g.comps); ci++ {
		g.addCompaction(g.comps[ci])
	}
	if !g.ts.IsZero() {
		m.UpdatedAt = g.ts
	}
	if m.ContextWindow == 0 && m.Model != "" {
		m.ContextWindow = TokenLimit(m.Model)
	}
	return b.Finish()
}

func (g *conv) addCompaction(c pendingComp) {
	b := g.b
	var ts time.Time
	if n := len(b.S.Messages); n > 0 {
		ts = b.S.Messages[n-1].Timestamp
	}
	summary := cmp.Or(c.summary, "[history replaced by $set.messages]")
	b.S.Compactions = append(b.S.Compactions, archive.Compaction{
		UUID:         fmt.Sprintf("set-L%d", c.line+1),
		Trigger:      "auto",
		PreTokens:    b.S.Meta.ContextTokens,
		Timestamp:    ts,
		Summary:      summary,
		MessageIndex: len(b.S.Messages),
		Ref:          archive.RawRef{File: c.file, Line: c.line},
	})
}

func (g *conv) message(e *entry) {
	b := g.b
	var mr message
	ref := archive.RawRef{File: e.file, Line: e.line}
	if err := json.Unmarshal(e.raw, &mr); err != nil {
		b.S.Import.Partial++
		b.Problem(e.file, e.line, "message %q: %v", e.id, err)
		return
	}
	ts := imp.ParseTime(mr.Timestamp)
	text, lit := partsText(mr.Content)
	base := archive.Message{ID: mr.ID, Timestamp: ts, Sidechain: e.side, AgentID: e.agent, Ref: ref, TextSpans: e.spans(text, lit)}
	switch mr.Type {
	case "user":
		base.Role, base.Kind = "user", "prompt"
		if strings.Contains(text, "<state_snapshot>") {
			base.Kind = "summary"
		}
		base.Text = text
		b.AddMessage(base)
	case "info", "error", "warning":
		base.Role, base.Kind, base.Text = "system", mr.Type, text
		b.AddMessage(base)
	case "gemini":
		if len(mr.Thoughts) > 0 {
			var parts []string
			for _, t := range mr.Thoughts {
				parts = append(parts, strings.TrimSpace("**"+t.Subject+"** "+t.Description))
			}
			th := base
			th.ID, th.Role, th.Kind, th.Text, th.TextSpans = mr.ID+"#thoughts", "assistant", "thinking", strings.Join(parts, "\n\n"), nil
			b.AddMessage(th)
		}
		base.Role, base.Kind, base.Text = "assistant", "text", text
		if mr.Model != "" && !e.side {
			b.S.Meta.Model = mr.Model
		}
		if mr.Tokens != nil {
			base.Tokens = mr.Tokens.Output
			if !e.side {
				tot := mr.Tokens.Total
				if tot == 0 {
					tot = mr.Tokens.Input + mr.Tokens.Output + mr.Tokens.Thoughts + mr.Tokens.Tool
				}
				b.S.Meta.TotalTokens += tot
				b.S.Meta.ContextTokens = mr.Tokens.Input + mr.Tokens.Output
			}
		}
		for _, tc := range mr.ToolCalls {
			base.ToolCallIDs = append(base.ToolCallIDs, g.tool(tc, ts, e, ref))
		}
		b.AddMessage(base)
	default:
		b.Unknown("message/" + cmp.Or(mr.Type, "(no type)"))
	}
}

func (g *conv) tool(tc toolCall, msgTS time.Time, e *entry, ref archive.RawRef) string {
	b := g.b
	ts := imp.ParseTime(tc.Timestamp)
	if ts.IsZero() {
		ts = msgTS
	}
	id := cmp.Or(tc.ID, fmt.Sprintf("%s#tool%d", e.id, len(b.S.Tools)))
	t := archive.ToolExec{ID: id, Name: tc.Name, Input: imp.JSONText(tc.Args), Timestamp: ts, Sidechain: e.side, Ref: ref, ResultRef: ref}
	t.Success = tc.Status == "success"
	if len(tc.Result) > 0 && string(tc.Result) != "null" {
		var lit json.RawMessage
		t.Output, lit = partsText(tc.Result)
		t.OutputSpans = e.spans(t.Output, lit)
	}
	if t.Output == "" && len(tc.ResultDisplay) > 0 {
		t.Output = imp.Str(tc.ResultDisplay)
	}
	if t.Output == "" && tc.Status != "" && tc.Status != "success" {
		t.Output = "[" + tc.Status + "]"
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(tc.Args, &args)
	op := imp.OpOther
	switch tc.Name {
	case "run_shell_command":
		t.Command = imp.Str(args["command"])
	case "read_file", "read_many_files":
		op = imp.OpRead
	case "write_file":
		op = imp.OpWrite
	case "replace", "edit":
		op = imp.OpEdit
	case "write_todos":
		var p struct {
			Todos []imp.Todo `json:"todos"`
		}
		if json.Unmarshal(tc.Args, &p) == nil && !e.side {
			b.SetTodos(p.Todos, ts)
		}
	}
	b.TouchArgs(&t, args, op, ts, "file_path", "absolute_path")
	if op != imp.OpOther {
		b.TouchArgs(&t, args, op, ts, "path", "dir_path")
	}
	if op == imp.OpRead {
		var ps []string
		if json.Unmarshal(args["paths"], &ps) == nil {
			for _, p := range ps {
				t.RelatedFiles = imp.AppendUnique(t.RelatedFiles, b.Touch(p, op, ts))
			}
		}
	}
	b.AddTool(t)
	return id
}
