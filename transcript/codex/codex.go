package codex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// Import reads one Codex rollout file. When ctx is done it stops between
// two records with an error that wraps ctx.Err() and names the line.
func Import(ctx context.Context, path string, opt archive.ImportOptions) (*archive.State, error) {
	data, err := imp.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("codex: %w", err)
	}
	s, err := importBytes(ctx, filepath.Base(path), data, opt)
	if err == nil {
		err = imp.CaptureFiles(ctx, s, cmp.Or(opt.ProjectDir, s.Meta.DirectoryPath), opt)
	}
	if err != nil {
		return nil, fmt.Errorf("codex: %w", err)
	}
	return s, nil
}

// ImportBytes imports a rollout held in memory; name becomes the raw
// file's name. It never fails on content: what it cannot read is counted
// in the State's ImportReport.
func ImportBytes(name string, data []byte, opt archive.ImportOptions) (*archive.State, error) {
	return importBytes(context.Background(), name, data, opt)
}

func importBytes(ctx context.Context, name string, data []byte, opt archive.ImportOptions) (*archive.State, error) {
	b := imp.NewBuilder(ctx, archive.HarnessCodex)
	c := &conv{b: b, opt: opt}
	c.raw = b.AddRaw(cmp.Or(name, "rollout.jsonl"), data)
	c.parse()
	return b.Finish()
}

type envelope struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type rec struct {
	line int
	data []byte // the line
	ts   time.Time
	env  envelope
	typ  string // payload.type
}

type conv struct {
	b   *imp.Builder
	opt archive.ImportOptions
	raw int

	// response_item texts by role, for deduplicating event_msg copies:
	// exact texts anywhere, and texts by record position for the
	// containment check near an event.
	respExact map[string]map[string]bool
	respNear  map[string][]posText
	cur       int // index of the record being converted
	turnStart int // first message index of the current turn
	// cellExtra: a code-mode cell's call id → its other commands' ids
	// (codemode.go); agentSeen: agent messages already read.
	cellExtra map[string][]string
	agentSeen map[string]bool
}

func (c *conv) parse() {
	b := c.b
	var recs []rec
	c.respExact = map[string]map[string]bool{}
	c.respNear = map[string][]posText{}
	c.cellExtra = map[string][]string{}
	c.agentSeen = map[string]bool{}
	for l, e := range imp.Records[envelope](b, c.raw) {
		if i := bytes.Index(l.Data, e.Payload); i >= 0 {
			// The payload as a view of the line (the same bytes), not
			// the copy encoding/json made: the records are all held
			// until the end of the import.
			e.Payload = l.Data[i : i+len(e.Payload)]
		}
		r := rec{line: l.N, data: l.Data, ts: imp.ParseTime(e.Timestamp), env: *e}
		var head struct {
			Type string `json:"type"`
		}
		if len(e.Payload) > 0 && e.Payload[0] == '{' {
			_ = json.Unmarshal(e.Payload, &head)
		}
		r.typ = head.Type
		recs = append(recs, r)
		// The project root is the first session_meta or turn_context cwd
		// (unless the caller names one), known before any file path is
		// registered.
		if (e.Type == "session_meta" || e.Type == "turn_context") && b.S.Meta.DirectoryPath == "" {
			var p struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(e.Payload, &p) == nil {
				b.S.Meta.DirectoryPath = p.Cwd
			}
		}
		if e.Type == "response_item" {
			switch r.typ {
			case "message":
				var m respMessage
				if json.Unmarshal(e.Payload, &m) == nil {
					c.addResp(normRole(m.Role), len(recs)-1, contentText(m.Content))
				}
			case "reasoning":
				var m respReasoning
				if json.Unmarshal(e.Payload, &m) == nil {
					c.addResp("reasoning", len(recs)-1, reasoningText(m))
				}
			}
		}
	}
	b.Cwd = b.S.Meta.DirectoryPath
	b.Root = cmp.Or(c.opt.ProjectDir, b.S.Meta.DirectoryPath)
	for i, r := range recs {
		if b.Stopped(c.raw, r.line) {
			return
		}
		c.cur = i
		c.record(r)
	}
}

func (c *conv) record(r rec) {
	b := c.b
	switch r.env.Type {
	case "session_meta", "turn_context", "response_item", "event_msg", "compacted":
		if p := r.env.Payload; len(p) == 0 || p[0] != '{' {
			b.S.Import.Partial++
			b.Problem(c.raw, r.line, "%s payload is not an object", r.env.Type)
			return
		}
	}
	switch r.env.Type {
	case "session_meta":
		c.sessionMeta(r)
	case "turn_context":
		var p struct {
			Cwd   string `json:"cwd"`
			Model string `json:"model"`
		}
		if !c.decode(r, &p, "turn_context payload") {
			return
		}
		if p.Model != "" {
			b.S.Meta.Model = p.Model
		}
		b.SeeTime(r.ts)
	case "response_item":
		c.responseItem(r)
	case "event_msg":
		c.eventMsg(r)
	case "compacted":
		c.compacted(r)
	case "inter_agent_communication":
		var p struct {
			Author    string `json:"author"`
			Recipient string `json:"recipient"`
			Content   string `json:"content"`
		}
		if !c.decode(r, &p, "inter_agent_communication payload") {
			return
		}
		c.agentMessage(r, p.Author, p.Recipient, p.Content)
	case "inter_agent_communication_metadata", "world_state", "security_risk_score", "realtime_item":
		// Delivery flags, the harness's state snapshot, risk scores and
		// realtime audio items: kept raw only.
	default:
		b.Unknown(cmp.Or(r.env.Type, "(no type)"))
	}
}

func (c *conv) sessionMeta(r rec) {
	var p struct {
		ID         string `json:"id"`
		Timestamp  string `json:"timestamp"`
		Cwd        string `json:"cwd"`
		CLIVersion string `json:"cli_version"`
		Git        *struct {
			Branch string `json:"branch"`
		} `json:"git"`
	}
	m := &c.b.S.Meta
	if !c.decode(r, &p, "session_meta payload") {
		return
	}
	if m.SessionID != "" {
		// A forked session repeats its parent's meta; the first one names
		// this rollout.
		return
	}
	m.SessionID = p.ID
	m.ClientVersion = p.CLIVersion
	if p.Git != nil {
		m.GitBranch = p.Git.Branch
	}
	if t := imp.ParseTime(p.Timestamp); !t.IsZero() {
		m.CreatedAt = t
	} else {
		m.CreatedAt = r.ts
	}
	c.b.SeeTime(m.CreatedAt)
}

type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

type respMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Phase   string          `json:"phase"`
}

type respReasoning struct {
	Summary []contentItem `json:"summary"`
	Content []contentItem `json:"content"`
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []contentItem
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		switch it.Type {
		case "input_image", "image":
			parts = append(parts, "[image]")
		default:
			if it.Text != "" {
				parts = append(parts, it.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

func reasoningText(m respReasoning) string {
	var parts []string
	for _, it := range slices.Concat(m.Summary, m.Content) {
		if it.Text != "" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

func normRole(r string) string {
	switch r {
	case "developer", "system":
		return "system"
	case "assistant":
		return "assistant"
	}
	return "user"
}

// metaPrefixes mark user-role messages Codex injects itself.
var metaPrefixes = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>", "<INSTRUCTIONS>", "<turn_aborted>", "<user_shell_command>",
	"<recommended_plugins>", "<skills_instructions>", "<plugins_instructions>", "<apps_instructions>", "<collaboration_mode>",
	"<personality_spec>", "<model_switch>", "<subagent_notification>", "<world_state>"}

// summaryPrefix starts the user message carrying a local compaction summary.
const summaryPrefix = "Another language model started to solve this problem"

func (c *conv) ref(r rec) archive.RawRef { return archive.RawRef{File: c.raw, Line: r.line} }

func (c *conv) msgID(r rec) string { return "L" + strconv.Itoa(r.line+1) }

func (c *conv) responseItem(r rec) {
	b := c.b
	switch r.typ {
	case "message":
		var m respMessage
		if !c.decode(r, &m, "message payload") {
			return
		}
		role := normRole(m.Role)
		text := contentText(m.Content)
		kind := "text"
		switch role {
		case "user":
			kind = "prompt"
			own, injected := userText(m.Content)
			if injected {
				kind = "meta"
			} else {
				text = own
			}
			t := strings.TrimSpace(text)
			if strings.HasPrefix(t, summaryPrefix) {
				kind = "summary"
			}
		case "system":
			kind = "meta"
		}
		i := b.AddMessage(archive.Message{ID: c.msgID(r), Role: role, Kind: kind, Text: text, Timestamp: r.ts, Ref: c.ref(r)})
		if kind == "prompt" {
			c.turnStart = i
		}
	case "reasoning":
		var m respReasoning
		if !c.decode(r, &m, "reasoning payload") {
			return
		}
		if t := reasoningText(m); t != "" {
			b.AddMessage(archive.Message{ID: c.msgID(r), Role: "assistant", Kind: "thinking", Text: t, Timestamp: r.ts, Ref: c.ref(r)})
		}
	case "function_call":
		var f struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			CallID    string          `json:"call_id"`
		}
		if !c.decode(r, &f, "function_call payload") {
			return
		}
		args := imp.Arguments(f.Arguments)
		c.addCall(r, f.CallID, f.Name, imp.StringJSON(args), args)
	case "custom_tool_call":
		var f struct {
			Name   string `json:"name"`
			Input  string `json:"input"`
			CallID string `json:"call_id"`
			Status string `json:"status"`
		}
		if !c.decode(r, &f, "custom_tool_call payload") {
			return
		}
		i := c.addCall(r, f.CallID, f.Name, imp.Quote(f.Input), f.Input)
		if f.Name == "exec" {
			if cmds := cellCommands(f.Input); len(cmds) > 0 {
				t := &b.S.Tools[i]
				t.Command = cmds[0].cmd
				c.addCellCommands(r, t, cmds[1:])
			}
		}
	case "agent_message":
		var f struct {
			Author    string          `json:"author"`
			Recipient string          `json:"recipient"`
			Content   json.RawMessage `json:"content"`
		}
		if !c.decode(r, &f, "agent_message payload") {
			return
		}
		c.agentMessage(r, f.Author, f.Recipient, contentText(f.Content))
	case "local_shell_call":
		var f struct {
			CallID string `json:"call_id"`
			ID     string `json:"id"`
			Action struct {
				Command json.RawMessage `json:"command"`
			} `json:"action"`
		}
		if !c.decode(r, &f, "local_shell_call payload") {
			return
		}
		id := cmp.Or(f.CallID, f.ID)
		in, _ := json.Marshal(map[string]json.RawMessage{"command": f.Action.Command})
		c.addCall(r, id, "local_shell", string(in), string(in))
	case "web_search_call":
		var f struct {
			Status string          `json:"status"`
			Action json.RawMessage `json:"action"`
		}
		if !c.decode(r, &f, "web_search_call payload") {
			return
		}
		in := "{}"
		if len(f.Action) > 0 {
			in = imp.JSONText(f.Action)
		}
		i := c.addCall(r, "web_search_"+strconv.Itoa(r.line+1), "web_search", in, "")
		t := &b.S.Tools[i]
		t.Success = f.Status == "" || f.Status == "completed"
		t.ResultRef = c.ref(r)
	case "function_call_output", "custom_tool_call_output":
		var f struct {
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		}
		if !c.decode(r, &f, r.typ+" payload") {
			return
		}
		c.addOutput(r, f.CallID, f.Output)
	case "ghost_snapshot", "compaction", "compaction_summary", "other", "context_compaction", "compaction_trigger",
		"additional_tools", "tool_search_call", "tool_search_output", "image_generation_call":
		// Undo snapshots and opaque compaction items: kept raw only.
	default:
		b.Unknown("response_item/" + r.typ)
	}
}

// decode reads r's payload into v; a payload of another shape counts as
// partial (what names it in the problem).
func (c *conv) decode(r rec, v any, what string) bool {
	if json.Unmarshal(r.env.Payload, v) != nil {
		c.b.S.Import.Partial++
		c.b.Problem(c.raw, r.line, "%s: unexpected shape", what)
		return false
	}
	return true
}

// addCall records a tool call and attaches it to the assistant message of
// the current turn (creating an empty tool_use message when the call comes
// first).
func (c *conv) addCall(r rec, id, name, input, rawArgs string) int {
	b := c.b
	id = cmp.Or(id, "call_L"+strconv.Itoa(r.line+1))
	t := archive.ToolExec{ID: id, Name: name, Input: input, Timestamp: r.ts, Ref: c.ref(r), ResultRef: archive.RawRef{File: -1, Line: -1}}
	c.describe(&t, rawArgs, r.ts)
	i := b.AddTool(t)
	msgs := b.S.Messages
	if n := len(msgs); n > 0 && n-1 >= c.turnStart && msgs[n-1].Role == "assistant" && msgs[n-1].Kind == "text" || n > 0 && msgs[n-1].Kind == "tool_use" {
		msgs[n-1].ToolCallIDs = append(msgs[n-1].ToolCallIDs, id)
	} else {
		b.AddMessage(archive.Message{ID: c.msgID(r), Role: "assistant", Kind: "tool_use", Timestamp: r.ts, ToolCallIDs: []string{id}, Ref: c.ref(r)})
	}
	return i
}

// describe fills Command, RelatedFiles, the file registry and tasks from a
// tool's arguments.
func (c *conv) describe(t *archive.ToolExec, rawArgs string, ts time.Time) {
	b := c.b
	var args map[string]json.RawMessage
	_ = json.Unmarshal([]byte(rawArgs), &args)
	switch t.Name {
	case "shell", "container.exec", "local_shell", "shell_command", "exec_command", "unified_exec":
		for _, k := range []string{"command", "cmd"} {
			if v, ok := args[k]; ok {
				t.Command = imp.ShellCommand(v)
				break
			}
		}
		// The old shell tool also carried apply_patch as a command.
		if strings.Contains(t.Command, "*** Begin Patch") {
			c.patchFiles(t, t.Command, ts)
		}
	case "apply_patch":
		patch := rawArgs
		if v, ok := args["input"]; ok {
			patch = imp.Str(v)
		} else if v, ok := args["patch"]; ok {
			patch = imp.Str(v)
		}
		c.patchFiles(t, patch, ts)
	case "update_plan":
		var p struct {
			Plan []imp.Todo `json:"plan"`
		}
		if json.Unmarshal([]byte(rawArgs), &p) == nil {
			b.SetTodos(p.Plan, ts)
		}
	case "view_image", "read_file":
		b.TouchArgs(t, args, imp.OpRead, ts, "path", "file_path")
	}
}

func (c *conv) patchFiles(t *archive.ToolExec, patch string, ts time.Time) {
	paths, ops := imp.PatchFiles(patch)
	for i, p := range paths {
		t.RelatedFiles = imp.AppendUnique(t.RelatedFiles, c.b.Touch(p, ops[i], ts))
	}
}

var exitRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:)\s*(-?\d+)`)
})

func (c *conv) addOutput(r rec, id string, raw json.RawMessage) {
	b := c.b
	out, success, dur := outputText(raw)
	t := b.Tool(id)
	if t == nil {
		b.Problem(c.raw, r.line, "output for unknown call %q", id)
		b.S.Import.Partial++
		i := b.AddTool(archive.ToolExec{ID: id, Name: "(unknown)", Input: "null", Timestamp: r.ts, Ref: archive.RawRef{File: -1, Line: -1}})
		t = &b.S.Tools[i]
	}
	t.Output = out
	var spans []archive.Span
	if out != "" {
		spans = imp.Spans(r.data, raw)
	}
	t.OutputSpans = spans
	t.Success = success
	if dur > 0 {
		t.DurationMS = dur
	} else if !t.Timestamp.IsZero() && r.ts.After(t.Timestamp) {
		t.DurationMS = r.ts.Sub(t.Timestamp).Milliseconds()
	}
	t.ResultRef = c.ref(r)
	c.cellOutput(t)
	b.AddMessage(archive.Message{ID: c.msgID(r), Role: "user", Kind: "tool_result", Text: out, TextSpans: spans, Timestamp: r.ts, ToolCallIDs: []string{id}, Ref: c.ref(r)})
}

// outputText reads a function_call_output: a string (possibly the old
// shell JSON {output, metadata{exit_code,duration_seconds}}) or an array
// of content items, or an object {content, success}.
func outputText(raw json.RawMessage) (out string, success bool, durMS int64) {
	success = true
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var sh struct {
			Output   *string `json:"output"`
			Metadata *struct {
				ExitCode        *int    `json:"exit_code"`
				DurationSeconds float64 `json:"duration_seconds"`
			} `json:"metadata"`
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &sh) == nil && sh.Output != nil {
			out = *sh.Output
			if sh.Metadata != nil {
				if sh.Metadata.ExitCode != nil {
					success = *sh.Metadata.ExitCode == 0
				}
				durMS = int64(sh.Metadata.DurationSeconds * 1000)
			}
			return out, success, durMS
		}
		if m := exitRe().FindStringSubmatch(s); m != nil {
			success = m[1] == "0"
		}
		return s, success, 0
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		if obj.Success != nil {
			success = *obj.Success
		}
		return contentText(obj.Content), success, 0
	}
	return contentText(raw), success, 0
}

func (c *conv) eventMsg(r rec) {
	b := c.b
	p := r.env.Payload
	switch r.typ {
	case "user_message", "agent_message":
		var e struct {
			Message string `json:"message"`
		}
		if !c.decode(r, &e, r.typ+" payload") {
			return
		}
		role := "user"
		if r.typ == "agent_message" {
			role = "assistant"
		}
		if c.duplicate(role, e.Message) {
			return
		}
		kind := "text"
		if role == "user" {
			kind = "prompt"
		}
		i := b.AddMessage(archive.Message{ID: c.msgID(r), Role: role, Kind: kind, Text: e.Message, Timestamp: r.ts, Ref: c.ref(r)})
		if kind == "prompt" {
			c.turnStart = i
		}
	case "agent_reasoning", "agent_reasoning_raw_content":
		var e struct {
			Text string `json:"text"`
		}
		if !c.decode(r, &e, r.typ+" payload") {
			return
		}
		if e.Text == "" || c.duplicate("reasoning", e.Text) {
			return
		}
		b.AddMessage(archive.Message{ID: c.msgID(r), Role: "assistant", Kind: "thinking", Text: e.Text, Timestamp: r.ts, Ref: c.ref(r)})
	case "token_count":
		c.tokenCount(r)
	case "task_started", "turn_started":
		var e struct {
			ModelContextWindow int64 `json:"model_context_window"`
		}
		if json.Unmarshal(p, &e) == nil && e.ModelContextWindow > 0 {
			b.S.Meta.ContextWindow = e.ModelContextWindow
		}
	case "turn_aborted":
		var e struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(p, &e)
		b.AddMessage(archive.Message{ID: c.msgID(r), Role: "system", Kind: "meta", Text: "turn aborted: " + e.Reason, Timestamp: r.ts, Ref: c.ref(r)})
	case "patch_apply_end":
		var e struct {
			CallID  string                     `json:"call_id"`
			Success *bool                      `json:"success"`
			Changes map[string]json.RawMessage `json:"changes"`
		}
		if !c.decode(r, &e, "patch_apply_end payload") {
			return
		}
		t := b.Tool(e.CallID)
		if t != nil && e.Success != nil {
			t.Success = *e.Success
		}
		if e.Success != nil && !*e.Success {
			return
		}
		for _, f := range slices.Sorted(maps.Keys(e.Changes)) {
			var k struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(e.Changes[f], &k)
			op := imp.OpEdit
			if k.Type == "add" {
				op = imp.OpWrite
			}
			rel := b.Rel(f)
			if t == nil {
				b.Touch(f, op, r.ts)
			} else if !slices.Contains(t.RelatedFiles, rel) {
				t.RelatedFiles = append(t.RelatedFiles, b.Touch(f, op, r.ts))
			}
		}
	case "exec_command_end":
		var e struct {
			CallID   string `json:"call_id"`
			ExitCode *int   `json:"exit_code"`
		}
		if json.Unmarshal(p, &e) == nil && e.ExitCode != nil {
			if t := b.Tool(e.CallID); t != nil {
				t.Success = *e.ExitCode == 0
			}
		}
	case "sub_agent_activity":
		var e struct {
			AgentPath string `json:"agent_path"`
			Kind      string `json:"kind"`
		}
		if json.Unmarshal(p, &e) == nil && e.AgentPath != "" && e.Kind != "" {
			b.AddMessage(archive.Message{ID: c.msgID(r), Role: "system", Kind: "meta", Text: "sub-agent " + e.AgentPath + " " + e.Kind, AgentID: e.AgentPath, Timestamp: r.ts, Ref: c.ref(r)})
		}
	case "thread_settings_applied":
		var e struct {
			Settings struct {
				Model string `json:"model"`
			} `json:"thread_settings"`
		}
		if json.Unmarshal(p, &e) == nil && e.Settings.Model != "" {
			b.S.Meta.Model = e.Settings.Model
		}
	case "warning", "guardian_warning", "deprecation_notice", "hook_started", "hook_completed", "terminal_interaction",
		"exec_command_output_delta", "patch_apply_updated", "turn_diff", "thread_goal_updated", "thread_queue_changed",
		"session_configured", "mcp_startup_update", "mcp_startup_complete", "image_generation_begin", "image_generation_end",
		"collab_agent_spawn_begin", "collab_agent_interaction_begin", "collab_agent_interaction_end", "collab_waiting_begin",
		"collab_waiting_end", "collab_close_begin", "collab_close_end", "collab_resume_begin", "collab_resume_end",
		"agent_reasoning_section_break", "model_reroute", "turn_moderation_metadata", "request_user_input",
		"dynamic_tool_call_request", "dynamic_tool_call_response", "exec_approval_request", "apply_patch_approval_request",
		"request_permissions", "elicitation_request", "shutdown_complete", "raw_response_item", "raw_response_completed",
		"context_compacted", "task_complete", "turn_complete", "exec_command_begin", "patch_apply_begin",
		"entered_review_mode", "exited_review_mode", "undo_started", "undo_completed", "web_search_begin", "web_search_end",
		"mcp_tool_call_begin", "mcp_tool_call_end", "item_completed", "item_started", "plan_update", "error", "stream_error",
		"background_event", "thread_rolled_back", "thread_name_updated", "view_image_tool_call", "collab_agent_spawn_end":
		// Progress, approvals and UI events: the response items carry
		// the content.
	default:
		b.Unknown("event_msg/" + r.typ)
	}
}

type posText struct {
	rec  int
	text string
}

func (c *conv) addResp(role string, rec int, text string) {
	t := strings.TrimSpace(text)
	if c.respExact[role] == nil {
		c.respExact[role] = map[string]bool{}
	}
	c.respExact[role][t] = true
	c.respNear[role] = append(c.respNear[role], posText{rec, t})
}

// nearWindow is how many records around an event are searched for the
// response item it copies (they are written next to each other).
const nearWindow = 16

// duplicate reports an event text already present as a response item:
// exactly anywhere, or contained in a response item written near it (user
// events omit the context Codex injects into the item).
func (c *conv) duplicate(role, text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || c.respExact[role][t] {
		return true
	}
	near := c.respNear[role]
	i := sort.Search(len(near), func(i int) bool { return near[i].rec >= c.cur-nearWindow })
	for ; i < len(near) && near[i].rec <= c.cur+nearWindow; i++ {
		if strings.Contains(near[i].text, t) {
			return true
		}
	}
	return false
}

type usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

type tokenInfo struct {
	Total              *usage `json:"total_token_usage"`
	Last               *usage `json:"last_token_usage"`
	ModelContextWindow *int64 `json:"model_context_window"`
}

func (c *conv) tokenCount(r rec) {
	var e struct {
		Info *tokenInfo `json:"info"`
	}
	if !c.decode(r, &e, "token_count payload") {
		return
	}
	if e.Info == nil {
		return
	}
	m := &c.b.S.Meta
	if e.Info.Total != nil {
		m.TotalTokens = e.Info.Total.TotalTokens
	}
	if e.Info.Last != nil {
		m.ContextTokens = e.Info.Last.TotalTokens
		// The latest assistant reply of this turn gets its output count.
		msgs := c.b.S.Messages
		for i := len(msgs) - 1; i >= c.turnStart && i >= 0; i-- {
			if msgs[i].Role == "assistant" && msgs[i].Kind == "text" {
				if msgs[i].Tokens == 0 {
					msgs[i].Tokens = e.Info.Last.OutputTokens
				}
				break
			}
		}
	}
	if e.Info.ModelContextWindow != nil && *e.Info.ModelContextWindow > 0 {
		m.ContextWindow = *e.Info.ModelContextWindow
	}
}

func (c *conv) compacted(r rec) {
	b := c.b
	var p struct {
		Message            string            `json:"message"`
		ReplacementHistory []json.RawMessage `json:"replacement_history"`
	}
	if !c.decode(r, &p, "compacted payload") {
		return
	}
	summary := p.Message
	if summary == "" && p.ReplacementHistory != nil {
		summary = fmt.Sprintf("[remote compaction: %d items of opaque replacement history]", len(p.ReplacementHistory))
	}
	b.S.Compactions = append(b.S.Compactions, archive.Compaction{
		UUID:         c.msgID(r),
		Trigger:      "auto",
		PreTokens:    b.S.Meta.ContextTokens,
		Timestamp:    r.ts,
		Summary:      summary,
		MessageIndex: len(b.S.Messages),
		Ref:          c.ref(r),
	})
	b.AddMessage(archive.Message{ID: c.msgID(r), Role: "user", Kind: "summary", Text: summary, Timestamp: r.ts, Ref: c.ref(r)})
	c.turnStart = len(b.S.Messages)
}
