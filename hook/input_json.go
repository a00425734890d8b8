package hook

import (
	"encoding/json"
	"errors"

	"github.com/ben10ctx/ben10/internal/jscan"
	"github.com/ben10ctx/ben10/internal/jsonw"
)

// The hook's stdin and stdout without encoding/json's reflection (see
// json_fields.go for the rules). unmarshalInput is json.Unmarshal(data,
// in); appendOutput is what a json.Encoder with SetEscapeHTML(false)
// writes for o.

var inputFields = newFieldSet("session_id", "transcript_path", "cwd", "hook_event_name",
	"permission_mode", "agent_id", "agent_type", "source", "model", "prompt", "tool_name",
	"tool_input", "tool_response", "tool_use_id", "duration_ms", "trigger",
	"custom_instructions", "compact_summary", "stop_hook_active", "reason")

// unmarshalInput decodes data into in as json.Unmarshal(data, in) does.
func unmarshalInput(data []byte, in *Input) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, in) // encoding/json's syntax error
	}
	err := decodeInput(data, docValue(data), in)
	if errors.Is(err, errFallback) {
		return json.Unmarshal(data, in)
	}
	return err
}

func decodeInput(b []byte, v jscan.Val, in *Input) error {
	switch c := v.Kind(b); c {
	case 'n':
		return nil
	case '{':
	default:
		return &jsonTypeError{"(top level)", jsonKind(c), "hook.Input"}
	}
	return eachField(b, v, inputFields, func(i int, x jscan.Val) error {
		switch i {
		case 0:
			return decString(b, x, "session_id", &in.SessionID)
		case 1:
			return decString(b, x, "transcript_path", &in.TranscriptPath)
		case 2:
			return decString(b, x, "cwd", &in.Cwd)
		case 3:
			return decString(b, x, "hook_event_name", &in.HookEventName)
		case 4:
			return decString(b, x, "permission_mode", &in.PermissionMode)
		case 5:
			return decString(b, x, "agent_id", &in.AgentID)
		case 6:
			return decString(b, x, "agent_type", &in.AgentType)
		case 7:
			return decString(b, x, "source", &in.Source)
		case 8:
			return decString(b, x, "model", &in.Model)
		case 9:
			return decString(b, x, "prompt", &in.Prompt)
		case 10:
			return decString(b, x, "tool_name", &in.ToolName)
		case 11:
			decRaw(b, x, &in.ToolInput)
			return nil
		case 12:
			decRaw(b, x, &in.ToolResponse)
			return nil
		case 13:
			return decString(b, x, "tool_use_id", &in.ToolUseID)
		case 14:
			return decInt(b, x, "duration_ms", &in.DurationMS)
		case 15:
			return decString(b, x, "trigger", &in.Trigger)
		case 16:
			return decString(b, x, "custom_instructions", &in.CustomInstructions)
		case 17:
			return decString(b, x, "compact_summary", &in.CompactSummary)
		case 18:
			return decBool(b, x, "stop_hook_active", &in.StopHookActive)
		default:
			return decString(b, x, "reason", &in.Reason)
		}
	})
}

// appendOutput appends o as json.NewEncoder with SetEscapeHTML(false)
// encodes it, final newline included.
func appendOutput(b []byte, o *Output) []byte {
	if o == nil {
		return append(b, "null\n"...)
	}
	first := true
	b = append(b, '{')
	if o.Continue != nil {
		if *o.Continue {
			b = append(member(b, &first, "continue"), "true"...)
		} else {
			b = append(member(b, &first, "continue"), "false"...)
		}
	}
	if o.SystemMessage != "" {
		b = jsonw.AppendString(member(b, &first, "systemMessage"), o.SystemMessage, false)
	}
	if o.SuppressOutput {
		b = append(member(b, &first, "suppressOutput"), "true"...)
	}
	if h := o.HookSpecificOutput; h != nil {
		b = append(member(b, &first, "hookSpecificOutput"), `{"hookEventName":`...)
		b = jsonw.AppendString(b, string(h.HookEventName), false)
		if h.AdditionalContext != "" {
			b = append(b, `,"additionalContext":`...)
			b = jsonw.AppendString(b, h.AdditionalContext, false)
		}
		b = append(b, '}')
	}
	return append(b, '}', '\n')
}
