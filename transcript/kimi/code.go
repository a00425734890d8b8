package kimi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// Kimi Code (the TypeScript successor of Kimi CLI) keeps a session as wire
// logs only, one per agent:
//
//	~/.kimi-code/sessions/wd_<slug>_<hash>/session_<uuid>/agents/<main|id>/wire.jsonl
//
// The first line is {"type":"metadata","protocol_version":"1.4",…}; every
// other line is a record {"type":"<area>.<event>","time":<ms>,…}:
// turn.prompt, context.append_message{message}, context.append_loop_event
// {event: step.begin, content.part, tool.call, tool.result, step.end},
// usage.record{model,usage}, llm.request{model}, context.apply_compaction
// {summary,tokensBefore,tokensAfter}, …. The raw files are named
// "session_<uuid>/agents/<agent>/wire.jsonl" (or by their base name
// outside that layout).

var codeAgentRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|/)(session_[^/]+)/agents/([^/]+)/wire\.jsonl$`)
})

// codeWire reports whether path is a Kimi Code wire log, or a directory
// (a session_<uuid> folder or an agent's folder) holding one; wire is the
// main agent's log.
func codeWire(path string) (wire string, ok bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		for _, c := range []string{filepath.Join(path, "agents", "main", "wire.jsonl"), filepath.Join(path, "wire.jsonl")} {
			if _, err := os.Stat(filepath.Join(filepath.Dir(c), "context.jsonl")); err == nil {
				continue // a Kimi CLI session directory
			}
			if IsCodeWire(c) {
				return c, true
			}
		}
		return "", false
	}
	if IsCodeWire(path) {
		return path, true
	}
	return "", false
}

// codeSniff is how much of a file IsCodeWire reads.
const codeSniff = 64 << 10

// IsCodeWire reports whether path is a Kimi Code wire log, by the head of
// the file: a metadata line with a protocol_version and records whose type
// is dotted ("context.append_message"), not Kimi CLI's {"message":{…}}
// envelopes.
func IsCodeWire(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	head := make([]byte, min(st.Size(), codeSniff))
	n, _ := f.Read(head)
	return codeHead(head[:n])
}

// codeHead reports whether head (the first bytes of a file) is a Kimi
// Code wire log.
func codeHead(head []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 4096), len(head)+1)
	meta := false
	for i := 0; sc.Scan() && i < 50; i++ {
		var r struct {
			Type            string          `json:"type"`
			ProtocolVersion string          `json:"protocol_version"`
			Message         json.RawMessage `json:"message"`
			Time            json.RawMessage `json:"time"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Type == "metadata" && r.ProtocolVersion != "":
			meta = true
		case meta && strings.Contains(r.Type, ".") && r.Time != nil:
			return true
		}
	}
	return false
}

// importCode reads the Kimi Code session whose main wire log is wire
// (with the other agents' logs beside it as subagents).
func importCode(ctx context.Context, wire string, opt archive.ImportOptions) (*archive.State, error) {
	abs, err := filepath.Abs(wire)
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	srcs := []source{{abs, filepath.Base(abs)}}
	sessionID := ""
	if m := codeAgentRe().FindStringSubmatch(filepath.ToSlash(abs)); m != nil {
		sessionID = strings.TrimPrefix(m[1], "session_")
		srcs[0].name = m[1] + "/agents/" + m[2] + "/wire.jsonl"
		if !opt.NoSubagents {
			agents := filepath.Dir(filepath.Dir(abs))
			others, _ := filepath.Glob(filepath.Join(agents, "*", "wire.jsonl"))
			sort.Strings(others)
			for _, o := range others {
				a := filepath.Base(filepath.Dir(o))
				if o == abs || len(srcs) >= MaxSessionFiles {
					continue
				}
				srcs = append(srcs, source{o, m[1] + "/agents/" + a + "/wire.jsonl"})
			}
		}
	}
	files, err := readFiles(ctx, srcs)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("kimi: %s: %w", wire, ErrNoContext)
	}
	s, err := importCodeFiles(ctx, files, opt)
	if err != nil {
		return nil, err
	}
	s.Meta.SessionID = cmp.Or(sessionID, strings.TrimSuffix(filepath.Base(abs), ".jsonl"))
	if err := imp.CaptureFiles(ctx, s, s.Meta.DirectoryPath, opt); err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	return s, nil
}

type codeRec struct {
	Type    string  `json:"type"`
	Time    float64 `json:"time"` // ms since the epoch
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Origin  *struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	} `json:"message"`
	Event        *codeEvent `json:"event"`
	Model        string     `json:"model"`
	MaxTokens    int64      `json:"maxTokens"`
	Usage        *codeUsage `json:"usage"`
	Summary      string     `json:"summary"`
	TokensBefore int64      `json:"tokensBefore"`
	TokensAfter  int64      `json:"tokensAfter"`
	Source       string     `json:"source"`
	WorkDir      string     `json:"workDir"`
	Cwd          string     `json:"cwd"`
}

type codeEvent struct {
	Type string `json:"type"`
	Part *struct {
		Type  string `json:"type"`
		Text  string `json:"text"`
		Think string `json:"think"`
	} `json:"part"`
	StepUUID   string          `json:"stepUuid"`
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"`
	Result     *struct {
		Output  json.RawMessage `json:"output"`
		IsError bool            `json:"isError"`
	} `json:"result"`
	Display *struct {
		Cwd string `json:"cwd"`
	} `json:"display"`
}

type codeUsage struct {
	InputOther         int64 `json:"inputOther"`
	Output             int64 `json:"output"`
	InputCacheRead     int64 `json:"inputCacheRead"`
	InputCacheCreation int64 `json:"inputCacheCreation"`
}

func importCodeFiles(ctx context.Context, files []archive.RawFile, opt archive.ImportOptions) (*archive.State, error) {
	b := imp.NewBuilder(ctx, archive.HarnessKimi)
	b.Root = opt.ProjectDir
	for _, f := range files {
		b.AddRaw(f.Name, f.Data)
	}
	for i := range files {
		agent := ""
		if i > 0 {
			agent = filepath.Base(filepath.Dir(files[i].Name))
			if agent == "." || agent == "" {
				agent = fmt.Sprintf("agent-%d", i)
			}
			b.S.Meta.SubagentIDs = append(b.S.Meta.SubagentIDs, agent)
		}
		readCode(b, i, agent)
	}
	m := &b.S.Meta
	if m.ContextWindow == 0 && m.Model != "" {
		m.ContextWindow = ContextWindow(m.Model)
	}
	if m.DirectoryPath != "" {
		m.DirectoryHash = MD5Dir(m.DirectoryPath)
	}
	s, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("kimi: %w", err)
	}
	return s, nil
}

// readCode reads one wire log (agent "" for the main agent's).
func readCode(b *imp.Builder, f int, agent string) {
	side := agent != ""
	trigger := ""
	lastStep, lastMsg := "", -1
	for l, r := range imp.Records[codeRec](b, f) {
		ts := time.Time{}
		if r.Time > 0 {
			ts = time.UnixMilli(int64(r.Time)).UTC()
		}
		ref := archive.RawRef{File: f, Line: l.N}
		id := fmt.Sprintf("%d:%d", f, l.N)
		msg := func(role, kind, text string) int {
			return b.AddMessage(archive.Message{ID: id, Role: role, Kind: kind, Text: text, Timestamp: ts, Sidechain: side, AgentID: agent, Ref: ref})
		}
		if !side && b.S.Meta.DirectoryPath == "" {
			b.S.Meta.DirectoryPath = cmp.Or(r.WorkDir, r.Cwd)
		}
		switch r.Type {
		case "context.append_message":
			if r.Message == nil {
				b.S.Import.Partial++
				continue
			}
			text, think := contentText(r.Message.Content)
			switch r.Message.Role {
			case "user":
				kind := "prompt"
				if o := r.Message.Origin; o != nil && o.Kind != "" && o.Kind != "user" {
					kind = "meta" // injected by the harness (plan mode, reminders)
				}
				msg("user", kind, text)
			case "assistant":
				if think != "" {
					msg("assistant", "thinking", think)
				}
				if text != "" {
					msg("assistant", "text", text)
				}
			case "system":
				msg("system", "meta", text)
			default:
				b.Unknown("wire/context.append_message/" + r.Message.Role)
			}
			lastStep = ""
		case "context.append_loop_event":
			if r.Event == nil {
				b.S.Import.Partial++
				continue
			}
			e := r.Event
			switch e.Type {
			case "content.part":
				if e.Part == nil {
					continue
				}
				kind, text := "text", e.Part.Text
				if e.Part.Type == "think" {
					kind, text = "thinking", e.Part.Think
				}
				if strings.TrimSpace(text) == "" {
					continue
				}
				if e.StepUUID != "" && e.StepUUID == lastStep && lastMsg >= 0 && b.S.Messages[lastMsg].Kind == kind {
					b.S.Messages[lastMsg].Text += "\n" + text
					continue
				}
				lastStep, lastMsg = e.StepUUID, msg("assistant", kind, text)
			case "tool.call":
				codeToolCall(b, e, ts, side, ref)
				i := msg("assistant", "tool_use", "")
				b.S.Messages[i].ToolCallIDs = []string{e.ToolCallID}
				lastStep = ""
			case "tool.result":
				out := ""
				if e.Result != nil {
					if out = imp.Str(e.Result.Output); out == "" && len(e.Result.Output) > 0 && e.Result.Output[0] != '"' {
						out = string(e.Result.Output)
					}
				}
				if t := b.Tool(e.ToolCallID); t != nil {
					t.Output, t.ResultRef = out, ref
					t.Success = e.Result != nil && !e.Result.IsError
					if !t.Timestamp.IsZero() && ts.After(t.Timestamp) {
						t.DurationMS = ts.Sub(t.Timestamp).Milliseconds()
					}
				}
				i := msg("user", "tool_result", "")
				b.S.Messages[i].ToolCallIDs = []string{e.ToolCallID}
			case "step.begin", "step.end":
			default:
				b.Unknown("wire/context.append_loop_event/" + e.Type)
			}
		case "usage.record":
			if u := r.Usage; u != nil {
				b.S.Meta.TotalTokens += u.InputOther + u.Output + u.InputCacheRead + u.InputCacheCreation
				if !side {
					b.S.Meta.ContextTokens = u.InputOther + u.InputCacheRead + u.InputCacheCreation + u.Output
				}
			}
		case "llm.request":
			if !side && r.Model != "" {
				b.S.Meta.Model = r.Model
			}
			if !side && r.MaxTokens > 0 {
				b.S.Meta.ContextWindow = r.MaxTokens
			}
		case "full_compaction.begin":
			trigger = r.Source
		case "context.apply_compaction":
			if side {
				continue
			}
			t := "auto"
			if trigger == "manual" {
				t = "manual"
			}
			b.S.Compactions = append(b.S.Compactions, archive.Compaction{
				UUID: id, Trigger: t, PreTokens: r.TokensBefore, PostTokens: r.TokensAfter, Timestamp: ts,
				Summary: r.Summary, MessageIndex: len(b.S.Messages), Ref: ref, SummaryRef: ref,
			})
			trigger = ""
		case "metadata", "turn.prompt", "config.update", "tools.set_active_tools", "llm.tools_snapshot",
			"permission.record_approval_result", "plan_mode.enter", "plan_mode.exit", "full_compaction.complete":
			// Known, not part of the model (turn.prompt repeats the
			// user message that context.append_message holds).
		default:
			b.Unknown("wire/" + r.Type)
		}
		b.SeeTime(ts)
	}
}

// codeToolCall records a tool.call event.
func codeToolCall(b *imp.Builder, e *codeEvent, ts time.Time, side bool, ref archive.RawRef) {
	id := e.ToolCallID
	if id == "" {
		id = fmt.Sprintf("call_%d_%d", ref.File, ref.Line)
		e.ToolCallID = id
	}
	input := "null"
	if len(e.Args) > 0 {
		input = string(e.Args)
	}
	if e.Display != nil && e.Display.Cwd != "" && b.S.Meta.DirectoryPath == "" && !side {
		b.S.Meta.DirectoryPath = e.Display.Cwd
	}
	addTool(b, archive.ToolExec{ID: id, Name: e.Name, Input: input, Timestamp: ts, Sidechain: side, Ref: ref, ResultRef: archive.RawRef{File: -1, Line: -1}}, e.Args)
}

// IsSessionDir reports whether dir is a Kimi session directory: a Kimi
// CLI one (context.jsonl) or a Kimi Code one (agents/main/wire.jsonl).
func IsSessionDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "context.jsonl")); err == nil {
		return true
	}
	_, ok := codeWire(dir)
	return ok
}
