package recall

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Harness names the assistant a session came from (archive.Harness).
type Harness string

// Task is one todo item or task (archive.Task).
type Task struct {
	ID         string `msgpack:"id,omitempty" json:"id,omitempty"`
	Content    string `msgpack:"content" json:"content"`
	ActiveForm string `msgpack:"active_form,omitempty" json:"active_form,omitempty"`
	Status     string `msgpack:"status" json:"status"` // pending | in_progress | completed
}

// CommandBytes caps one command's text in a Recall (the first line of a
// multi-line command).
const CommandBytes = 600

// Recall is the small, bounded, msgpack-serializable distillate of a State
// that a digest is built from. It is stored in the archive's summaries
// segment so that a digest never needs the conversation: the latest user
// requests, the files touched (with read/edit/write counts and recency),
// the shell commands run with their outcome, the errors seen and whether
// they were later resolved, the task/todo state, decisions, compaction info
// and session facts. BuildRecall makes one; Digest renders one as text.
//
// Lists are ordered most relevant first: requests newest first, files and
// commands most recent first, errors newest first.
type Recall struct {
	Version     int                `msgpack:"v" json:"version"`
	Session     RecallSession      `msgpack:"session" json:"session"`
	Initial     *RecallRequest     `msgpack:"initial,omitempty" json:"initial_request,omitempty"`
	Requests    []RecallRequest    `msgpack:"requests" json:"requests"`
	Tasks       RecallTasks        `msgpack:"tasks" json:"tasks"`
	Files       []RecallFile       `msgpack:"files" json:"files"`
	Commands    []RecallCommand    `msgpack:"commands" json:"commands"`
	Errors      []RecallError      `msgpack:"errors" json:"errors"`
	Decisions   []RecallDecision   `msgpack:"decisions" json:"decisions"`
	Compactions []RecallCompaction `msgpack:"compactions" json:"compactions"`
	Omitted     RecallOmitted      `msgpack:"omitted" json:"omitted"`
}

// RecallSession holds the session facts a digest header shows.
type RecallSession struct {
	Harness       Harness   `msgpack:"harness" json:"harness"`
	SessionID     string    `msgpack:"session_id" json:"session_id"`
	Title         string    `msgpack:"title,omitempty" json:"title,omitempty"`
	Directory     string    `msgpack:"directory" json:"directory"`
	GitBranch     string    `msgpack:"git_branch,omitempty" json:"git_branch,omitempty"`
	Model         string    `msgpack:"model,omitempty" json:"model,omitempty"`
	ClientVersion string    `msgpack:"client_version,omitempty" json:"client_version,omitempty"`
	FirstActivity time.Time `msgpack:"first_activity" json:"first_activity"`
	LastActivity  time.Time `msgpack:"last_activity" json:"last_activity"`
	Messages      int       `msgpack:"messages" json:"messages"`
	ToolCalls     int       `msgpack:"tool_calls" json:"tool_calls"`
	Files         int       `msgpack:"files" json:"files"`
	ContextTokens int64     `msgpack:"context_tokens" json:"context_tokens"`
	ContextWindow int64     `msgpack:"context_window,omitempty" json:"context_window,omitempty"`
}

// RecallRequest is one user request (a typed prompt or slash command).
type RecallRequest struct {
	Text string    `msgpack:"text" json:"text"`
	Time time.Time `msgpack:"ts" json:"timestamp"`
}

// RecallTasks is the todo state: items in progress, pending, and the
// latest completed ones.
type RecallTasks struct {
	Active    []Task    `msgpack:"active" json:"active"`
	Pending   []Task    `msgpack:"pending" json:"pending"`
	Completed []Task    `msgpack:"completed" json:"completed"` // latest last
	UpdatedAt time.Time `msgpack:"updated_at" json:"updated_at"`
}

// RecallFile is one file, directory or glob pattern the session touched.
// Path is relative to the session's directory when inside it.
type RecallFile struct {
	Path     string    `msgpack:"path" json:"path"`
	Reads    int       `msgpack:"r,omitempty" json:"reads,omitempty"`
	Edits    int       `msgpack:"e,omitempty" json:"edits,omitempty"`
	Writes   int       `msgpack:"w,omitempty" json:"writes,omitempty"`
	Searches int       `msgpack:"s,omitempty" json:"searches,omitempty"` // Grep/Glob path or Glob pattern
	Last     time.Time `msgpack:"ts" json:"last_access"`
	Seq      int       `msgpack:"seq" json:"seq"` // order of last use (higher is later)
}

// Modified reports whether the file was edited or written.
func (f RecallFile) Modified() bool { return f.Edits+f.Writes > 0 }

// RecallCommand is one distinct shell command and its latest outcome.
// Command is whitespace-normalised; for a multi-line command it is the
// first line and Lines counts the original lines.
type RecallCommand struct {
	Command   string    `msgpack:"cmd" json:"command"`
	Lines     int       `msgpack:"lines,omitempty" json:"lines,omitempty"`
	Runs      int       `msgpack:"runs" json:"runs"`
	Failures  int       `msgpack:"fails,omitempty" json:"failures,omitempty"`
	OK        bool      `msgpack:"ok" json:"ok"` // outcome of the latest run
	Exit      int       `msgpack:"exit,omitempty" json:"exit,omitempty"`
	ExitKnown bool      `msgpack:"exit_known,omitempty" json:"exit_known,omitempty"`
	Error     string    `msgpack:"err,omitempty" json:"error,omitempty"`       // short error line of the latest failed run
	NoResult  bool      `msgpack:"nores,omitempty" json:"no_result,omitempty"` // the latest run has no recorded result (yet)
	Last      time.Time `msgpack:"ts" json:"last_run"`
	Seq       int       `msgpack:"seq" json:"seq"`
}

// RecallError is one distinct failure: a failed command or tool call.
type RecallError struct {
	Tool     string    `msgpack:"tool" json:"tool"`
	Subject  string    `msgpack:"subject" json:"subject"` // command, path or tool name
	Message  string    `msgpack:"msg" json:"message"`
	Count    int       `msgpack:"n" json:"count"`
	Resolved bool      `msgpack:"resolved" json:"resolved"`
	Time     time.Time `msgpack:"ts" json:"timestamp"`
	Seq      int       `msgpack:"seq" json:"seq"`
}

// RecallDecision is a decision, correction or stated preference.
type RecallDecision struct {
	Kind string    `msgpack:"kind" json:"kind"` // correction | preference | plan
	Text string    `msgpack:"text" json:"text"`
	Time time.Time `msgpack:"ts" json:"timestamp"`
}

// RecallCompaction is one compaction's facts (its summary text is not kept).
type RecallCompaction struct {
	Trigger   string    `msgpack:"trigger" json:"trigger"`
	PreTokens int64     `msgpack:"pre_tokens" json:"pre_tokens"`
	Time      time.Time `msgpack:"ts" json:"timestamp"`
}

// RecallOmitted counts the entries the caps left out, so a digest can say so.
type RecallOmitted struct {
	Requests    int `msgpack:"requests,omitempty" json:"requests,omitempty"`
	Files       int `msgpack:"files,omitempty" json:"files,omitempty"`
	Commands    int `msgpack:"commands,omitempty" json:"commands,omitempty"`
	Errors      int `msgpack:"errors,omitempty" json:"errors,omitempty"`
	Tasks       int `msgpack:"tasks,omitempty" json:"tasks,omitempty"`
	Decisions   int `msgpack:"decisions,omitempty" json:"decisions,omitempty"`
	Compactions int `msgpack:"compactions,omitempty" json:"compactions,omitempty"`
}

// OneLine makes s valid UTF-8 on one line: control characters and runs of
// whitespace become one space, leading and trailing ones go, invalid
// bytes become U+FFFD.
func OneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if isBreak(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// isBreak reports a rune OneLine turns into a space: ASCII controls and
// space (decided without the Unicode tables), and any other space,
// control or line separator.
func isBreak(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// CleanDir is directory path d without surrounding space and trailing
// separators.
func CleanDir(d string) string {
	d = strings.TrimSpace(d)
	for len(d) > 1 && (strings.HasSuffix(d, "/") || strings.HasSuffix(d, `\`)) {
		d = d[:len(d)-1]
	}
	return d
}
