package kimi

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// MaxSessionFiles bounds how many files of one session directory are read.
const MaxSessionFiles = 10000

// ErrNoContext reports a session directory without any context*.jsonl.
var ErrNoContext = errors.New("kimi: no context.jsonl in session directory")

// SessionDir returns the session directory for path: path itself when it
// is a directory, else the directory holding the file (context.jsonl,
// context_N.jsonl, wire.jsonl or state.json).
func SessionDir(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("kimi: %w", err)
	}
	if st.IsDir() {
		return path, nil
	}
	return filepath.Dir(path), nil
}

// Import reads a Kimi CLI session: path is the session directory
// (<share>/sessions/<md5(workdir)>/<uuid>/) or a file in it. Every file
// of the directory is kept raw as "<uuid>/<relative path>" (subagents/ only
// unless opt.NoSubagents). When ctx is done it stops between two files or
// records with an error that wraps ctx.Err() and names where it stopped.
func Import(ctx context.Context, path string, opt archive.ImportOptions) (*archive.State, error) {
	if w, ok := codeWire(path); ok {
		return importCode(ctx, w, opt)
	}
	if uuid, dir, ok := flatSession(path); ok {
		return importFlat(ctx, dir, uuid, opt)
	}
	dir, err := SessionDir(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	uuid := filepath.Base(abs)
	var srcs []source
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if opt.NoSubagents && rel == "subagents" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(srcs) >= MaxSessionFiles {
			return fmt.Errorf("more than %d files", MaxSessionFiles)
		}
		srcs = append(srcs, source{p, uuid + "/" + rel})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("kimi: %s: %w", dir, err)
	}
	files, err := readFiles(ctx, srcs)
	if err != nil {
		return nil, err
	}
	return finishImport(ctx, files, abs, opt)
}

// source is a session file to read: its path and its raw file's name.
type source struct{ path, name string }

// readFiles reads srcs in order, skipping what is not a regular file (a
// symbolic link is not followed). When ctx is done it stops with an error
// that wraps ctx.Err() and names the file it did not read.
func readFiles(ctx context.Context, srcs []source) ([]archive.RawFile, error) {
	var files []archive.RawFile
	for _, s := range srcs {
		if st, err := os.Lstat(s.path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("kimi: import stopped before %s: %w", s.name, err)
		}
		data, err := imp.ReadFile(s.path)
		if err != nil {
			return nil, fmt.Errorf("kimi: %s: %w", s.path, err)
		}
		files = append(files, archive.RawFile{Name: s.name, Data: data})
	}
	return files, nil
}

// finishImport imports a session's files read from session directory abs
// (<share>/sessions/<md5>/<uuid>, or <share>/sessions/<md5> for the flat
// layout's files): the work directory is resolved from the <md5> folder.
func finishImport(ctx context.Context, files []archive.RawFile, abs string, opt archive.ImportOptions) (*archive.State, error) {
	hash := filepath.Base(filepath.Dir(abs))
	share := filepath.Dir(filepath.Dir(filepath.Dir(abs)))
	if !hashRe().MatchString(hash) {
		// Not the <share>/sessions/<md5>/<uuid> layout: nothing to resolve.
		hash, share = "", ""
	}
	workDir := ""
	if share != "" {
		workDir = WorkDir(share, hash)
	}
	if workDir == "" && opt.ProjectDir != "" && hashMatches(hash, opt.ProjectDir) {
		workDir = opt.ProjectDir
	}
	root := cmp.Or(opt.ProjectDir, workDir)
	s, err := importFiles(ctx, files, opt, root)
	if err != nil {
		return nil, err
	}
	m := &s.Meta
	m.DirectoryHash, m.DirectoryPath = hash, workDir
	if m.Model == "" && share != "" {
		m.Model = defaultModel(share)
	}
	if m.ContextWindow == 0 && m.Model != "" {
		m.ContextWindow = ContextWindow(m.Model)
	}
	if err := imp.CaptureFiles(ctx, s, root, opt); err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	return s, nil
}

// MD5Dir is Kimi's session folder name for a work directory.
func MD5Dir(workDir string) string {
	sum := md5.Sum([]byte(workDir))
	return hex.EncodeToString(sum[:])
}

func hashMatches(hash, dir string) bool {
	h := MD5Dir(dir)
	return hash == h || strings.HasSuffix(hash, "_"+h)
}

// WorkDir maps a sessions/<hash> folder name back to its work directory
// through <share>/kimi.json {"work_dirs":[{path,kaos}]}; "" when unknown.
func WorkDir(share, hash string) string {
	data, err := os.ReadFile(filepath.Join(share, "kimi.json"))
	if err != nil {
		return ""
	}
	var k struct {
		WorkDirs []struct {
			Path string `json:"path"`
			Kaos string `json:"kaos"`
		} `json:"work_dirs"`
	}
	if json.Unmarshal(data, &k) != nil {
		return ""
	}
	for _, w := range k.WorkDirs {
		h := MD5Dir(w.Path)
		if hash == h || (w.Kaos != "" && w.Kaos != "local" && hash == w.Kaos+"_"+h) {
			return w.Path
		}
	}
	return ""
}

// hashRe matches a sessions/ folder name: md5 hex, or "<kaos>_<md5>".
var hashRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[A-Za-z0-9-]+_)?[0-9a-f]{32}$`) })

var defaultModelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*default_model\s*=\s*"([^"]*)"`) })

// defaultModel reads default_model from <share>/config.toml (Kimi records
// no model in the session itself).
func defaultModel(share string) string {
	data, err := os.ReadFile(filepath.Join(share, "config.toml"))
	if err != nil {
		return ""
	}
	if m := defaultModelRe().FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
}

// ContextWindow is the context size assumed for a Kimi model when the
// wire log carries no StatusUpdate.max_context_tokens:
//
//	kimi-k2*, kimi-for-coding, kimi-latest   262,144
//	moonshot-v1-8k / -32k / -128k            8,192 / 32,768 / 131,072
//	anything else                            262,144
func ContextWindow(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "8k"):
		return 8192
	case strings.Contains(m, "32k"):
		return 32768
	case strings.Contains(m, "128k"):
		return 131072
	}
	return 262144
}

// ImportFiles imports a session from its files in memory, named
// "<uuid>/context.jsonl", "<uuid>/context_1.jsonl", "<uuid>/wire.jsonl",
// "<uuid>/state.json", "<uuid>/subagents/<id>/context.jsonl", …. Every
// file is kept raw in the given order.
func ImportFiles(files []archive.RawFile, opt archive.ImportOptions) (*archive.State, error) {
	if len(files) > 0 && strings.HasSuffix(files[0].Name, "wire.jsonl") && codeHead(files[0].Data[:min(len(files[0].Data), codeSniff)]) {
		// A Kimi Code session: wire logs only.
		return importCodeFiles(context.Background(), files, opt)
	}
	return importFiles(context.Background(), files, opt, opt.ProjectDir)
}

func importFiles(ctx context.Context, files []archive.RawFile, opt archive.ImportOptions, root string) (*archive.State, error) {
	k := &conv{b: imp.NewBuilder(ctx, archive.HarnessKimi), opt: opt, prevKeys: map[string]bool{}}
	k.b.Root = root
	type ctxFile struct {
		idx, n int
	}
	const current = int(^uint(0) >> 1) // context.jsonl's place: after every context_N.jsonl
	ctxs := map[string][]ctxFile{}     // by agent, "" for the main one
	wires := map[string]int{}
	var agents []string // the subagents with a context file, as first seen
	add := func(agent string, c ctxFile) {
		if _, seen := ctxs[agent]; !seen && agent != "" {
			agents = append(agents, agent)
		}
		ctxs[agent] = append(ctxs[agent], c)
	}
	state := -1
	for _, f := range files {
		i := k.b.AddRaw(f.Name, f.Data)
		dir, base := path.Split(f.Name)
		agent := ""
		if j := strings.Index(dir, "subagents/"); j >= 0 {
			agent = strings.SplitN(dir[j+len("subagents/"):], "/", 2)[0]
		}
		if agent != "" && opt.NoSubagents {
			continue
		}
		if dir == "" {
			// The flat layout: <uuid>.jsonl and <uuid>_read_N.jsonl.
			if id, n, ok := flatName(base); ok {
				if n == "" {
					add("", ctxFile{i, current})
				} else if !opt.NoSubagents {
					add("read_"+n, ctxFile{i, current})
				}
				if k.b.S.Meta.SessionID == "" {
					k.b.S.Meta.SessionID = id
				}
			}
			continue
		}
		switch {
		case base == "wire.jsonl":
			wires[agent] = i
		case base == "state.json" && agent == "":
			state = i
		case strings.HasPrefix(base, "context") && strings.HasSuffix(base, ".jsonl"):
			n, ok := rotation(base)
			if !ok {
				continue
			}
			add(agent, ctxFile{i, n})
		}
		if k.b.S.Meta.SessionID == "" {
			if top := strings.SplitN(f.Name, "/", 2); len(top) == 2 {
				k.b.S.Meta.SessionID = top[0]
			}
		}
	}
	if len(ctxs[""]) == 0 {
		return nil, ErrNoContext
	}
	for _, a := range append([]string{""}, agents...) {
		if w, ok := wires[a]; ok {
			k.readWire(w, a)
		}
	}
	sort.Strings(agents)
	for _, a := range append([]string{""}, agents...) {
		// context_1, context_2, … hold older history; context.jsonl is
		// the current one.
		cs := ctxs[a]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].n < cs[j].n })
		if a != "" {
			k.b.S.Meta.SubagentIDs = append(k.b.S.Meta.SubagentIDs, a)
			k.prevKeys = map[string]bool{}
		}
		for j, c := range cs {
			k.readContext(c.idx, a, j > 0)
		}
	}
	if state >= 0 {
		k.readState(state)
	}
	k.applyWire()
	s, err := k.b.Finish()
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	return s, nil
}

// rotation orders context.jsonl (last) after context_N.jsonl.
func rotation(base string) (int, bool) {
	if base == "context.jsonl" {
		return int(^uint(0) >> 1), true
	}
	s := strings.TrimSuffix(strings.TrimPrefix(base, "context_"), ".jsonl")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

type conv struct {
	b   *imp.Builder
	opt archive.ImportOptions

	prevKeys map[string]bool // message keys of the previous context file

	// from wire.jsonl
	turns     []wireTurn
	toolTimes map[string]wireTool
	ctxTokens int64
	maxTokens int64
	total     int64
	haveUsage bool
}

type wireTurn struct {
	ts   time.Time
	text string
}

type wireTool struct {
	call, result time.Time
	isError      *bool
}

type ctxLine struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []ctxToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	TokenCount int64           `json:"token_count"`
	ID         json.RawMessage `json:"id"`
}

type ctxToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type part struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Think string `json:"think"`
}

// contentText splits kosong content into visible text and thinking.
func contentText(raw json.RawMessage) (text, think string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, ""
	}
	var parts []part
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	var t, th []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			t = append(t, p.Text)
		case "think":
			if p.Think != "" {
				th = append(th, p.Think)
			}
		case "image_url", "audio_url", "video_url":
			t = append(t, "["+strings.TrimSuffix(p.Type, "_url")+"]")
		}
	}
	return strings.Join(t, "\n"), strings.Join(th, "\n\n")
}

// textLiteral returns the JSON string literal of content raw that text
// (contentText's) was decoded from as it is, for imp.Spans: raw itself
// when it is a string, the text part's when that part alone gives text;
// else nil.
func textLiteral(raw json.RawMessage, text string) json.RawMessage {
	if text == "" || len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		return raw
	}
	var parts []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var lit json.RawMessage
	for _, p := range parts {
		switch p.Type {
		case "text":
			if lit != nil {
				return nil
			}
			lit = p.Text
		case "image_url", "audio_url", "video_url":
			return nil
		}
	}
	return lit
}

const compactedPrefix = "<system>Previous context has been compacted"

func (k *conv) readContext(f int, agent string, rotated bool) {
	b := k.b
	side := agent != ""
	ref := func(n int) archive.RawRef { return archive.RawRef{File: f, Line: n} }
	keys := map[string]bool{}
	leading := rotated // still in the head of a file after a rotation
	compIdx := -1
	if rotated {
		b.S.Compactions = append(b.S.Compactions, archive.Compaction{
			UUID:         b.S.Raw[f].Name,
			Trigger:      "auto",
			PreTokens:    b.S.Meta.ContextTokens, // the latest known before the rotation
			MessageIndex: len(b.S.Messages),
			Ref:          ref(0),
		})
		compIdx = len(b.S.Compactions) - 1
	}
	for l, c := range imp.Records[ctxLine](b, f) {
		key := string(l.Data)
		keys[key] = true
		switch c.Role {
		case "_system_prompt":
			if !rotated && !side {
				text, _ := contentText(c.Content)
				b.AddMessage(archive.Message{ID: fmt.Sprintf("%d:%d", f, l.N), Role: "system", Kind: "meta", Text: text, Ref: ref(l.N)})
			}
			continue
		case "_checkpoint":
			continue
		case "_usage":
			if compIdx >= 0 && b.S.Compactions[compIdx].PostTokens == 0 {
				b.S.Compactions[compIdx].PostTokens = c.TokenCount
			}
			if !side {
				b.S.Meta.ContextTokens = c.TokenCount
			}
			continue
		case "user", "assistant", "tool", "system":
		default:
			b.Unknown("context/" + cmp.Or(c.Role, "(no role)"))
			continue
		}
		text, think := contentText(c.Content)
		if leading {
			if c.Role == "user" && strings.HasPrefix(strings.TrimSpace(text), compactedPrefix) {
				if compIdx >= 0 {
					b.S.Compactions[compIdx].Summary = text
				}
			} else if k.prevKeys[key] {
				continue // kept across the rotation: already imported
			} else if !strings.HasPrefix(text, "<system>CHECKPOINT") {
				leading = false
			}
		}
		id := fmt.Sprintf("%d:%d", f, l.N)
		spans := imp.Spans(l.Data, textLiteral(c.Content, text))
		m := archive.Message{ID: id, Role: c.Role, Text: text, TextSpans: spans, Sidechain: side, AgentID: agent, Ref: ref(l.N)}
		switch c.Role {
		case "user":
			m.Kind = "prompt"
			t := strings.TrimSpace(text)
			switch {
			case strings.HasPrefix(t, compactedPrefix):
				m.Kind = "summary"
			case strings.HasPrefix(t, "<system>"):
				m.Kind = "meta"
			}
		case "system":
			m.Kind = "meta"
		case "tool":
			m.Role, m.Kind = "user", "tool_result"
			m.ToolCallIDs = []string{c.ToolCallID}
			k.toolResult(c.ToolCallID, text, spans, l.N, f)
		case "assistant":
			m.Kind = "text"
			if think != "" {
				b.AddMessage(archive.Message{ID: id + "#think", Role: "assistant", Kind: "thinking", Text: think, Sidechain: side, AgentID: agent, Ref: ref(l.N)})
			}
			for _, tc := range c.ToolCalls {
				m.ToolCallIDs = append(m.ToolCallIDs, k.toolCall(tc, side, ref(l.N)))
			}
		}
		b.AddMessage(m)
	}
	if compIdx >= 0 && b.S.Compactions[compIdx].Summary == "" {
		b.S.Compactions[compIdx].Trigger = "manual"
		b.S.Compactions[compIdx].Summary = "[context rotated without a compaction summary: /clear or revert]"
	}
	k.prevKeys = keys
}

func (k *conv) toolCall(tc ctxToolCall, side bool, ref archive.RawRef) string {
	args := imp.Arguments(tc.Function.Arguments)
	id := cmp.Or(tc.ID, fmt.Sprintf("call_%d_%d", ref.File, ref.Line))
	addTool(k.b, archive.ToolExec{ID: id, Name: tc.Function.Name, Input: imp.StringJSON(args), Sidechain: side, Ref: ref, ResultRef: archive.RawRef{File: -1, Line: -1}}, []byte(args))
	return id
}

// addTool records a Kimi CLI or Kimi Code tool call with the JSON
// arguments args: its command, the files it names (in the registry too)
// and, for a main agent's SetTodoList, the task state. A call already
// recorded (re-read from a rotated file) keeps its first record.
func addTool(b *imp.Builder, t archive.ToolExec, args []byte) {
	var a map[string]json.RawMessage
	_ = json.Unmarshal(args, &a)
	op := imp.OpOther
	switch t.Name {
	case "Shell", "Bash", "bash", "shell":
		t.Command = imp.Str(a["command"])
	case "Read", "ReadFile", "ReadMediaFile":
		op = imp.OpRead
	case "Write", "WriteFile":
		op = imp.OpWrite
	case "Edit", "StrReplaceFile", "PatchFile", "EditFile":
		op = imp.OpEdit
	case "SetTodoList":
		var todos []imp.Todo
		if json.Unmarshal(a["todos"], &todos) == nil && !t.Sidechain {
			b.SetTodos(todos, time.Time{})
		}
	}
	if op != imp.OpOther {
		b.TouchArgs(&t, a, op, t.Timestamp, "path", "file_path")
	}
	if b.Tool(t.ID) == nil {
		b.AddTool(t)
	}
}

func (k *conv) toolResult(id, text string, spans []archive.Span, line, f int) {
	t := k.b.Tool(id)
	if t == nil {
		return
	}
	t.Output, t.OutputSpans = text, spans
	t.Success = !strings.HasPrefix(strings.TrimSpace(text), "<system>ERROR")
	t.ResultRef = archive.RawRef{File: f, Line: line}
}

type wireLine struct {
	Type            string  `json:"type"`
	ProtocolVersion string  `json:"protocol_version"`
	Timestamp       float64 `json:"timestamp"`
	Message         *struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	} `json:"message"`
}

func (k *conv) readWire(f int, agent string) {
	b := k.b
	if k.toolTimes == nil {
		k.toolTimes = map[string]wireTool{}
	}
	for _, w := range imp.Records[wireLine](b, f) {
		if w.Type == "metadata" {
			continue
		}
		if w.Message == nil {
			b.Unknown("wire/" + w.Type)
			continue
		}
		ts := imp.EpochTime(w.Timestamp)
		if agent == "" {
			b.SeeTime(ts) // the main wire log's times alone set the activity window so far
		}
		p := w.Message.Payload
		switch w.Message.Type {
		case "TurnBegin":
			if agent != "" {
				continue
			}
			var t struct {
				UserInput json.RawMessage `json:"user_input"`
			}
			_ = json.Unmarshal(p, &t)
			text, _ := contentText(t.UserInput)
			k.turns = append(k.turns, wireTurn{ts: ts, text: strings.TrimSpace(text)})
		case "ToolCall":
			var t struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(p, &t) == nil && t.ID != "" {
				x := k.toolTimes[t.ID]
				x.call = ts
				k.toolTimes[t.ID] = x
			}
		case "ToolResult":
			var t struct {
				ToolCallID  string `json:"tool_call_id"`
				ReturnValue struct {
					IsError *bool `json:"is_error"`
				} `json:"return_value"`
			}
			if json.Unmarshal(p, &t) == nil && t.ToolCallID != "" {
				x := k.toolTimes[t.ToolCallID]
				x.result = ts
				x.isError = t.ReturnValue.IsError
				k.toolTimes[t.ToolCallID] = x
			}
		case "StatusUpdate":
			if agent != "" {
				continue
			}
			var s struct {
				ContextTokens    *int64 `json:"context_tokens"`
				MaxContextTokens *int64 `json:"max_context_tokens"`
				TokenUsage       *struct {
					InputOther         int64 `json:"input_other"`
					Output             int64 `json:"output"`
					InputCacheRead     int64 `json:"input_cache_read"`
					InputCacheCreation int64 `json:"input_cache_creation"`
				} `json:"token_usage"`
			}
			if json.Unmarshal(p, &s) != nil {
				b.S.Import.Partial++
				continue
			}
			if s.ContextTokens != nil {
				k.ctxTokens, k.haveUsage = *s.ContextTokens, true
			}
			if s.MaxContextTokens != nil && *s.MaxContextTokens > 0 {
				k.maxTokens = *s.MaxContextTokens
			}
			if u := s.TokenUsage; u != nil {
				k.total += u.InputOther + u.Output + u.InputCacheRead + u.InputCacheCreation
			}
		case "TurnEnd", "StepBegin", "StepInterrupted", "CompactionBegin", "CompactionEnd", "ContentPart", "ToolCallPart",
			"SubagentEvent", "ApprovalRequest", "ApprovalResponse", "ApprovalRequestResolved", "Notification", "HookEvent",
			"HookTriggered", "HookResolved", "MCPLoadingBegin", "MCPLoadingEnd", "PlanDisplay", "ToolCallRequest",
			"QuestionRequest", "BtwBegin", "BtwEnd", "SteerInput":
		default:
			b.Unknown("wire/" + w.Message.Type)
		}
	}
}

// turnWindow bounds how far ahead a prompt looks for its TurnBegin.
const turnWindow = 64

// applyWire spreads the wire log's timestamps over the context messages:
// user prompts take their TurnBegin's time (in order, by text when it
// matches), tools their ToolCall/ToolResult times, and every other message
// the latest time known before it.
func (k *conv) applyWire() {
	b := k.b
	s := b.S
	ti := 0
	var cur time.Time
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Sidechain {
			for _, id := range m.ToolCallIDs {
				if w, ok := k.toolTimes[id]; ok {
					if m.Kind == "tool_result" && !w.result.IsZero() {
						m.Timestamp = w.result
					} else if !w.call.IsZero() {
						m.Timestamp = w.call
					}
				}
			}
			continue
		}
		if m.Role == "user" && m.Kind == "prompt" && ti < len(k.turns) {
			// Find the next turn whose input matches; else take the next.
			j := ti
			for x := ti; x < len(k.turns) && x < ti+turnWindow; x++ {
				if k.turns[x].text == strings.TrimSpace(m.Text) {
					j = x
					break
				}
			}
			cur = k.turns[j].ts
			ti = j + 1
		}
		for _, id := range m.ToolCallIDs {
			if w, ok := k.toolTimes[id]; ok {
				if m.Kind == "tool_result" && !w.result.IsZero() {
					cur = w.result
				} else if !w.call.IsZero() {
					cur = w.call
					break
				}
			}
		}
		if m.Timestamp.IsZero() {
			m.Timestamp = cur
		}
	}
	for i := range s.Tools {
		t := &s.Tools[i]
		if w, ok := k.toolTimes[t.ID]; ok {
			t.Timestamp = w.call
			if !w.call.IsZero() && w.result.After(w.call) {
				t.DurationMS = w.result.Sub(w.call).Milliseconds()
			}
			if w.isError != nil {
				t.Success = !*w.isError
			}
		}
	}
	for i := range s.Compactions {
		c := &s.Compactions[i]
		if c.MessageIndex < len(s.Messages) {
			c.Timestamp = s.Messages[c.MessageIndex].Timestamp
		}
	}
	if s.Tasks.UpdatedAt.IsZero() && len(s.Tasks.Active)+len(s.Tasks.Pending)+len(s.Tasks.Completed) > 0 {
		s.Tasks.UpdatedAt = s.Meta.LastActivity
	}
	if k.haveUsage {
		s.Meta.ContextTokens = k.ctxTokens
	}
	if k.maxTokens > 0 {
		s.Meta.ContextWindow = k.maxTokens
	}
	s.Meta.TotalTokens = k.total
}

func (k *conv) readState(f int) {
	b := k.b
	data := b.S.Raw[f].Data
	b.S.Import.Lines++
	var st struct {
		Title string     `json:"title"`
		Todos []imp.Todo `json:"todos"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		b.S.Import.Skipped++
		b.Problem(f, 0, "state.json: %v", err)
		return
	}
	if st.Title != "" {
		b.S.Meta.Title = st.Title
	}
	b.SetTodos(st.Todos, time.Time{})
}
