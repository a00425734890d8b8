package watch

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/ben10ctx/ben10/archive"
)

// Session is one watched session.
type Session struct {
	Harness archive.Harness
	// ID is the assistant's session id: the transcript's base name
	// (claude), the rollout's UUID (codex), the sessionId of the first
	// record (gemini) or the session directory's name (kimi).
	ID string
	// Path is the file the importers read: the transcript, or for Kimi
	// the session's context.jsonl.
	Path string
	// Files are the files whose changes concern the session (for Kimi
	// context.jsonl and wire.jsonl).
	Files []string
	// TurnFile is the file user turns are counted in.
	TurnFile string
}

// Key identifies a session across assistants.
func (s *Session) Key() string { return string(s.Harness) + "/" + s.ID }

// headBytes is how much of a Gemini file sessionFor reads for its id.
const headBytes = 64 << 10

// sessionFor maps a matched file to its session; ok false for files that
// are not sessions (e.g. a Claude subagent file).
func sessionFor(h archive.Harness, path string) (*Session, bool) {
	base := filepath.Base(path)
	s := &Session{Harness: h, Path: path, Files: []string{path}, TurnFile: path}
	switch h {
	case archive.HarnessClaude:
		if !strings.HasSuffix(base, ".jsonl") || strings.HasPrefix(base, "agent-") {
			return nil, false
		}
		s.ID = strings.TrimSuffix(base, ".jsonl")
	case archive.HarnessCodex:
		name := strings.TrimSuffix(base, ".jsonl")
		if len(name) >= 36 && uuid.Validate(name[len(name)-36:]) == nil {
			s.ID = name[len(name)-36:]
		} else {
			s.ID = name
		}
	case archive.HarnessGemini:
		s.ID = geminiSessionID(path)
		if s.ID == "" {
			s.ID = strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
		}
	case archive.HarnessKimi:
		if id, code, ok := kimiOwnFile(path); ok {
			// The flat layout's <id>.jsonl, or a Kimi Code wire log: the
			// file is the session.
			s.ID = id
			if !code && strings.Contains(base, "_read_") {
				return nil, false // a subagent's context
			}
			break
		}
		dir := filepath.Dir(path)
		s.ID = filepath.Base(dir)
		s.Path = filepath.Join(dir, "context.jsonl")
		wire := filepath.Join(dir, "wire.jsonl")
		s.Files = []string{s.Path, wire}
		s.TurnFile = wire
	default:
		return nil, false
	}
	if s.ID == "" {
		return nil, false
	}
	return s, true
}

// geminiSessionID reads the sessionId of a Gemini session's first record
// (the metadata line of a .jsonl file, or the whole-file record).
func geminiSessionID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, headBytes))
	if strings.HasSuffix(path, ".jsonl") {
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			head = head[:i]
		}
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(head, &r) == nil {
			return r.SessionID
		}
		return ""
	}
	// Whole-file JSON: the key normally comes first.
	i := bytes.Index(head, []byte(`"sessionId"`))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(head[i+len(`"sessionId"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	var id string
	if json.NewDecoder(bytes.NewReader(bytes.TrimLeft(rest[1:], " \t\r\n"))).Decode(&id) != nil {
		return ""
	}
	return id
}

// maxTurnRead bounds how many new bytes one evaluation reads to count
// turns; beyond it the counter skips ahead to the tail.
const maxTurnRead = 8 << 20

// countTurns counts user turns in path from offset to the last complete
// line, returning the new offset. When the file shrank (rewritten), it
// starts over from the beginning of its tail.
func countTurns(h archive.Harness, path string, offset int64) (turns int, next int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, offset, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, offset, err
	}
	size := st.Size()
	if size < offset {
		offset = 0
	}
	if size-offset > maxTurnRead {
		offset = size - maxTurnRead
	}
	if size == offset {
		return 0, offset, nil
	}
	buf := make([]byte, size-offset)
	n, err := f.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return 0, offset, err
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return 0, offset, nil
	}
	for _, l := range bytes.Split(buf[:end], []byte("\n")) {
		if isTurn(h, bytes.TrimSpace(l)) {
			turns++
		}
	}
	return turns, offset + int64(end) + 1, nil
}

// isTurn recognizes a user turn in one line of each format.
func isTurn(h archive.Harness, l []byte) bool {
	if len(l) == 0 || l[0] != '{' {
		return false
	}
	switch h {
	case archive.HarnessClaude:
		if !bytes.Contains(l, []byte(`"user"`)) {
			return false
		}
		var r struct {
			Type             string `json:"type"`
			IsMeta           bool   `json:"isMeta"`
			IsSidechain      bool   `json:"isSidechain"`
			IsCompactSummary bool   `json:"isCompactSummary"`
			Message          struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "user" || r.IsMeta || r.IsSidechain || r.IsCompactSummary {
			return false
		}
		c := bytes.TrimSpace(r.Message.Content)
		return len(c) > 0 && (c[0] == '"' || c[0] == '[' && !bytes.Contains(c, []byte(`"tool_result"`)))
	case archive.HarnessCodex:
		if !bytes.Contains(l, []byte(`user_message`)) {
			return false
		}
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
			} `json:"payload"`
		}
		return json.Unmarshal(l, &r) == nil && r.Type == "event_msg" && r.Payload.Type == "user_message"
	case archive.HarnessGemini:
		if !bytes.Contains(l, []byte(`"user"`)) {
			return false
		}
		var r struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		}
		return json.Unmarshal(l, &r) == nil && r.Type == "user" && r.ID != ""
	case archive.HarnessKimi:
		if kimiTurn(l) {
			return true
		}
		if !bytes.Contains(l, []byte(`TurnBegin`)) {
			return false
		}
		var r struct {
			Message struct {
				Type string `json:"type"`
			} `json:"message"`
		}
		return json.Unmarshal(l, &r) == nil && r.Message.Type == "TurnBegin"
	}
	return false
}
