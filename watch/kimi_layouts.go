package watch

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/transcript/kimi"
)

// kimiOwnFile reports whether a matched Kimi file is a session by itself:
// a flat-layout "<id>.jsonl" (code false) or a Kimi Code wire log (code
// true, the id being its session_<uuid> folder's).
func kimiOwnFile(path string) (id string, code bool, ok bool) {
	if id, ok := kimi.FlatFile(path); ok {
		return id, false, true
	}
	if kimi.IsCodeWire(path) {
		d := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(path)))) // session_<uuid>/agents/main/wire.jsonl
		if !strings.HasPrefix(d, "session_") {
			return strings.TrimSuffix(filepath.Base(path), ".jsonl"), true, true
		}
		return strings.TrimPrefix(d, "session_"), true, true
	}
	return "", false, false
}

// kimiTurn reports whether a line starts a user turn in a Kimi Code wire
// log (turn.prompt from the user) or a flat-layout context file (a user
// message that is not a <system> note).
func kimiTurn(l []byte) bool {
	switch {
	case bytes.Contains(l, []byte(`"turn.prompt"`)):
		var r struct {
			Type   string `json:"type"`
			Origin *struct {
				Kind string `json:"kind"`
			} `json:"origin"`
		}
		return json.Unmarshal(l, &r) == nil && r.Type == "turn.prompt" && (r.Origin == nil || r.Origin.Kind == "user")
	case bytes.Contains(l, []byte(`"role"`)) && bytes.Contains(l, []byte(`"user"`)):
		var r struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(l, &r) != nil || r.Role != "user" || r.Message != nil {
			return false
		}
		var s string
		if json.Unmarshal(r.Content, &s) == nil {
			return !strings.HasPrefix(strings.TrimSpace(s), "<system>")
		}
		return len(r.Content) > 0
	}
	return false
}
