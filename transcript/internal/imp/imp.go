// Package imp holds what the per-assistant importers share: splitting a
// file into lines without size limits, the import report, the file registry
// and small JSON helpers. It is internal to package transcript.
package imp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
)

// MaxFileSize bounds one transcript file an importer reads into memory.
const MaxFileSize = 4 << 30

// MaxProblems bounds ImportReport.Problems.
const MaxProblems = 20

// ErrTooLarge reports a file above MaxFileSize.
var ErrTooLarge = errors.New("transcript file too large")

// ReadFile reads a whole file, refusing files above MaxFileSize and
// anything that is not a regular file.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes: %w", path, st.Size(), ErrTooLarge)
	}
	// Read to EOF rather than trusting Stat: the file may be growing.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	return data, nil
}

// Line is one line of a JSONL file.
type Line struct {
	N          int    // 0-based line number
	Data       []byte // without the line terminator (\n or \r\n)
	Terminated bool   // false for a last line with no newline
}

// Blank reports a line holding only white space (counted in
// ImportReport.Blank, not an error).
func (l Line) Blank() bool { return len(bytes.TrimSpace(l.Data)) == 0 }

// Builder accumulates a State and its report while an importer runs.
type Builder struct {
	S     *archive.State
	Root  string // absolute directory file paths are made relative to
	Cwd   string // the session's working directory, for relative paths
	ctx   context.Context
	err   error // why the import stopped (Stopped)
	files map[string]*archive.FileRecord
	tools map[string]int // tool call id -> index in S.Tools
}

// NewBuilder starts a State for harness h; the import stops when ctx is
// done (see Stopped).
func NewBuilder(ctx context.Context, h archive.Harness) *Builder {
	return &Builder{
		S: &archive.State{Meta: archive.Metadata{
			SchemaVersion: archive.SchemaVersion,
			Harness:       h,
			SessionCount:  1,
		}},
		ctx:   ctx,
		files: map[string]*archive.FileRecord{},
		tools: map[string]int{},
	}
}

// Stopped reports whether the import's context is done; the first time it
// is, it records where the import stopped (before line n, 0-based, of raw
// file f) in the error Finish returns.
func (b *Builder) Stopped(f, n int) bool {
	if b.err == nil && b.ctx.Err() != nil {
		return b.StoppedBefore(fmt.Sprintf("%s:%d", b.name(f), n+1))
	}
	return b.err != nil
}

// StoppedBefore is Stopped before what (a file to read, say).
func (b *Builder) StoppedBefore(what string) bool {
	if b.err == nil {
		if err := b.ctx.Err(); err != nil {
			b.err = fmt.Errorf("import stopped before %s: %w", what, err)
		}
	}
	return b.err != nil
}

// Lines yields the lines of raw file f (without copying, with no line
// length limit) until the import's context is done.
func (b *Builder) Lines(f int) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		data := b.S.Raw[f].Data
		for n := 0; len(data) > 0 && !b.Stopped(f, n); n++ {
			l := Line{N: n, Data: data}
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				l.Data, l.Terminated, data = data[:i], true, data[i+1:]
			} else {
				data = nil
			}
			l.Data = bytes.TrimSuffix(l.Data, []byte("\r"))
			if !yield(l) {
				return
			}
		}
	}
}

// Records yields the lines of raw file f that decode as a T (see Decode,
// which counts the others) until the import's context is done.
func Records[T any](b *Builder, f int) iter.Seq2[Line, *T] {
	return func(yield func(Line, *T) bool) {
		for l := range b.Lines(f) {
			v := new(T)
			if b.Decode(f, l, v) && !yield(l, v) {
				return
			}
		}
	}
}

// AddRaw appends an original file and returns its index for RawRef.File.
func (b *Builder) AddRaw(name string, data []byte) int {
	b.S.Raw = append(b.S.Raw, archive.RawFile{Name: name, Data: data})
	b.S.Import.Files++
	return len(b.S.Raw) - 1
}

// Problem records a problem "file:line: what" (line is 1-based in the text).
func (b *Builder) Problem(file int, line int, format string, args ...any) {
	if len(b.S.Import.Problems) >= MaxProblems {
		return
	}
	b.S.Import.Problems = append(b.S.Import.Problems, fmt.Sprintf("%s:%d: %s", b.name(file), line+1, fmt.Sprintf(format, args...)))
}

// name is raw file f's name, "?" when there is no such file.
func (b *Builder) name(f int) string {
	if f >= 0 && f < len(b.S.Raw) {
		return b.S.Raw[f].Name
	}
	return "?"
}

// Unknown counts a record type the importer does not interpret; the
// record stays in the raw file.
func (b *Builder) Unknown(typ string) {
	if b.S.Import.UnknownTypes == nil {
		b.S.Import.UnknownTypes = map[string]int{}
	}
	if len(typ) > 80 {
		typ = typ[:80]
	}
	b.S.Import.UnknownTypes[typ]++
}

// Decode unmarshals one JSONL line into v, counting it in the report.
// It returns false (after counting a skip or a truncated last line) when
// the line is not JSON. Blank lines return false and count nothing.
func (b *Builder) Decode(file int, l Line, v any) bool {
	if l.Blank() {
		if l.Terminated || len(l.Data) > 0 {
			b.S.Import.Blank++
		}
		return false
	}
	b.S.Import.Lines++
	if !utf8.Valid(l.Data) {
		b.S.Import.InvalidUTF8++
	}
	if err := json.Unmarshal(l.Data, v); err != nil {
		if !l.Terminated {
			b.S.Import.Truncated = true
			b.Problem(file, l.N, "incomplete last line (%d bytes)", len(l.Data))
		} else {
			b.Problem(file, l.N, "not JSON: %v", shortErr(err))
		}
		b.S.Import.Skipped++
		return false
	}
	return true
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// FileOp is how a tool touched a file.
type FileOp int

// File operations.
const (
	OpRead FileOp = iota
	OpEdit
	OpWrite
	OpOther
)

// Rel makes p relative to the builder's root when it is inside it; other
// absolute paths stay absolute. Relative paths are taken from Cwd when
// known, else kept (cleaned).
func (b *Builder) Rel(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if !filepath.IsAbs(p) && b.Cwd != "" && filepath.IsAbs(b.Cwd) {
		p = filepath.Join(b.Cwd, p)
	}
	if b.Root != "" && filepath.IsAbs(p) {
		if r, err := filepath.Rel(b.Root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return r
		}
	}
	return p
}

// Touch registers an access to path and returns its registry name.
func (b *Builder) Touch(path string, op FileOp, ts time.Time) string {
	p := b.Rel(path)
	if p == "" {
		return ""
	}
	r := b.files[p]
	if r == nil {
		r = &archive.FileRecord{Path: p}
		b.files[p] = r
	}
	r.AccessCount++
	switch op {
	case OpRead:
		r.Reads++
	case OpEdit:
		r.Edits++
	case OpWrite:
		r.Writes++
	}
	if ts.After(r.LastAccess) {
		r.LastAccess = ts
	}
	return p
}

// TouchArgs registers the files named by the string arguments keys of a
// tool call (args) as accessed by t with op, in that order.
func (b *Builder) TouchArgs(t *archive.ToolExec, args map[string]json.RawMessage, op FileOp, ts time.Time, keys ...string) {
	for _, k := range keys {
		if p := Str(args[k]); p != "" {
			t.RelatedFiles = AppendUnique(t.RelatedFiles, b.Touch(p, op, ts))
		}
	}
}

// AddTool appends a tool execution and indexes it by ID.
func (b *Builder) AddTool(t archive.ToolExec) int {
	b.S.Tools = append(b.S.Tools, t)
	i := len(b.S.Tools) - 1
	if t.ID != "" {
		if _, dup := b.tools[t.ID]; !dup {
			b.tools[t.ID] = i
		}
	}
	return i
}

// Tool returns the tool execution with the given call ID.
func (b *Builder) Tool(id string) *archive.ToolExec {
	i, ok := b.tools[id]
	if !ok {
		return nil
	}
	return &b.S.Tools[i]
}

// AddMessage appends a message and returns its index.
func (b *Builder) AddMessage(m archive.Message) int {
	b.S.Messages = append(b.S.Messages, m)
	return len(b.S.Messages) - 1
}

// SeeTime widens the session's activity window.
func (b *Builder) SeeTime(t time.Time) {
	if t.IsZero() {
		return
	}
	m := &b.S.Meta
	if m.FirstActivity.IsZero() || t.Before(m.FirstActivity) {
		m.FirstActivity = t
	}
	if t.After(m.LastActivity) {
		m.LastActivity = t
	}
}

// Finish fills the derived fields: file registry, counts, activity window,
// message file references. It returns the error that stopped the import,
// if any (Stopped).
func (b *Builder) Finish() (*archive.State, error) {
	if b.err != nil {
		return nil, b.err
	}
	s := b.S
	for _, m := range s.Messages {
		b.SeeTime(m.Timestamp)
	}
	for _, t := range s.Tools {
		b.SeeTime(t.Timestamp)
	}
	files := make([]archive.FileRecord, 0, len(b.files))
	for _, r := range b.files {
		files = append(files, *r)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	s.Files = files
	// Messages that issued tool calls reference the tools' files.
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Kind == "tool_result" || len(m.ToolCallIDs) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, f := range m.Files {
			seen[f] = true
		}
		for _, id := range m.ToolCallIDs {
			if t := b.Tool(id); t != nil {
				for _, f := range t.RelatedFiles {
					if !seen[f] {
						seen[f] = true
						m.Files = append(m.Files, f)
					}
				}
			}
		}
	}
	s.Meta.MessageCount = len(s.Messages)
	s.Meta.ToolCount = len(s.Tools)
	s.Meta.FileCount = len(s.Files)
	if s.Meta.CreatedAt.IsZero() {
		s.Meta.CreatedAt = s.Meta.FirstActivity
	}
	if s.Meta.UpdatedAt.IsZero() || s.Meta.LastActivity.After(s.Meta.UpdatedAt) {
		s.Meta.UpdatedAt = s.Meta.LastActivity
	}
	return s, nil
}

// ParseTime reads an RFC 3339 timestamp; the zero time when it is not one.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// EpochTime converts float seconds since the epoch; zero when out of range.
func EpochTime(f float64) time.Time {
	if f <= 0 || f > 1e11 {
		return time.Time{}
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC().Round(time.Microsecond)
}

// Spans locates a text read from the JSON string literal raw (quotes
// included, as encoding/json's RawMessage holds it) in its line: the
// first place the line holds those bytes. The archive then stores a
// pointer into the raw line instead of the text, once it has checked that
// the pointer gives the text back (a literal the text was not decoded
// from as it is keeps the text inline). nil when raw is no string or the
// line does not hold it.
func Spans(line, raw []byte) []archive.Span {
	if len(raw) < 2 || raw[0] != '"' || len(line) > math.MaxUint32 {
		return nil
	}
	off := bytes.Index(line, raw)
	if off < 0 {
		return nil
	}
	return []archive.Span{{Off: uint32(off), Len: uint32(len(raw))}}
}

// JSONText returns raw if it is valid JSON, else raw encoded as a JSON
// string, so ToolExec.Input is always JSON text.
func JSONText(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "null"
	}
	if json.Valid(t) {
		return string(t)
	}
	q, _ := json.Marshal(string(raw))
	return string(q)
}

// StringJSON returns s when it holds valid JSON, else s as a JSON string.
func StringJSON(s string) string { return JSONText([]byte(s)) }

// Quote encodes s as a JSON string.
func Quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// Str returns the string held by a raw JSON value, or "" when it is not a
// string.
func Str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// Arguments returns a tool call's arguments given as a JSON string (of
// JSON text) or as a JSON object.
func Arguments(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '{' {
		return string(raw)
	}
	return Str(raw)
}

// ShellCommand renders a command given as a string or an argv list; an
// argv of the form [bash -lc script] becomes the script.
func ShellCommand(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && (strings.HasSuffix(argv[0], "sh")) {
		return argv[2]
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$`\\|&;<>()*?[]{}") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

// PatchFiles lists the files an apply_patch envelope touches, with the
// operation on each ("*** Add File:", "*** Update File:", "*** Delete
// File:", "*** Move to:").
func PatchFiles(patch string) (paths []string, ops []FileOp) {
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []struct {
			prefix string
			op     FileOp
		}{{"*** Add File: ", OpWrite}, {"*** Update File: ", OpEdit}, {"*** Delete File: ", OpEdit}, {"*** Move to: ", OpWrite}} {
			if strings.HasPrefix(line, p.prefix) {
				if f := strings.TrimSpace(line[len(p.prefix):]); f != "" {
					paths = append(paths, f)
					ops = append(ops, p.op)
				}
			}
		}
	}
	return paths, ops
}

// AppendUnique appends s to list unless present or empty.
func AppendUnique(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Todo is one item of an assistant's todo list; its text is the first of
// title (Kimi), content (Kimi's state.json), description (Gemini CLI) and
// step (Codex's plan).
type Todo struct {
	Title       string `json:"title"`
	Content     string `json:"content"`
	Description string `json:"description"`
	Step        string `json:"step"`
	Status      string `json:"status"`
}

// SetTodos replaces the task state with a todo list, unless items is nil
// (no list). Each item's status, whatever the assistant calls it, makes it
// pending, in progress or completed; cancelled and unknown ones are left
// out.
func (b *Builder) SetTodos(items []Todo, ts time.Time) {
	if items == nil {
		return
	}
	s := archive.TaskState{UpdatedAt: ts}
	for _, t := range items {
		task := archive.Task{Content: cmp.Or(t.Title, t.Content, t.Description, t.Step)}
		switch strings.ToLower(strings.TrimSpace(strings.ReplaceAll(t.Status, " ", "_"))) {
		case "pending", "todo", "not_started":
			task.Status = "pending"
			s.Pending = append(s.Pending, task)
		case "in_progress", "inprogress", "active", "doing":
			task.Status = "in_progress"
			s.Active = append(s.Active, task)
		case "completed", "done", "complete", "finished":
			task.Status = "completed"
			s.Completed = append(s.Completed, task)
		}
	}
	b.S.Tasks = s
}

// defaultMaxFileContent caps one captured file when the options do not.
const defaultMaxFileContent = 8 << 20

// CaptureFiles implements ImportOptions.IncludeFileContents: it reads the
// registry's files inside root (relative paths) from disk into
// FileContents and sets their hash. Missing, non-regular, oversized and
// excluded files keep only their registry record.
func CaptureFiles(ctx context.Context, s *archive.State, root string, opt archive.ImportOptions) error {
	if !opt.IncludeFileContents || root == "" {
		return nil
	}
	limit := opt.MaxFileContent
	if limit <= 0 {
		limit = defaultMaxFileContent
	}
	for _, p := range opt.ExcludePatterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("exclude pattern %q: %w", p, err)
		}
	}
	for i := range s.Files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("capturing file contents: %w", err)
		}
		rel := s.Files[i].Path
		clean := filepath.Clean(rel)
		if filepath.IsAbs(rel) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || excluded(filepath.ToSlash(clean), opt.ExcludePatterns) {
			continue
		}
		// Non-blocking, so that a FIFO in the project cannot hang the
		// import; fstat then keeps regular files only.
		f, err := os.OpenFile(filepath.Join(root, clean), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() || st.Size() > limit {
			f.Close()
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		f.Close()
		if err != nil {
			return fmt.Errorf("capturing %s: %w", rel, err)
		}
		if int64(len(data)) > limit {
			continue
		}
		h := sha256.Sum256(data)
		s.Files[i].Hash = hex.EncodeToString(h[:])
		s.FileContents = append(s.FileContents, archive.FileContent{Path: rel, Data: data})
	}
	return nil
}

func excluded(rel string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
		if ok, _ := path.Match(p, path.Base(rel)); ok {
			return true
		}
	}
	return false
}
