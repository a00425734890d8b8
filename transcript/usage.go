package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/gemini"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

// ErrNoUsage reports a session file without any usage record yet.
var ErrNoUsage = errors.New("transcript: no usage record in the session yet")

// Tail sizes ContextUsage reads: it starts with the last tailStart bytes
// and widens up to tailMax while no usage record is found.
const (
	tailStart = 256 << 10
	tailMax   = 32 << 20
)

// ClaudeWindow is the context window assumed for a Claude model: 200,000
// tokens, 1,000,000 for "[1m]" / "-1m" long-context variants (Claude Code
// states no window in the transcript).
func ClaudeWindow(model string) int64 {
	m := strings.ToLower(model)
	if strings.Contains(m, "[1m]") || strings.HasSuffix(m, "-1m") {
		return 1_000_000
	}
	return 200_000
}

// CodexWindow is the context window assumed for a Codex model when the
// rollout has no model_context_window (Codex reports 95% of the model's
// nominal window as usable):
//
//	gpt-5*            258,400 (272,000 × 95%)
//	gpt-4.1*        1,047,576
//	gpt-4o*           128,000
//	o3*, o4*, codex-mini 200,000
//	anything else     258,400
func CodexWindow(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "gpt-5"):
		return 258_400
	case strings.Contains(m, "gpt-4.1"):
		return 1_047_576
	case strings.Contains(m, "gpt-4o"):
		return 128_000
	case strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"), strings.Contains(m, "codex-mini"):
		return 200_000
	}
	return 258_400
}

// ContextUsage returns a session's latest context size and the window it
// counts against, reading only the tail of large files:
//
//	claude  latest non-sidechain assistant usage: input + cache_creation +
//	        cache_read tokens, against ClaudeWindow(model); 0 used right
//	        after a compact_boundary
//	codex   last token_count's last_token_usage.total_tokens against its
//	        model_context_window (else task_started's, else CodexWindow);
//	        0 used right after a compacted record
//	gemini  last gemini message's tokens input + output against
//	        gemini.TokenLimit(model); 0 used right after a $set.messages
//	        compression
//	kimi    last wire.jsonl StatusUpdate context_tokens / max_context_tokens,
//	        else the last context.jsonl _usage against kimi.ContextWindow
//
// h == "" detects the harness. ErrNoUsage when no record is found.
func ContextUsage(path string, h archive.Harness) (used, window int64, err error) {
	if h == "" {
		if h, err = Detect(path); err != nil {
			return 0, 0, err
		}
	}
	switch h {
	case archive.HarnessClaude:
		return claudeUsage(path)
	case archive.HarnessCodex:
		return codexUsage(path)
	case archive.HarnessGemini:
		return geminiUsage(path)
	case archive.HarnessKimi:
		return kimiUsage(path)
	}
	return 0, 0, fmt.Errorf("%w %q", ErrBadHarness, h)
}

// scanBack calls fn on the file's complete lines from the last one back,
// until fn returns true; ErrNoUsage when it never does. It reads a
// widening tail, never more than tailMax bytes.
func scanBack(path string, fn func(line []byte) bool) error {
	for n := int64(tailStart); ; n *= 4 {
		buf, cut, err := readTail(path, min(n, tailMax))
		if err != nil {
			return err
		}
		lines := bytes.Split(buf, []byte("\n"))
		start := 0
		if cut {
			start = 1 // the first line is cut
		}
		for i := len(lines) - 1; i >= start; i-- {
			l := bytes.TrimSpace(lines[i])
			if len(l) > 0 && fn(l) {
				return nil
			}
		}
		if !cut || n >= tailMax {
			return ErrNoUsage
		}
	}
}

// readTail reads the last n bytes of the file at path (all of it when
// shorter) and reports whether that cut anything off its start.
func readTail(path string, n int64) (buf []byte, cut bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("transcript: %w", err)
	}
	n = min(n, st.Size())
	buf = make([]byte, n)
	if _, err := f.ReadAt(buf, st.Size()-n); err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("transcript: %s: %w", path, err)
	}
	return buf, n < st.Size(), nil
}

func claudeUsage(path string) (used, window int64, err error) {
	err = scanBack(path, func(l []byte) bool {
		if bytes.Contains(l, []byte(`"compact_boundary"`)) {
			var r struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			}
			if json.Unmarshal(l, &r) == nil && r.Type == "system" && r.Subtype == "compact_boundary" {
				used, window = 0, ClaudeWindow("")
				return true
			}
		}
		if !bytes.Contains(l, []byte(`"assistant"`)) || !bytes.Contains(l, []byte(`"usage"`)) {
			return false
		}
		var r struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Model string `json:"model"`
				Usage *struct {
					Input         int64 `json:"input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "assistant" || r.IsSidechain || r.Message.Usage == nil {
			return false
		}
		u := r.Message.Usage
		used, window = u.Input+u.CacheCreation+u.CacheRead, ClaudeWindow(r.Message.Model)
		return true
	})
	return used, window, err
}

func codexUsage(path string) (used, window int64, err error) {
	haveUsed := false
	model := ""
	err = scanBack(path, func(l []byte) bool {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type               string `json:"type"`
				Model              string `json:"model"`
				ModelContextWindow *int64 `json:"model_context_window"`
				Info               *struct {
					Last *struct {
						TotalTokens int64 `json:"total_tokens"`
					} `json:"last_token_usage"`
					ModelContextWindow *int64 `json:"model_context_window"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &r) != nil {
			return false
		}
		p := r.Payload
		switch {
		case r.Type == "compacted" && !haveUsed:
			used, haveUsed = 0, true
		case r.Type == "event_msg" && p.Type == "token_count" && p.Info != nil:
			if !haveUsed && p.Info.Last != nil {
				used, haveUsed = p.Info.Last.TotalTokens, true
			}
			if window == 0 && p.Info.ModelContextWindow != nil && *p.Info.ModelContextWindow > 0 {
				window = *p.Info.ModelContextWindow
			}
		case r.Type == "event_msg" && p.Type == "task_started":
			if window == 0 && p.ModelContextWindow != nil && *p.ModelContextWindow > 0 {
				window = *p.ModelContextWindow
			}
		case r.Type == "turn_context" && model == "":
			model = p.Model
		}
		return haveUsed && (window > 0 || model != "")
	})
	if !haveUsed {
		return 0, 0, err
	}
	if window == 0 {
		window = CodexWindow(model)
	}
	return used, window, nil
}

func geminiUsage(path string) (used, window int64, err error) {
	if strings.HasSuffix(path, ".json") {
		return geminiLegacyUsage(path)
	}
	err = scanBack(path, func(l []byte) bool {
		if bytes.HasPrefix(l, []byte(`{"$set"`)) && bytes.Contains(l, []byte(`"messages"`)) {
			// A compression replaced the history after the last reply:
			// the earlier token counts are stale.
			var r struct {
				Set struct {
					Messages []json.RawMessage `json:"messages"`
				} `json:"$set"`
			}
			if json.Unmarshal(l, &r) == nil && r.Set.Messages != nil {
				used, window = 0, gemini.TokenLimit("")
				return true
			}
		}
		if !bytes.Contains(l, []byte(`"tokens"`)) {
			return false
		}
		var r struct {
			Type   string `json:"type"`
			Model  string `json:"model"`
			Tokens *struct {
				Input  int64 `json:"input"`
				Output int64 `json:"output"`
			} `json:"tokens"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "gemini" || r.Tokens == nil {
			return false
		}
		used, window = r.Tokens.Input+r.Tokens.Output, gemini.TokenLimit(r.Model)
		return true
	})
	return used, window, err
}

// geminiLegacyUsage finds the last "tokens" object of a whole-file JSON
// session in its tail, without parsing the whole record.
func geminiLegacyUsage(path string) (used, window int64, err error) {
	buf, _, err := readTail(path, tailMax)
	if err != nil {
		return 0, 0, err
	}
	tok := lastKey(buf, `"tokens":`)
	if tok < 0 {
		return 0, 0, ErrNoUsage
	}
	var t struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
	}
	if json.NewDecoder(bytes.NewReader(buf[tok:])).Decode(&t) != nil {
		return 0, 0, ErrNoUsage
	}
	model := ""
	if m := lastKey(buf, `"model":`); m >= 0 {
		_ = json.NewDecoder(bytes.NewReader(buf[m:])).Decode(&model)
	}
	return t.Input + t.Output, gemini.TokenLimit(model), nil
}

// lastKey returns the offset just after the last unescaped occurrence of
// key (a quoted JSON key with its colon), skipping white space; -1 if none.
func lastKey(buf []byte, key string) int {
	end := len(buf)
	for {
		i := bytes.LastIndex(buf[:end], []byte(key))
		if i < 0 {
			return -1
		}
		if i == 0 || buf[i-1] != '\\' {
			return len(buf) - len(bytes.TrimLeft(buf[i+len(key):], " \n\r\t"))
		}
		end = i
	}
}

func kimiUsage(path string) (used, window int64, err error) {
	if kimi.IsCodeWire(path) {
		return kimiCodeUsage(path)
	}
	dir, err := kimi.SessionDir(path)
	if err != nil {
		return 0, 0, err
	}
	werr := scanBack(filepath.Join(dir, "wire.jsonl"), func(l []byte) bool {
		if !bytes.Contains(l, []byte(`"StatusUpdate"`)) {
			return false
		}
		var r struct {
			Message struct {
				Type    string `json:"type"`
				Payload struct {
					ContextTokens    *int64 `json:"context_tokens"`
					MaxContextTokens int64  `json:"max_context_tokens"`
				} `json:"payload"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &r) != nil || r.Message.Type != "StatusUpdate" || r.Message.Payload.ContextTokens == nil {
			return false
		}
		used, window = *r.Message.Payload.ContextTokens, r.Message.Payload.MaxContextTokens
		return true
	})
	if werr == nil {
		if window <= 0 {
			window = kimi.ContextWindow("")
		}
		return used, window, nil
	}
	ctx := filepath.Join(dir, "context.jsonl")
	if _, ok := kimi.FlatFile(path); ok {
		ctx = path // the flat layout: the session's own file
	}
	cerr := scanBack(ctx, func(l []byte) bool {
		if !bytes.Contains(l, []byte(`"_usage"`)) {
			return false
		}
		var r struct {
			Role       string `json:"role"`
			TokenCount int64  `json:"token_count"`
		}
		if json.Unmarshal(l, &r) != nil || r.Role != "_usage" {
			return false
		}
		used = r.TokenCount
		return true
	})
	if cerr == nil {
		return used, kimi.ContextWindow(""), nil
	}
	if !errors.Is(cerr, ErrNoUsage) {
		return 0, 0, cerr
	}
	if werr != nil && !errors.Is(werr, ErrNoUsage) && !os.IsNotExist(errors.Unwrap(werr)) {
		return 0, 0, werr
	}
	return 0, 0, ErrNoUsage
}

// kimiCodeUsage reads the latest usage.record of a Kimi Code wire log.
func kimiCodeUsage(path string) (used, window int64, err error) {
	model := ""
	err = scanBack(path, func(l []byte) bool {
		if !bytes.Contains(l, []byte(`"usage.record"`)) {
			return false
		}
		var r struct {
			Type  string `json:"type"`
			Model string `json:"model"`
			Usage *struct {
				InputOther         int64 `json:"inputOther"`
				Output             int64 `json:"output"`
				InputCacheRead     int64 `json:"inputCacheRead"`
				InputCacheCreation int64 `json:"inputCacheCreation"`
			} `json:"usage"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "usage.record" || r.Usage == nil {
			return false
		}
		u := r.Usage
		used, model = u.InputOther+u.InputCacheRead+u.InputCacheCreation+u.Output, r.Model
		return true
	})
	if err != nil {
		return 0, 0, err
	}
	return used, kimi.ContextWindow(model), nil
}
