package hooknote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/ben10ctx/ben10/internal/hookfast"
)

// Event is a Claude Code hook event, by Claude Code's own name.
type Event string

// The events Ben10 handles.
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PostToolUse      Event = "PostToolUse"
	PreCompact       Event = "PreCompact"
	PostCompact      Event = "PostCompact"
	Stop             Event = "Stop"
	SessionEnd       Event = "SessionEnd"
)

// Events lists the handled events in the order a session meets them.
var Events = []Event{SessionStart, UserPromptSubmit, PostToolUse, PreCompact, PostCompact, Stop, SessionEnd}

// ErrUnknownEvent is returned by ParseEvent for a name Ben10 does not handle.
var ErrUnknownEvent = errors.New("unknown hook event")

// ParseEvent accepts Claude Code's name ("PreCompact") or its kebab-case
// form ("pre-compact"), in any letter case.
func ParseEvent(name string) (Event, error) {
	key := hookfast.EventKey(name)
	for _, e := range Events {
		if strings.ToLower(string(e)) == key {
			return e, nil
		}
	}
	return "", fmt.Errorf("%w %q (known: %s)", ErrUnknownEvent, name, eventList())
}

func eventList() string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// Kebab returns the kebab-case form of e ("pre-compact").
func (e Event) Kebab() string {
	var b strings.Builder
	for i, r := range string(e) {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Input is the JSON Claude Code writes to a hook's stdin: the common fields
// and every per-event field Ben10 reads. Unknown fields are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`
	AgentID        string `json:"agent_id,omitempty"`
	AgentType      string `json:"agent_type,omitempty"`

	// SessionStart
	Source string `json:"source,omitempty"` // startup | resume | clear | compact | fork
	Model  string `json:"model,omitempty"`
	// UserPromptSubmit
	Prompt string `json:"prompt,omitempty"`
	// PostToolUse
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	DurationMS   int64           `json:"duration_ms,omitempty"`
	// PreCompact / PostCompact
	Trigger            string `json:"trigger,omitempty"` // manual | auto
	CustomInstructions string `json:"custom_instructions,omitempty"`
	CompactSummary     string `json:"compact_summary,omitempty"`
	// Stop
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// SessionEnd
	Reason string `json:"reason,omitempty"` // clear | resume | logout | prompt_input_exit | other | …
}

// MaxInputBytes bounds what ReadInput accepts on stdin. PostToolUse inputs
// carry whole tool responses, so the cap is generous, but finite.
const MaxInputBytes = 64 << 20

// ErrBadInput wraps every failure to read or parse hook stdin.
var ErrBadInput = errors.New("bad hook input")

// ReadInput reads and parses one hook input from r, reading at most
// MaxInputBytes.
func ReadInput(r io.Reader) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading stdin: %w", ErrBadInput, err)
	}
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("%w: stdin is larger than %d bytes", ErrBadInput, MaxInputBytes)
	}
	return ParseInput(data)
}

// ParseInput parses one hook input.
func ParseInput(data []byte) (*Input, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: stdin is empty (expected Claude Code's hook JSON)", ErrBadInput)
	}
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("%w: stdin is not hook JSON: %w", ErrBadInput, err)
	}
	return &in, nil
}

// Output is the JSON a hook prints on stdout.
type Output struct {
	Continue           *bool           `json:"continue,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	SuppressOutput     bool            `json:"suppressOutput,omitempty"`
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is the event-specific part of Output.
type SpecificOutput struct {
	HookEventName     Event  `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// MaxAdditionalContext is Claude Code's cap on additionalContext; longer
// strings are replaced with a preview. Ben10 stays under it.
const MaxAdditionalContext = 10000

// IsEmpty reports whether o carries nothing worth printing.
func (o *Output) IsEmpty() bool {
	return o == nil || (o.Continue == nil && o.SystemMessage == "" && !o.SuppressOutput && o.HookSpecificOutput == nil)
}

// Write prints o as one JSON line, as a json.Encoder without HTML
// escaping writes it; an empty output prints nothing.
func (o *Output) Write(w io.Writer) error {
	if o.IsEmpty() {
		return nil
	}
	if o.HookSpecificOutput != nil && len([]rune(o.HookSpecificOutput.AdditionalContext)) > MaxAdditionalContext {
		return fmt.Errorf("additionalContext is %d characters, over Claude Code's %d", len([]rune(o.HookSpecificOutput.AdditionalContext)), MaxAdditionalContext)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}
