package claudetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// maxBody bounds a request body the mock reads (Claude Code's requests
// carry the whole conversation and the tool schemas: a few hundred KiB).
const maxBody = 32 << 20

// Request is one request Claude Code sent to the mock.
type Request struct {
	// Seq numbers the requests from 1 in arrival order.
	Seq int
	// Method and Path as received (the query string is dropped).
	Method, Path string
	// Body is the raw request body.
	Body []byte
	// Messages is Body decoded when Path is a Messages API path.
	Messages MessagesRequest
}

// MessagesRequest is the part of a Messages API request body the tests
// look at.
type MessagesRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []Message       `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// Message is one message of a Messages API request.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Blocks returns the message's content as blocks; a string content is one
// text block.
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// Block is one content block of a request message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// IsMain reports whether the request is a turn of the conversation
// itself (it offers tools and is not a compaction) rather than one of
// Claude Code's side requests (title generation, quota check, compaction
// summary, …).
func (r Request) IsMain() bool {
	return r.Messages.Model != "" && len(r.Messages.Tools) > 0 && !r.IsCompaction()
}

// hookContextPrefix is how Claude Code hands a SessionStart hook's
// additionalContext to the model: inside a role "system" message.
const hookContextPrefix = "SessionStart hook additional context: "

// HookContext returns the SessionStart hook additional context the
// request carries (the text after "SessionStart hook additional context: "
// in its system messages, to the end of that message), or "".
func (r Request) HookContext() string {
	var parts []string
	for _, m := range r.Messages.Messages {
		if m.Role != "system" {
			continue
		}
		for _, b := range m.Blocks() {
			if i := strings.Index(b.Text, hookContextPrefix); i >= 0 {
				parts = append(parts, b.Text[i+len(hookContextPrefix):])
			}
		}
	}
	return strings.Join(parts, "\n")
}

// Texts returns every text of the request's messages (text blocks and
// string tool results), in order.
func (r Request) Texts() []string {
	var out []string
	for _, m := range r.Messages.Messages {
		for _, b := range m.Blocks() {
			switch {
			case b.Text != "":
				out = append(out, b.Text)
			case b.Type == "tool_result":
				var s string
				if json.Unmarshal(b.Content, &s) == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// IsCompaction reports whether the request asks for a compaction summary.
func (r Request) IsCompaction() bool {
	if len(r.Messages.Messages) == 0 {
		return false
	}
	last := r.Messages.Messages[len(r.Messages.Messages)-1]
	for _, b := range last.Blocks() {
		if b.Type == "text" && strings.Contains(b.Text, "summary of the conversation so far") {
			return true
		}
	}
	return false
}

// Reply is what the mock answers to a Messages request: text and tool
// calls, in order.
type Reply struct {
	Blocks []ReplyBlock
}

// ReplyBlock is one content block of a Reply.
type ReplyBlock struct {
	Text  string         // a text block when Tool is ""
	Tool  string         // a tool_use block calling this tool
	Input map[string]any // the tool's input
}

// Text is a Reply of one text block.
func Text(s string) Reply { return Reply{Blocks: []ReplyBlock{{Text: s}}} }

// ToolUse is a Reply that calls tool with input.
func ToolUse(tool string, input map[string]any) Reply {
	return Reply{Blocks: []ReplyBlock{{Tool: tool, Input: input}}}
}

// Responder decides the mock's reply to a Messages request.
type Responder func(Request) Reply

// API is a mock of the Anthropic Messages API on 127.0.0.1. It records
// every request and answers Messages requests with its Responder,
// streaming or not as asked; other endpoints get small sensible answers.
type API struct {
	// URL is the base URL to put in ANTHROPIC_BASE_URL.
	URL string

	srv     *http.Server
	ln      net.Listener
	ids     atomic.Int64
	mu      sync.Mutex
	reqs    []Request
	respond Responder
	notify  chan struct{}
}

// NewAPI starts a mock on a free port of 127.0.0.1. respond may be nil
// (every answer is then the text "OK."). Close stops it.
func NewAPI(respond Responder) (*API, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("claudetest: mock API listen: %w", err)
	}
	a := &API{URL: "http://" + ln.Addr().String(), ln: ln, respond: respond, notify: make(chan struct{}, 1)}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve)}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// SetResponder replaces the Responder for the requests that follow.
func (a *API) SetResponder(r Responder) {
	a.mu.Lock()
	a.respond = r
	a.mu.Unlock()
}

// Close stops the server.
func (a *API) Close() error { return a.srv.Close() }

// Requests returns a copy of every request received so far.
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.reqs...)
}

// MainRequests returns the conversation turns received so far (IsMain).
func (a *API) MainRequests() []Request {
	var out []Request
	for _, r := range a.Requests() {
		if r.IsMain() {
			out = append(out, r)
		}
	}
	return out
}

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	isMessages := r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages")
	if isMessages {
		_ = json.Unmarshal(body, &req.Messages)
	}
	a.mu.Lock()
	req.Seq = len(a.reqs) + 1
	a.reqs = append(a.reqs, req)
	respond := a.respond
	a.mu.Unlock()
	select {
	case a.notify <- struct{}{}:
	default:
	}

	switch {
	case isMessages && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
	case isMessages:
		reply := Text("OK.")
		if respond != nil {
			reply = respond(req)
		}
		a.answer(w, req, reply)
	default:
		// Anything else Claude Code asks (account, settings, quota,
		// metrics): an empty JSON object is accepted as "nothing to say".
		writeJSON(w, map[string]any{})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// answer writes reply as a Messages API response, as SSE when the request
// asked to stream.
func (a *API) answer(w http.ResponseWriter, req Request, reply Reply) {
	model := req.Messages.Model
	if model == "" {
		model = "claude-mock"
	}
	id := fmt.Sprintf("msg_mock%06d", a.ids.Add(1))
	content := make([]map[string]any, 0, len(reply.Blocks))
	stop := "end_turn"
	outTokens := 0
	for i, b := range reply.Blocks {
		if b.Tool != "" {
			in := b.Input
			if in == nil {
				in = map[string]any{}
			}
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock%06d_%d", a.ids.Load(), i), "name": b.Tool, "input": in})
			stop = "tool_use"
			outTokens += 20
			continue
		}
		content = append(content, map[string]any{"type": "text", "text": b.Text})
		outTokens += 1 + len(b.Text)/4
	}
	inTokens := 1 + len(req.Body)/4
	usage := map[string]any{"input_tokens": inTokens, "output_tokens": outTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Messages.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": inTokens, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	for i, c := range content {
		if c["type"] == "tool_use" {
			in, _ := json.Marshal(c["input"])
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		} else {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
