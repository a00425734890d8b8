package claude

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/jscan"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// Limits that keep hostile input from costing unbounded memory or time.
const (
	// MaxFileSize is the largest transcript file Import reads (4 GiB).
	MaxFileSize = 4 << 30
	// MaxModelLine is the longest line the model parses (64 MiB); longer
	// lines stay in the raw transcript and are counted as skipped.
	MaxModelLine = 64 << 20
	// maxProblems caps ImportReport.Problems.
	maxProblems = 20
)

// ErrNotTranscript is returned when the input holds no Claude Code line at
// all (not one line parsed as a JSON object).
var ErrNotTranscript = errors.New("claude: not a Claude Code transcript")

// ErrTooLarge is returned for a file over MaxFileSize.
var ErrTooLarge = errors.New("claude: transcript file too large")

// Import reads a Claude Code transcript (`<session>.jsonl`) and, unless
// opt.NoSubagents, every `<session>/subagents/*.jsonl` next to it, and
// builds the context model. The raw files are kept byte for byte in
// State.Raw (main file first, then subagent files sorted by name). When
// ctx is done it stops between two lines with an error that wraps
// ctx.Err().
func Import(ctx context.Context, p string, opt archive.ImportOptions) (*archive.State, error) {
	files, err := ReadFiles(p, opt)
	if err != nil {
		return nil, err
	}
	st, err := importFiles(ctx, files, nil, opt, false)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("claude: import of %s stopped: %w", p, err)
	}
	return st, err
}

// ReadFiles reads the raw files Import would import: the transcript at p
// and, unless opt.NoSubagents, every `<session>/subagents/*.jsonl` next to
// it (sorted by name), each checked against MaxFileSize.
func ReadFiles(p string, opt archive.ImportOptions) ([]archive.RawFile, error) {
	var data []byte
	var err error
	if opt.Limit > 0 {
		data, err = readPrefix(p, opt.Limit)
	} else {
		data, err = readFileLimited(p)
	}
	if err != nil {
		return nil, err
	}
	return readSubagents(p, opt, []archive.RawFile{{Name: filepath.Base(p), Data: data}})
}

// readSubagents appends the subagent files of the transcript at p to files
// (see ReadFiles).
func readSubagents(p string, opt archive.ImportOptions, files []archive.RawFile) ([]archive.RawFile, error) {
	base := filepath.Base(p)
	// Subagent files live in <session>/subagents/ next to <session>.jsonl;
	// a transcript not named *.jsonl has no such folder.
	if !opt.NoSubagents && strings.HasSuffix(base, ".jsonl") {
		session := strings.TrimSuffix(base, ".jsonl")
		subdir := filepath.Join(filepath.Dir(p), session, "subagents")
		ents, err := os.ReadDir(subdir)
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, fmt.Errorf("claude: reading subagents of %s: %w", p, err)
		}
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			d, err := readFileLimited(filepath.Join(subdir, n))
			if err != nil {
				return nil, err
			}
			files = append(files, archive.RawFile{Name: session + "/subagents/" + n, Data: d})
		}
	}
	return files, nil
}

// ImportReader imports a single transcript read from r (no subagent
// files); name is its file name, e.g. "<session>.jsonl".
func ImportReader(r io.Reader, name string, opt archive.ImportOptions) (*archive.State, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("claude: reading %s: %w", name, err)
	}
	if int64(len(data)) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, name)
	}
	return ImportFiles([]archive.RawFile{{Name: name, Data: data}}, opt)
}

// readPrefix reads the first limit bytes of the regular file at p (at
// most MaxFileSize), cut after the last newline they hold: the complete
// lines the file had when it was limit bytes long. A file now shorter
// than limit was rewritten, not appended to: an error.
func readPrefix(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("claude: %s is not a regular file", p)
	}
	if limit > MaxFileSize {
		return nil, fmt.Errorf("%w: %s (%d bytes)", ErrTooLarge, p, limit)
	}
	if fi.Size() < limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, shorter than the %d it had", ErrRewritten, p, fi.Size(), limit)
	}
	data := make([]byte, limit, limit+spare(limit))
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("claude: reading %s: %w", p, err)
	}
	return data[:bytes.LastIndexByte(data, '\n')+1], nil
}

// spare is the capacity a transcript of size bytes is read with beyond
// them: room for the redacted bytes to be written over the file read
// when placeholders lengthen it a little (archive.Encoder.StartRaw), and
// for the byte that tells the end of the file.
func spare(size int64) int64 {
	return size/256 + 4096
}

// ErrRewritten: a transcript is shorter than a size it had, so it was
// rewritten rather than appended to.
var ErrRewritten = errors.New("claude: transcript was rewritten")

// readFileLimited reads the regular file at p, of at most MaxFileSize
// bytes.
func readFileLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("claude: %s is not a regular file", p)
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s (%d bytes)", ErrTooLarge, p, fi.Size())
	}
	data := make([]byte, 0, fi.Size()+spare(fi.Size()))
	prefault(data)
	if data, err = readAllInto(f, data); err != nil {
		return nil, fmt.Errorf("claude: reading %s: %w", p, err)
	}
	if int64(len(data)) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, p)
	}
	return data, nil
}

func readAllInto(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if int64(len(b)) > MaxFileSize {
			return b, nil
		}
	}
}

// ImportFiles builds the model from raw transcript files already in
// memory: files[0] is the main transcript, the others its sidechain
// (subagent) files. The files are kept as State.Raw without copying.
func ImportFiles(files []archive.RawFile, opt archive.ImportOptions) (*archive.State, error) {
	return importFiles(context.Background(), files, nil, opt, false)
}

// ctxEvery is how many bytes an import reads between two checks of its
// context.
const ctxEvery = 1 << 20

// importFiles is ImportFiles. redacted, when not nil, holds per file the
// lines a redactor changed (files are then the redacted bytes,
// archive.Encoder.Stored): file hashes are not taken from them. With lazy
// set, tool outputs the recall does not read are left undecoded (Output
// empty, OutputSpans set: Encode stores them as pointers). It stops with
// ctx's error once ctx is done (checked every ctxEvery bytes).
func importFiles(ctx context.Context, files []archive.RawFile, redacted []map[int]bool, opt archive.ImportOptions, lazy bool) (*archive.State, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no files", ErrNotTranscript)
	}
	im := newImporter(opt)
	im.ctx = ctx
	im.lazyOut = lazy
	im.redacted = redacted
	im.st.Raw = files
	parsed := 0
	for fi, f := range files {
		parsed += im.file(fi, f)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if parsed == 0 {
		return nil, fmt.Errorf("%w: %s has no JSON line", ErrNotTranscript, files[0].Name)
	}
	return im.end(opt)
}

// end finishes the model and captures the project files it names.
func (im *importer) end(opt archive.ImportOptions) (*archive.State, error) {
	im.finish()
	root := im.root
	if root == "" {
		root = im.st.Meta.DirectoryPath
	}
	if err := imp.CaptureFiles(context.Background(), im.st, root, opt); err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	return im.st, nil
}

type importer struct {
	// ctx, when set, stops the import once done (see importFiles).
	ctx   context.Context
	opt   archive.ImportOptions
	st    *archive.State
	root  string
	tools map[string]int  // tool_use id → index in st.Tools
	files map[string]int  // path → index in st.Files
	usage map[uint64]bool // xxhash64 of message.id + requestId of responses counted
	// pendingSummary is the index of the compaction waiting for its
	// isCompactSummary line, or -1.
	pendingSummary int
	todos          []archive.Task
	todosAt        time.Time
	agents         []archive.Task
	agentIdx       map[string]int
	lastCtx        int64
	sessionSeen    bool
	// hashes holds, per file registry index, where the file's last-known
	// content is: hashing is deferred to finish so that a file read or
	// written many times is hashed once.
	hashes  map[int]hashSource
	hashBuf []byte // hashOf's scratch
	// curFile, curLine and lineOff locate the line being read (hash
	// sources).
	curFile, curLine, lineOff int
	// redacted holds per raw file the line numbers a redactor changed
	// (nil: not redacted).
	redacted []map[int]bool
	// lazyOut: tool outputs the recall does not read are left undecoded,
	// and tool inputs, ids and plain texts are views of the files (Save's
	// States).
	lazyOut bool
	// standalone and sideKnown: the main file is a subagent's own file
	// (every line isSidechain); customTitled: a custom-title line was read
	// (it wins over ai-title).
	standalone, sideKnown, customTitled bool
}

// hashSource locates a file's last-known content in a raw line: the
// content string itself (Read, Write) or an Edit's original file with the
// replacement to apply.
type hashSource struct {
	b          []byte
	fi, off    int    // raw file and offset of b in it
	ln         int    // line number of b in its raw file
	h          string // the hash, when done (restored or computed)
	done       bool
	content    jscan.Val // Read/Write: the content; Edit: originalFile
	old, new   jscan.Val // Edit only
	replaceAll bool
	edit       bool
}

// hashOf is the content hash src reveals: "" (unknown) when its line was
// changed by redaction, since the content read from it is not the file's.
func (im *importer) hashOf(src hashSource) string {
	if src.done {
		return src.h
	}
	if src.fi < len(im.redacted) && im.redacted[src.fi][src.ln] {
		return ""
	}
	return src.hash(&im.hashBuf)
}

// hash is the SHA-256 (hex) of the content h locates; scratch is reused
// for decoding it.
func (h hashSource) hash(scratch *[]byte) string {
	if !h.edit {
		var c []byte
		if h.content.IsString(h.b) {
			c, _ = archive.JSONStringBytes(h.b[h.content.S:h.content.E], scratch)
		}
		sum := sha256.Sum256(c)
		return hex.EncodeToString(sum[:])
	}
	// An Edit: the hash of strings.Replace(original, old, new, n), the
	// replaced text written to the hash piece by piece.
	old, nw := str(h.b, h.old), str(h.b, h.new)
	var orig []byte
	if h.content.IsString(h.b) {
		orig, _ = archive.JSONStringBytes(h.b[h.content.S:h.content.E], scratch)
	}
	if old == "" {
		n := 1
		if h.replaceAll {
			n = -1
		}
		return hashString(strings.Replace(string(orig), old, nw, n))
	}
	d := sha256.New()
	for rest := orig; ; {
		i := bytes.Index(rest, []byte(old))
		if i < 0 {
			d.Write(rest)
			break
		}
		d.Write(rest[:i])
		io.WriteString(d, nw)
		rest = rest[i+len(old):]
		if !h.replaceAll {
			d.Write(rest)
			break
		}
	}
	return hex.EncodeToString(d.Sum(nil))
}

func newImporter(opt archive.ImportOptions) *importer {
	root := opt.ProjectDir
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	return &importer{
		opt:            opt,
		st:             &archive.State{Meta: archive.Metadata{SchemaVersion: archive.SchemaVersion, Harness: archive.HarnessClaude, SessionCount: 1}},
		root:           root,
		tools:          map[string]int{},
		files:          map[string]int{},
		usage:          map[uint64]bool{},
		pendingSummary: -1,
		agentIdx:       map[string]int{},
		hashes:         map[int]hashSource{},
	}
}

func (im *importer) problem(file string, line int, format string, args ...any) {
	r := &im.st.Import
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf("%s:%d: %s", file, line+1, fmt.Sprintf(format, args...)))
	}
}

// file walks one raw file line by line; it returns the number of lines
// that parsed.
func (im *importer) file(fi int, f archive.RawFile) int {
	im.st.Import.Files++
	r := &im.st.Import
	sidechainFile := fi > 0
	agentFromName := ""
	if sidechainFile {
		b := path.Base(f.Name)
		agentFromName = strings.TrimPrefix(strings.TrimSuffix(b, ".jsonl"), "agent-")
		im.st.Meta.SubagentIDs = append(im.st.Meta.SubagentIDs, agentFromName)
	}
	data := f.Data
	parsed := 0
	ln := 0
	checked := 0
	for off := 0; off < len(data); ln++ {
		if off-checked >= ctxEvery {
			checked = off
			if im.ctx != nil && im.ctx.Err() != nil {
				return parsed // importFiles returns the context's error
			}
		}
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0
		if last {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		off = end + 1
		r.Lines++
		body := bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(body)) == 0 {
			r.Blank++
			continue
		}
		if !utf8.Valid(body) {
			r.InvalidUTF8++
		}
		if len(body) > MaxModelLine {
			r.Skipped++
			im.problem(f.Name, ln, "line of %d bytes over the %d-byte model limit (kept raw)", len(body), MaxModelLine)
			continue
		}
		var h hdr
		_, err := jscan.ParseLineFields(body, h.field(body))
		if err != nil {
			if last {
				r.Truncated = true
				r.Partial++
				im.problem(f.Name, ln, "incomplete last line (%d bytes, kept raw)", len(body))
			} else {
				r.Skipped++
				im.problem(f.Name, ln, "not a JSON object (kept raw)")
			}
			continue
		}
		parsed++
		im.curFile, im.curLine, im.lineOff = fi, ln, off-1-len(line)
		im.line(fi, ln, body, &h, sidechainFile, agentFromName)
	}
	return parsed
}

// hdr holds the top-level fields of one line that the model uses.
type hdr struct {
	typ, subtype, uuid, parent, logicalParent, sessionID, cwd, version, branch, agentID, timestamp jscan.Val
	message, content, compactMeta, toolUseResult, todos, summary, leafUUID, customTitle, requestID jscan.Val
	attachment, aiTitle                                                                            jscan.Val
	isSidechain, isMeta, isCompactSummary                                                          bool
}

// field returns the function that records the top-level members of line
// b that the model uses in h.
func (h *hdr) field(b []byte) func(k []byte, v jscan.Val) {
	return func(k []byte, v jscan.Val) {
		switch string(k) {
		case "type":
			h.typ = v
		case "subtype":
			h.subtype = v
		case "uuid":
			h.uuid = v
		case "parentUuid":
			h.parent = v
		case "logicalParentUuid":
			h.logicalParent = v
		case "sessionId":
			h.sessionID = v
		case "cwd":
			h.cwd = v
		case "version":
			h.version = v
		case "gitBranch":
			h.branch = v
		case "agentId":
			h.agentID = v
		case "timestamp":
			h.timestamp = v
		case "message":
			h.message = v
		case "content":
			h.content = v
		case "compactMetadata":
			h.compactMeta = v
		case "toolUseResult":
			h.toolUseResult = v
		case "todos":
			h.todos = v
		case "summary":
			h.summary = v
		case "leafUuid":
			h.leafUUID = v
		case "customTitle":
			h.customTitle = v
		case "attachment":
			h.attachment = v
		case "aiTitle":
			h.aiTitle = v
		case "requestId":
			h.requestID = v
		case "isSidechain":
			h.isSidechain = v.Bool(b)
		case "isMeta":
			h.isMeta = v.Bool(b)
		case "isCompactSummary":
			h.isCompactSummary = v.Bool(b)
		}
	}
}

// line adds one parsed line (its top-level members in h) to the model.
func (im *importer) line(fi, ln int, b []byte, h *hdr, sideFile bool, agentFromName string) {
	m := &im.st.Meta
	ts := parseTime(view(b, h.timestamp))
	if !ts.IsZero() {
		if m.FirstActivity.IsZero() || ts.Before(m.FirstActivity) {
			m.FirstActivity = ts
		}
		if ts.After(m.LastActivity) {
			m.LastActivity = ts
		}
	}
	if !sideFile {
		if !im.sessionSeen {
			if s := str(b, h.sessionID); s != "" {
				m.SessionID, im.sessionSeen = s, true
			}
		}
		if m.DirectoryPath == "" {
			m.DirectoryPath = str(b, h.cwd)
		}
		// The latest non-empty value wins; a copy only when it changes.
		if s := view(b, h.version); s != "" && s != m.ClientVersion {
			m.ClientVersion = str(b, h.version)
		}
		if s := view(b, h.branch); s != "" && s != m.GitBranch {
			m.GitBranch = str(b, h.branch)
		}
	}
	side := sideFile || im.sidechain(fi, h)
	agent := str(b, h.agentID)
	if agent == "" && sideFile {
		agent = agentFromName
	}
	ref := archive.RawRef{File: fi, Line: ln}
	typ := view(b, h.typ)
	switch typ {
	case "user", "assistant":
		role := "user" // a constant: typ aliases the line
		if typ == "assistant" {
			role = "assistant"
		}
		im.message(b, h, role, ts, side, agent, ref)
	case "system":
		im.system(b, h, ts, side, agent, ref)
	case "summary":
		// {"type":"summary","summary":…,"leafUuid":…} is the title Claude
		// Code gives a conversation branch (its /resume list shows it),
		// not a compaction: the session's title unless one is set
		// already (a custom-title line always wins).
		if t := str(b, h.summary); t != "" && m.Title == "" {
			m.Title = t
		}
	case "custom-title":
		if t := str(b, h.customTitle); t != "" {
			m.Title, im.customTitled = t, true
		}
	case "ai-title":
		im.aiTitleLine(b, h, sideFile)
	case "attachment":
		im.attachmentLine(b, h, ts, side, agent, ref)
	case "progress", "file-history-snapshot", "file-history-delta", "queue-operation", "agent-name",
		"last-prompt", "pr-link", "saved_hook_context", "tag", "worktree-state",
		"mode", "permission-mode", "bridge-session":
		// Known, not part of the model: kept in the raw transcript.
	default:
		r := &im.st.Import
		if r.UnknownTypes == nil {
			r.UnknownTypes = map[string]int{}
		}
		typ = str(b, h.typ) // view aliases the line
		if typ == "" {
			typ = "(none)"
		}
		r.UnknownTypes[typ]++
	}
}

func (im *importer) system(b []byte, h *hdr, ts time.Time, side bool, agent string, ref archive.RawRef) {
	sub := str(b, h.subtype)
	switch sub {
	case "compact_boundary":
		if side {
			return
		}
		c := archive.Compaction{
			UUID: str(b, h.uuid), Timestamp: ts, LogicalParent: str(b, h.logicalParent),
			MessageIndex: len(im.st.Messages), Ref: ref,
		}
		if h.compactMeta.OK() {
			c.Trigger = str(b, jscan.Field(b, h.compactMeta, "trigger"))
			c.PreTokens = jscan.Field(b, h.compactMeta, "preTokens").Int64(b)
			c.PostTokens = jscan.Field(b, h.compactMeta, "postTokens").Int64(b)
		}
		im.st.Compactions = append(im.st.Compactions, c)
		im.pendingSummary = len(im.st.Compactions) - 1
	case "local_command", "api_error", "informational":
		text, sp := textOf(b, h.content)
		im.st.Messages = append(im.st.Messages, archive.Message{
			ID: str(b, h.uuid), ParentID: str(b, h.parent), Role: "system", Kind: sub,
			Text: text, TextSpans: sp, Timestamp: ts, Sidechain: side, AgentID: agent, Ref: ref,
		})
	}
}

// textOf returns the text of a JSON string value and its span.
func textOf(b []byte, v jscan.Val) (string, []archive.Span) {
	if !v.IsString(b) {
		return "", nil
	}
	sp := []archive.Span{{Off: uint32(v.S), Len: uint32(v.E - v.S)}}
	t, _ := archive.SpanText(b, sp)
	return t, sp
}

// isShellTool reports whether a tool's "command" input is a shell command
// (ToolExec.Command).
func isShellTool(name string) bool {
	return name == "Bash" || name == "BashOutput" || name == "PowerShell"
}

// view is str(b, v) without a copy when the string holds no escape: it
// then aliases b, so it must not be kept beyond the line's use (compare,
// parse, switch on it; str or keep for a string to keep).
func view(b []byte, v jscan.Val) string {
	if !v.IsString(b) {
		return ""
	}
	in := b[v.S+1 : v.E-1]
	if len(in) == 0 {
		return ""
	}
	for _, c := range in {
		if c == '\\' || c == '"' || c < 0x20 || c >= 0x7f {
			return str(b, v)
		}
	}
	return unsafe.String(&in[0], len(in))
}

// keep is str for a string the State keeps: in Save's State (lazyOut),
// whose stored files nobody modifies, a view of them when it holds no
// escape (see view), not a copy beside the transcript.
func (im *importer) keep(b []byte, v jscan.Val) string {
	if im.lazyOut {
		return view(b, v)
	}
	return str(b, v)
}

func str(b []byte, v jscan.Val) string {
	if !v.IsString(b) {
		return ""
	}
	s, _ := archive.JSONString(b[v.S:v.E])
	return s
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func (im *importer) message(b []byte, h *hdr, role string, ts time.Time, side bool, agent string, ref archive.RawRef) {
	msg := archive.Message{
		ID: im.keep(b, h.uuid), ParentID: im.keep(b, h.parent), Role: role, Timestamp: ts,
		Sidechain: side, AgentID: agent, Ref: ref,
	}
	var content, usage, msgID, model jscan.Val
	if h.message.Kind(b) == '{' {
		_ = jscan.EachField(b, h.message, func(k []byte, v jscan.Val) {
			switch string(k) {
			case "content":
				content = v
			case "usage":
				usage = v
			case "id":
				msgID = v
			case "model":
				model = v
			}
		})
	}
	var spans []archive.Span
	addText := func(v jscan.Val) {
		if v.IsString(b) {
			spans = append(spans, archive.Span{Off: uint32(v.S), Len: uint32(v.E - v.S)})
		}
	}
	var thinking []archive.Span
	var images []int // an image block came before spans[images[i]]
	switch content.Kind(b) {
	case '"':
		addText(content)
	case '[':
		_ = jscan.EachElem(b, content, func(blk jscan.Val) {
			if blk.Kind(b) != '{' {
				return
			}
			var bt, text, think, id, name, input, toolUseID, rc, isErr jscan.Val
			_ = jscan.EachField(b, blk, func(k []byte, v jscan.Val) {
				switch string(k) {
				case "type":
					bt = v
				case "text":
					text = v
				case "thinking":
					think = v
				case "id":
					id = v
				case "name":
					name = v
				case "input":
					input = v
				case "tool_use_id":
					toolUseID = v
				case "content":
					rc = v
				case "is_error":
					isErr = v
				}
			})
			switch str(b, bt) {
			case "text":
				addText(text)
			case "thinking":
				// A signature-only block ("thinking":"") has no text.
				if think.IsString(b) && think.E-think.S > 2 {
					thinking = append(thinking, archive.Span{Off: uint32(think.S), Len: uint32(think.E - think.S)})
				}
			case "image":
				images = append(images, len(spans))
			case "tool_use":
				tid := im.keep(b, id)
				msg.ToolCallIDs = append(msg.ToolCallIDs, tid)
				files := im.toolUse(b, tid, str(b, name), input, ts, side, ref)
				msg.Files = appendUnique(msg.Files, files...)
			case "tool_result":
				tid := im.keep(b, toolUseID)
				msg.ToolCallIDs = append(msg.ToolCallIDs, tid)
				im.toolResult(b, h, tid, rc, isErr.Bool(b), ts, ref)
			}
		})
	}
	switch {
	case len(spans) > 0:
		msg.TextSpans = spans
	case len(thinking) > 0:
		msg.TextSpans = thinking
	}
	switch sp := msg.TextSpans; {
	case len(sp) == 1:
		msg.Text = im.keep(b, jscan.Val{S: int(sp[0].Off), E: int(sp[0].Off + sp[0].Len)})
	case sp != nil:
		msg.Text, _ = archive.SpanText(b, sp)
	}
	if len(images) > 0 {
		msg.Text, msg.TextSpans = withImages(b, spans, images), nil
	}
	msg.Kind = im.kind(role, h, &msg, len(spans) == 0 && len(thinking) > 0)
	if role == "assistant" {
		if s := str(b, model); s != "" && s != "<synthetic>" && !side {
			im.st.Meta.Model = s
		}
		if usage.Kind(b) == '{' {
			in := jscan.Field(b, usage, "input_tokens").Int64(b)
			out := jscan.Field(b, usage, "output_tokens").Int64(b)
			cc := jscan.Field(b, usage, "cache_creation_input_tokens").Int64(b)
			cr := jscan.Field(b, usage, "cache_read_input_tokens").Int64(b)
			mid := str(b, msgID)
			key := xxhash.Sum64String(mid + "\x00" + str(b, h.requestID))
			if mid == "" || !im.usage[key] {
				if mid != "" {
					im.usage[key] = true
				}
				im.st.Meta.TotalTokens += in + out + cc + cr
				msg.Tokens = out
			}
			if !side {
				im.lastCtx = in + cc + cr
			}
		}
	}
	if h.isCompactSummary && im.pendingSummary >= 0 {
		c := &im.st.Compactions[im.pendingSummary]
		c.Summary, c.SummaryRef, c.SummarySpans = msg.Text, ref, msg.TextSpans
		im.pendingSummary = -1
	}
	if h.todos.Kind(b) == '[' && !side {
		im.setTodos(b, h.todos, ts)
	}
	if role == "assistant" && msg.Text == "" && len(msg.ToolCallIDs) == 0 {
		// Nothing to show (a signature-only thinking block): its usage
		// is counted above, no empty message is made.
		return
	}
	im.st.Messages = append(im.st.Messages, msg)
}

func (im *importer) kind(role string, h *hdr, m *archive.Message, thinkingOnly bool) string {
	if role == "assistant" {
		switch {
		case len(m.ToolCallIDs) > 0 && m.Text == "":
			return "tool_use"
		case thinkingOnly:
			return "thinking"
		default:
			return "text"
		}
	}
	switch {
	case h.isCompactSummary:
		return "summary"
	case len(m.ToolCallIDs) > 0:
		return "tool_result"
	case h.isMeta:
		return "meta"
	case strings.HasPrefix(m.Text, "<command-name>") || strings.HasPrefix(m.Text, "<command-message>") ||
		strings.HasPrefix(m.Text, "<local-command-") || strings.HasPrefix(m.Text, "<bash-"):
		return "command"
	default:
		return "prompt"
	}
}

func appendUnique(dst []string, xs ...string) []string {
outer:
	for _, x := range xs {
		for _, d := range dst {
			if d == x {
				continue outer
			}
		}
		dst = append(dst, x)
	}
	return dst
}

// rel makes p relative to the project root when inside it.
func (im *importer) rel(p string) string {
	root := im.root
	if root == "" {
		root = im.st.Meta.DirectoryPath
	}
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	r := strings.TrimSuffix(root, "/")
	if p == r {
		return "."
	}
	if strings.HasPrefix(p, r+"/") {
		return p[len(r)+1:]
	}
	return p
}

func (im *importer) toolUse(b []byte, id, name string, input jscan.Val, ts time.Time, side bool, ref archive.RawRef) []string {
	t := archive.ToolExec{ID: id, Name: name, Timestamp: ts, Sidechain: side, Ref: ref}
	if input.OK() {
		t.InputSpans = []archive.Span{{Off: uint32(input.S), Len: uint32(input.E - input.S), Verbatim: true}}
		if raw := input.Raw(b); im.lazyOut && len(raw) > 0 {
			// Save's State keeps the stored files (State.Raw), which
			// nobody modifies: the input is a view of its line, not a
			// second copy of every tool input beside the transcript.
			t.Input = unsafe.String(&raw[0], len(raw))
		} else {
			t.Input = string(raw)
		}
	}
	var files []string
	if input.Kind(b) == '{' {
		var fp, np, cmd, content, todos, desc jscan.Val
		_ = jscan.EachField(b, input, func(k []byte, v jscan.Val) {
			switch string(k) {
			case "file_path":
				fp = v
			case "notebook_path":
				np = v
			case "command":
				cmd = v
			case "content":
				content = v
			case "todos":
				todos = v
			case "description":
				desc = v
			}
		})
		for _, v := range []jscan.Val{fp, np} {
			if p := str(b, v); p != "" {
				files = append(files, im.rel(p))
			}
		}
		if isShellTool(name) {
			t.Command = str(b, cmd)
		}
		switch name {
		case "Read":
			im.touch(files, ts, 'r', nil)
		case "Edit", "MultiEdit", "NotebookEdit":
			im.touch(files, ts, 'e', nil)
		case "Write":
			var src *hashSource
			if content.IsString(b) {
				src = &hashSource{b: b, fi: im.curFile, off: im.lineOff, ln: im.curLine, content: content}
			}
			im.touch(files, ts, 'w', src)
		case "TodoWrite":
			if !side && todos.Kind(b) == '[' {
				im.setTodos(b, todos, ts)
			}
		case "Task", "Agent":
			if !side {
				im.agentIdx[id] = len(im.agents)
				im.agents = append(im.agents, archive.Task{ID: id, Content: str(b, desc), Status: "in_progress"})
			}
		}
	}
	t.RelatedFiles = files
	if _, dup := im.tools[id]; !dup || id == "" {
		im.tools[id] = len(im.st.Tools)
	}
	im.st.Tools = append(im.st.Tools, t)
	return files
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func (im *importer) touch(files []string, ts time.Time, op byte, src *hashSource) {
	for _, p := range files {
		i, ok := im.files[p]
		if !ok {
			i = len(im.st.Files)
			im.files[p] = i
			im.st.Files = append(im.st.Files, archive.FileRecord{Path: p})
		}
		f := &im.st.Files[i]
		f.AccessCount++
		switch op {
		case 'r':
			f.Reads++
		case 'e':
			f.Edits++
			f.Hash = "" // unknown until the result tells
			delete(im.hashes, i)
		case 'w':
			f.Writes++
			f.Hash = ""
			if src != nil {
				im.hashes[i] = *src
			} else {
				delete(im.hashes, i)
			}
		}
		if ts.After(f.LastAccess) {
			f.LastAccess = ts
		}
	}
}

func (im *importer) toolResult(b []byte, h *hdr, id string, rc jscan.Val, isErr bool, ts time.Time, ref archive.RawRef) {
	i, ok := im.tools[id]
	if !ok || id == "" {
		return
	}
	t := &im.st.Tools[i]
	t.ResultRef = ref
	t.Success = !isErr
	var spans []archive.Span
	switch rc.Kind(b) {
	case '"':
		spans = append(spans, archive.Span{Off: uint32(rc.S), Len: uint32(rc.E - rc.S)})
	case '[':
		_ = jscan.EachElem(b, rc, func(blk jscan.Val) {
			if blk.Kind(b) != '{' {
				return
			}
			// One walk over the block for its type and text.
			var typ, text jscan.Val
			_ = jscan.EachField(b, blk, func(k []byte, v jscan.Val) {
				switch {
				case string(k) == "type" && !typ.OK():
					typ = v
				case string(k) == "text" && !text.OK():
					text = v
				}
			})
			if str(b, typ) == "text" && text.IsString(b) {
				spans = append(spans, archive.Span{Off: uint32(text.S), Len: uint32(text.E - text.S)})
			}
		})
	}
	if spans != nil {
		t.OutputSpans = spans
		t.Output = ""
		if _, out := archive.RecallTexts(t); out || !im.lazyOut {
			t.Output, _ = archive.SpanText(b, spans)
		}
	}
	if r := h.toolUseResult; r.Kind(b) == '{' {
		// One walk over the result (it often holds a whole file) for
		// every member read below.
		var f resultFields
		_ = jscan.EachField(b, r, func(k []byte, v jscan.Val) {
			if x := f.slot(k); x != nil && !x.OK() {
				*x = v
			}
		})
		for _, v := range []jscan.Val{f.durationMs, f.totalDurationMs} {
			if d := v.Int64(b); d > 0 {
				t.DurationMS = d
				break
			}
		}
		if t.DurationMS == 0 && f.durationSeconds.OK() {
			t.DurationMS = int64(parseFloat(f.durationSeconds.Raw(b)) * 1000)
		}
		im.resultHash(b, t, &f)
	}
	if j, ok := im.agentIdx[id]; ok {
		if isErr {
			im.agents[j].Status = "failed"
		} else {
			im.agents[j].Status = "completed"
		}
	}
	_ = ts
}

// resultFields are the members of a toolUseResult object the model reads
// (the first of each name, as jscan.Field finds it).
type resultFields struct {
	durationMs, totalDurationMs, durationSeconds  jscan.Val
	file, originalFile, oldString, newString, all jscan.Val
}

// slot is where member k of a toolUseResult is kept, or nil.
func (f *resultFields) slot(k []byte) *jscan.Val {
	switch string(k) {
	case "durationMs":
		return &f.durationMs
	case "totalDurationMs":
		return &f.totalDurationMs
	case "durationSeconds":
		return &f.durationSeconds
	case "file":
		return &f.file
	case "originalFile":
		return &f.originalFile
	case "oldString":
		return &f.oldString
	case "newString":
		return &f.newString
	case "replaceAll":
		return &f.all
	}
	return nil
}

// resultHash records the file content hash a tool result reveals: a full
// Read, or an Edit's original file with the replacement applied.
func (im *importer) resultHash(b []byte, t *archive.ToolExec, r *resultFields) {
	if len(t.RelatedFiles) == 0 {
		return
	}
	setHash := func(src hashSource) {
		if i, ok := im.files[t.RelatedFiles[0]]; ok {
			im.st.Files[i].Hash = ""
			im.hashes[i] = src
		}
	}
	switch t.Name {
	case "Read":
		f := r.file
		if f.Kind(b) != '{' {
			return
		}
		// One walk over the object, which holds the file's content.
		var start, n, total, c jscan.Val
		_ = jscan.EachField(b, f, func(k []byte, v jscan.Val) {
			var x *jscan.Val
			switch string(k) {
			case "startLine":
				x = &start
			case "numLines":
				x = &n
			case "totalLines":
				x = &total
			case "content":
				x = &c
			}
			if x != nil && !x.OK() {
				*x = v
			}
		})
		if c.IsString(b) && start.Int64(b) <= 1 && n.Int64(b) == total.Int64(b) {
			setHash(hashSource{b: b, fi: im.curFile, off: im.lineOff, ln: im.curLine, content: c})
		}
	case "Edit":
		orig, old := r.originalFile, r.oldString
		if !orig.IsString(b) || str(b, old) == "" {
			return
		}
		setHash(hashSource{
			b: b, fi: im.curFile, off: im.lineOff, ln: im.curLine, content: orig, edit: true,
			old: old, new: r.newString, replaceAll: r.all.Bool(b),
		})
	}
}

func parseFloat(b []byte) float64 {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != f || f > 1e12 || f < 0 {
		return 0
	}
	return f
}

func (im *importer) setTodos(b []byte, todos jscan.Val, ts time.Time) {
	var list []archive.Task
	_ = jscan.EachElem(b, todos, func(x jscan.Val) {
		if x.Kind(b) != '{' {
			return
		}
		t := archive.Task{
			ID:         str(b, jscan.Field(b, x, "id")),
			Content:    str(b, jscan.Field(b, x, "content")),
			ActiveForm: str(b, jscan.Field(b, x, "activeForm")),
			Status:     str(b, jscan.Field(b, x, "status")),
		}
		if t.Content != "" {
			list = append(list, t)
		}
	})
	if ts.Before(im.todosAt) {
		return
	}
	im.todos, im.todosAt = list, ts
}

func (im *importer) finish() {
	st := im.st
	m := &st.Meta
	if m.SessionID == "" && len(st.Raw) > 0 {
		m.SessionID = strings.TrimSuffix(path.Base(st.Raw[0].Name), ".jsonl")
	}
	if m.DirectoryPath == "" {
		// The session's own cwd when it names one; else the project
		// directory the caller gave.
		m.DirectoryPath = im.root
	}
	if m.DirectoryPath != "" {
		h := sha256.Sum256([]byte(filepath.Clean(m.DirectoryPath)))
		m.DirectoryHash = hex.EncodeToString(h[:])
	}
	for i, src := range im.hashes {
		st.Files[i].Hash = im.hashOf(src)
	}
	m.ContextTokens = im.lastCtx
	m.ContextWindow = 200000
	if strings.Contains(m.Model, "[1m]") {
		m.ContextWindow = 1000000
	}
	m.MessageCount = len(st.Messages)
	m.ToolCount = len(st.Tools)
	m.FileCount = len(st.Files)
	var ts archive.TaskState
	for _, t := range im.todos {
		switch t.Status {
		case "completed":
			ts.Completed = append(ts.Completed, t)
		case "in_progress":
			ts.Active = append(ts.Active, t)
		default:
			ts.Pending = append(ts.Pending, t)
		}
	}
	for _, t := range im.agents {
		if t.Status == "in_progress" {
			ts.Active = append(ts.Active, t)
		} else {
			ts.Completed = append(ts.Completed, t)
		}
	}
	ts.UpdatedAt = im.todosAt
	st.Tasks = ts
	st.Preferences = preferences(st.Messages)
}
