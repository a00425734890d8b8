package archive

import (
	"time"

	"github.com/ben10ctx/ben10/internal/recall"
)

// SchemaVersion is the version of the typed payloads (msgpack) stored in an
// archive's model segments. It changes when a field's meaning changes; adding
// a field does not change it (msgpack decoding ignores unknown fields).
const SchemaVersion = 1

// Harness names the assistant a session came from.
type Harness = recall.Harness

// The harnesses Ben10 imports.
const (
	HarnessClaude Harness = "claude"
	HarnessCodex  Harness = "codex"
	HarnessGemini Harness = "gemini"
	HarnessKimi   Harness = "kimi"
)

// State is everything a session's context holds: the PRD's ContextState.
// Each component is stored in its own segment(s) so that a reader pays only
// for what it reads. Importers (package transcript/...) build a State from an
// assistant's own files; Encode writes it as a .ctx archive.
type State struct {
	Meta         Metadata      `msgpack:"meta" json:"meta"`
	Messages     []Message     `msgpack:"messages" json:"messages"`
	Files        []FileRecord  `msgpack:"files" json:"files"`
	Tools        []ToolExec    `msgpack:"tools" json:"tools"`
	Tasks        TaskState     `msgpack:"tasks" json:"tasks"`
	Compactions  []Compaction  `msgpack:"compactions" json:"compactions"`
	Preferences  []Preference  `msgpack:"preferences" json:"preferences"`
	Raw          []RawFile     `msgpack:"-" json:"-"`
	FileContents []FileContent `msgpack:"-" json:"-"`
	Import       ImportReport  `msgpack:"import" json:"import"`
}

// Metadata is the small, always-read part of a State.
type Metadata struct {
	SchemaVersion int       `msgpack:"schema_version" json:"schema_version"`
	Harness       Harness   `msgpack:"harness" json:"harness"`
	CreatedAt     time.Time `msgpack:"created_at" json:"created_at"`
	UpdatedAt     time.Time `msgpack:"updated_at" json:"updated_at"`
	SessionCount  int       `msgpack:"session_count" json:"session_count"`
	DirectoryPath string    `msgpack:"directory_path" json:"directory_path"`
	DirectoryHash string    `msgpack:"directory_hash" json:"directory_hash"`
	SessionID     string    `msgpack:"session_id" json:"session_id"`
	SubagentIDs   []string  `msgpack:"subagent_ids" json:"subagent_ids,omitempty"`
	Title         string    `msgpack:"title" json:"title,omitempty"`
	ClientVersion string    `msgpack:"client_version" json:"client_version,omitempty"`
	GitBranch     string    `msgpack:"git_branch" json:"git_branch,omitempty"`
	Model         string    `msgpack:"model" json:"model,omitempty"`
	MessageCount  int       `msgpack:"message_count" json:"message_count"`
	ToolCount     int       `msgpack:"tool_count" json:"tool_count"`
	FileCount     int       `msgpack:"file_count" json:"file_count"`
	TotalTokens   int64     `msgpack:"total_tokens" json:"total_tokens"`
	ContextTokens int64     `msgpack:"context_tokens" json:"context_tokens"` // latest context usage
	ContextWindow int64     `msgpack:"context_window" json:"context_window,omitempty"`
	FirstActivity time.Time `msgpack:"first_activity" json:"first_activity"`
	LastActivity  time.Time `msgpack:"last_activity" json:"last_activity"`
}

// Message is one conversation message (PRD Message schema).
type Message struct {
	ID          string    `msgpack:"id" json:"id"`
	ParentID    string    `msgpack:"parent_id,omitempty" json:"parent_id,omitempty"`
	Role        string    `msgpack:"role" json:"role"`                     // user | assistant | system
	Kind        string    `msgpack:"kind,omitempty" json:"kind,omitempty"` // prompt, text, tool_result, summary, meta, …
	Text        string    `msgpack:"text" json:"text"`
	Timestamp   time.Time `msgpack:"ts" json:"timestamp"`
	Tokens      int64     `msgpack:"tokens,omitempty" json:"token_count,omitempty"`
	ToolCallIDs []string  `msgpack:"tool_calls,omitempty" json:"tool_calls,omitempty"`
	Files       []string  `msgpack:"files,omitempty" json:"file_references,omitempty"`
	Sidechain   bool      `msgpack:"sidechain,omitempty" json:"sidechain,omitempty"`
	AgentID     string    `msgpack:"agent_id,omitempty" json:"agent_id,omitempty"`
	Ref         RawRef    `msgpack:"ref" json:"-"`
	// TextSpans, when set, say where Text sits in the raw line Ref: Text is
	// the spans' texts joined with "\n" (see SpanText). Encode then stores
	// the pointer instead of the text.
	TextSpans []Span `msgpack:"tspans,omitempty" json:"-"`
}

// RawRef locates the raw line a record was read from: File indexes
// State.Raw, Line is the 0-based line number in that file.
type RawRef struct {
	File int `msgpack:"f" json:"file"`
	Line int `msgpack:"l" json:"line"`
}

// FileRecord is one entry of the file registry (PRD FileMetadata).
type FileRecord struct {
	Path        string    `msgpack:"path" json:"path"`                     // relative to the project root when inside it
	Hash        string    `msgpack:"hash,omitempty" json:"hash,omitempty"` // sha256 hex of last-known content
	AccessCount int       `msgpack:"access_count" json:"access_count"`
	Reads       int       `msgpack:"reads" json:"reads"`
	Edits       int       `msgpack:"edits" json:"edits"`
	Writes      int       `msgpack:"writes" json:"writes"`
	LastAccess  time.Time `msgpack:"last_access" json:"last_accessed"`
}

// ToolExec is one tool execution (PRD ToolExecution schema).
type ToolExec struct {
	ID           string    `msgpack:"id" json:"id"`
	Name         string    `msgpack:"name" json:"tool_name"`
	Input        string    `msgpack:"input" json:"input"` // JSON text of the tool input
	Output       string    `msgpack:"output" json:"output"`
	Success      bool      `msgpack:"success" json:"success"`
	DurationMS   int64     `msgpack:"duration_ms,omitempty" json:"duration_ms,omitempty"`
	Timestamp    time.Time `msgpack:"ts" json:"timestamp"`
	RelatedFiles []string  `msgpack:"files,omitempty" json:"related_files,omitempty"`
	Command      string    `msgpack:"command,omitempty" json:"command,omitempty"` // shell command, for shell tools
	Sidechain    bool      `msgpack:"sidechain,omitempty" json:"sidechain,omitempty"`
	Ref          RawRef    `msgpack:"ref" json:"-"`
	ResultRef    RawRef    `msgpack:"rref" json:"-"`
	// InputSpans locate Input in line Ref, OutputSpans locate Output in
	// line ResultRef (see Message.TextSpans).
	InputSpans  []Span `msgpack:"ispans,omitempty" json:"-"`
	OutputSpans []Span `msgpack:"ospans,omitempty" json:"-"`
}

// TaskState is the todo / task state (PRD TaskState).
type TaskState struct {
	Active    []Task    `msgpack:"active" json:"active_objectives"`
	Completed []Task    `msgpack:"completed" json:"completed_tasks"`
	Pending   []Task    `msgpack:"pending" json:"pending_items"`
	UpdatedAt time.Time `msgpack:"updated_at" json:"updated_at"`
}

// Task is one todo item or task.
type Task = recall.Task

// Compaction is one compaction boundary and the summary that followed it.
type Compaction struct {
	UUID          string    `msgpack:"uuid" json:"uuid"`
	Trigger       string    `msgpack:"trigger" json:"trigger"` // auto | manual
	PreTokens     int64     `msgpack:"pre_tokens" json:"pre_tokens"`
	PostTokens    int64     `msgpack:"post_tokens,omitempty" json:"post_tokens,omitempty"`
	Timestamp     time.Time `msgpack:"ts" json:"timestamp"`
	LogicalParent string    `msgpack:"logical_parent,omitempty" json:"logical_parent,omitempty"`
	Summary       string    `msgpack:"summary" json:"summary"`
	Legacy        bool      `msgpack:"legacy,omitempty" json:"legacy,omitempty"` // 1.0.x summary line
	MessageIndex  int       `msgpack:"message_index" json:"message_index"`       // messages before the boundary
	Ref           RawRef    `msgpack:"ref" json:"-"`
	// SummaryRef and SummarySpans locate Summary in the raw transcript
	// (the isCompactSummary line after the boundary).
	SummaryRef   RawRef `msgpack:"sref" json:"-"`
	SummarySpans []Span `msgpack:"sspans,omitempty" json:"-"`
}

// Preference is a user message that corrects the assistant or states a
// preference.
type Preference struct {
	Kind      string    `msgpack:"kind" json:"kind"` // correction | preference
	Text      string    `msgpack:"text" json:"text"`
	Timestamp time.Time `msgpack:"ts" json:"timestamp"`
	MessageID string    `msgpack:"message_id" json:"message_id"`
}

// RawFile is one original transcript file, byte for byte.
type RawFile struct {
	Name string // relative name: "<session>.jsonl", "<session>/subagents/agent-x.jsonl"
	Data []byte
}

// FileContent is a project file's content captured from disk at save time.
type FileContent struct {
	Path string
	Data []byte
}

// ImportReport counts what an importer could not take in whole.
type ImportReport struct {
	Lines        int            `msgpack:"lines" json:"lines"`
	Skipped      int            `msgpack:"skipped" json:"skipped"`
	Partial      int            `msgpack:"partial" json:"partial"`
	Truncated    bool           `msgpack:"truncated" json:"truncated"` // last line incomplete
	InvalidUTF8  int            `msgpack:"invalid_utf8" json:"invalid_utf8"`
	UnknownTypes map[string]int `msgpack:"unknown_types" json:"unknown_types,omitempty"`
	Problems     []string       `msgpack:"problems" json:"problems,omitempty"` // first few, "file:line: what"
	Blank        int            `msgpack:"blank" json:"blank"`                 // empty lines (skipped, not an error)
	Files        int            `msgpack:"files" json:"files"`                 // raw files read
}

// ImportOptions tune an importer (package transcript/...).
type ImportOptions struct {
	// ProjectDir is the project root that file paths are made relative to.
	// Empty: the session's own working directory as the transcript records it.
	ProjectDir string
	// NoSubagents skips sidechain files next to the main transcript.
	NoSubagents bool
	// IncludeFileContents captures the registry's files from disk (those
	// inside ProjectDir) into State.FileContents and sets their hash.
	IncludeFileContents bool
	// ExcludePatterns are path.Match patterns, tried against the file's
	// path relative to the project root and against its base name; a match
	// keeps the file's content out of the archive.
	ExcludePatterns []string
	// MaxFileContent caps one captured file's size (default 8 MiB); larger
	// files are recorded without content.
	MaxFileContent int64
	// Limit, when positive, reads only the first Limit bytes of the main
	// transcript, cut after its last complete line: the session as it was
	// when its file had that size (an append-only transcript keeps those
	// bytes). A queued save uses it to store exactly what preceded the
	// event it was queued for. Importers of other assistants ignore it.
	Limit int64
}
