package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

// CUSFVersion is the CUSF version written.
const CUSFVersion = "1.0.0"

// Exporter names this program in CUSF's _meta line.
const Exporter = "ben10/1"

// Now is the clock for exported_at; tests replace it.
var Now = time.Now

type cusfMeta struct {
	Meta struct {
		Format     string `json:"format"`
		Version    string `json:"version"`
		ExportedAt string `json:"exported_at"`
		Exporter   string `json:"exporter"`
	} `json:"_meta"`
}

type cusfStart struct {
	Type          string `json:"type"`
	SessionID     string `json:"session_id"`
	LLMSource     string `json:"llm_source"`
	LLMModel      string `json:"llm_model,omitempty"`
	Timestamp     string `json:"timestamp,omitempty"`
	Cwd           string `json:"cwd,omitempty"`
	Title         string `json:"title,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	GitBranch     string `json:"git_branch,omitempty"`
	ContextWindow int64  `json:"context_window,omitempty"`
}

type cusfUsage struct {
	Output int64 `json:"output"`
}

type cusfMessage struct {
	Type      string     `json:"type"`
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Timestamp string     `json:"timestamp,omitempty"`
	MessageID string     `json:"message_id,omitempty"`
	Kind      string     `json:"kind,omitempty"`
	Usage     *cusfUsage `json:"usage,omitempty"`
	Files     []string   `json:"files,omitempty"`
	Sidechain bool       `json:"sidechain,omitempty"`
	AgentID   string     `json:"agent_id,omitempty"`
}

type cusfToolUse struct {
	Type      string          `json:"type"`
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	ToolID    string          `json:"tool_id"`
	Timestamp string          `json:"timestamp,omitempty"`
	Command   string          `json:"command,omitempty"`
	Files     []string        `json:"files,omitempty"`
	Sidechain bool            `json:"sidechain,omitempty"`
}

type cusfToolResult struct {
	Type       string `json:"type"`
	ToolID     string `json:"tool_id"`
	Result     string `json:"result"`
	Success    bool   `json:"success"`
	Timestamp  string `json:"timestamp,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

type cusfEnd struct {
	Type           string `json:"type"`
	SessionID      string `json:"session_id"`
	Timestamp      string `json:"timestamp,omitempty"`
	TotalMessages  int    `json:"total_messages"`
	TotalToolCalls int    `json:"total_tool_calls"`
	TotalFiles     int    `json:"total_files"`
	Compactions    int    `json:"compactions"`
	TotalTokens    struct {
		Total         int64 `json:"total"`
		Context       int64 `json:"context"`
		ContextWindow int64 `json:"context_window,omitempty"`
	} `json:"total_tokens"`
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// CUSF writes s as CUSF JSONL. Messages whose kind is "summary" or
// "thinking" keep their role and carry the kind; compaction boundaries are
// system messages of kind "compaction".
func CUSF(w io.Writer, s *archive.State) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var meta cusfMeta
	meta.Meta.Format, meta.Meta.Version, meta.Meta.ExportedAt, meta.Meta.Exporter = "cusf", CUSFVersion, ts(Now()), Exporter
	m := s.Meta
	if err := enc.Encode(meta); err != nil {
		return err
	}
	start := cusfStart{Type: "session_start", SessionID: m.SessionID, LLMSource: string(m.Harness), LLMModel: m.Model,
		Timestamp: ts(earliest(m.FirstActivity, m.CreatedAt)), Cwd: m.DirectoryPath, Title: m.Title,
		ClientVersion: m.ClientVersion, GitBranch: m.GitBranch, ContextWindow: m.ContextWindow}
	if err := enc.Encode(start); err != nil {
		return err
	}
	messages := 0
	err := Walk(s, func(e Event) error {
		switch {
		case e.Message != nil:
			x := e.Message
			if x.Kind == "tool_use" && x.Text == "" {
				return nil // a carrier for tool calls only: the tool_use lines follow
			}
			messages++
			cm := cusfMessage{Type: "message", Role: x.Role, Content: x.Text, Timestamp: ts(x.Timestamp), MessageID: x.ID,
				Kind: x.Kind, Files: x.Files, Sidechain: x.Sidechain, AgentID: x.AgentID}
			if x.Tokens > 0 {
				cm.Usage = &cusfUsage{Output: x.Tokens}
			}
			return enc.Encode(cm)
		case e.Compaction != nil:
			c := e.Compaction
			messages++ // a "message" record like the others: total_messages counts it
			return enc.Encode(cusfMessage{Type: "message", Role: "system", Content: c.Summary, Timestamp: ts(c.Timestamp), MessageID: c.UUID, Kind: "compaction"})
		case e.Result:
			t := e.Tool
			return enc.Encode(cusfToolResult{Type: "tool_result", ToolID: t.ID, Result: t.Output, Success: t.Success, Timestamp: ts(t.Timestamp.Add(time.Duration(t.DurationMS) * time.Millisecond)), DurationMS: t.DurationMS})
		default:
			t := e.Tool
			in := json.RawMessage(t.Input)
			if !json.Valid(in) {
				q, _ := json.Marshal(t.Input)
				in = q
			}
			return enc.Encode(cusfToolUse{Type: "tool_use", ToolName: t.Name, ToolInput: in, ToolID: t.ID, Timestamp: ts(t.Timestamp), Command: t.Command, Files: t.RelatedFiles, Sidechain: t.Sidechain})
		}
	})
	if err != nil {
		return fmt.Errorf("export: cusf: %w", err)
	}
	last := m.LastActivity
	if last.IsZero() {
		last = m.UpdatedAt
	}
	end := cusfEnd{Type: "session_end", SessionID: m.SessionID, Timestamp: ts(last),
		TotalMessages: messages, TotalToolCalls: len(s.Tools), TotalFiles: len(s.Files), Compactions: len(s.Compactions)}
	end.TotalTokens.Total, end.TotalTokens.Context, end.TotalTokens.ContextWindow = m.TotalTokens, m.ContextTokens, m.ContextWindow
	if err := enc.Encode(end); err != nil {
		return err
	}
	return bw.Flush()
}

// JSON writes the model (State without raw files and file contents) as
// indented JSON.
func JSON(w io.Writer, s *archive.State) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("export: json: %w", err)
	}
	return nil
}

// earliest is the earliest non-zero time of ts (zero when all are): a
// session started at its first activity, or at the start an assistant
// records before it (Gemini CLI's startTime), never at a later save.
func earliest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if !t.IsZero() && (out.IsZero() || t.Before(out)) {
			out = t
		}
	}
	return out
}
