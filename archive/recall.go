package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ben10ctx/ben10/internal/recall"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// RecallVersion is the version of the Recall payload. It changes when a
// field's meaning changes; adding a field does not change it.
const RecallVersion = 1

// Caps that keep a Recall small whatever the size of the session it was
// built from. Lists keep their most relevant entries (the latest requests,
// the most recent files and commands); strings are cut at a UTF-8 boundary
// and marked with "…". After the per-list caps, the whole Recall is trimmed
// to recallMaxBytes of string payload by dropping its least relevant
// entries, so that its msgpack encoding stays in the tens of kilobytes even
// for a 100 MB transcript. Documented in docs/FIDELITY.md.
const (
	recallMaxRequests     = 12                  // latest user requests kept (plus the first one)
	recallRequestBytes    = 1200                // bytes per request text
	recallMaxFiles        = 150                 // files and search targets
	recallPathBytes       = 300                 // bytes per path
	recallMaxCommands     = 120                 // distinct shell commands
	recallCommandBytes    = recall.CommandBytes // bytes per command (first line of a multi-line command)
	recallMaxErrors       = 40                  // distinct errors
	recallErrorBytes      = 240                 // bytes per error line
	recallMaxTasks        = 60                  // todo items over all statuses
	recallTaskBytes       = 300                 // bytes per todo item
	recallMaxDecisions    = 16                  // decisions, corrections, preferences, plans
	recallDecisionBytes   = 400                 // bytes per decision
	recallMaxCompactions  = 8                   // latest compactions
	recallMaxBytes        = 64 << 10
	recallFieldOverhead   = 24 // per-entry allowance for numbers, times and msgpack framing
	recallTitleBytes      = 200
	recallSessionIDBytes  = 128
	recallShortFieldBytes = 200
)

// Recall is the small, bounded distillate of a State that a digest is
// built from, stored in the archive's summaries segment (BuildRecall makes
// one, Digest renders one): the session's facts (RecallSession), its first
// and latest requests, todo state, files, shell commands with their
// outcome, errors, decisions and compactions, most relevant first, and
// counts of what the caps left out. Its fields are defined in internal/recall,
// which the light hook binary links to render a prepared recall without
// the archive format; this type adds the archive's stored form.
type Recall recall.Recall

// The parts of a Recall (internal/recall).
type (
	RecallSession    = recall.RecallSession
	RecallRequest    = recall.RecallRequest
	RecallTasks      = recall.RecallTasks
	RecallFile       = recall.RecallFile
	RecallCommand    = recall.RecallCommand
	RecallError      = recall.RecallError
	RecallDecision   = recall.RecallDecision
	RecallCompaction = recall.RecallCompaction
	RecallOmitted    = recall.RecallOmitted
)

// BuildRecall distills s into a Recall. It reads only the main chain
// (sidechain messages and tool calls belong to subagents' contexts), is
// deterministic, and bounds its result by the Recall* caps. A nil State
// gives an empty Recall.
func BuildRecall(s *State) Recall {
	r := Recall{Version: RecallVersion}
	if s == nil {
		return r
	}
	b := recallBuilder{dir: recall.CleanDir(s.Meta.DirectoryPath)}
	r.Session = RecallSession{
		Harness:       s.Meta.Harness,
		SessionID:     capBytes(s.Meta.SessionID, recallSessionIDBytes),
		Title:         clean(s.Meta.Title, recallTitleBytes),
		Directory:     clean(s.Meta.DirectoryPath, recallPathBytes),
		GitBranch:     clean(s.Meta.GitBranch, recallShortFieldBytes),
		Model:         clean(s.Meta.Model, recallShortFieldBytes),
		ClientVersion: clean(s.Meta.ClientVersion, recallShortFieldBytes),
		FirstActivity: s.Meta.FirstActivity,
		LastActivity:  s.Meta.LastActivity,
		Messages:      s.Meta.MessageCount,
		ToolCalls:     s.Meta.ToolCount,
		Files:         s.Meta.FileCount,
		ContextTokens: s.Meta.ContextTokens,
		ContextWindow: s.Meta.ContextWindow,
	}
	if r.Session.Messages == 0 {
		r.Session.Messages = len(s.Messages)
	}
	if r.Session.ToolCalls == 0 {
		r.Session.ToolCalls = len(s.Tools)
	}
	if r.Session.Files == 0 {
		r.Session.Files = len(s.Files)
	}
	b.requests(s, &r)
	b.tasks(s, &r)
	b.tools(s, &r)
	b.decisions(s, &r)
	b.compactions(s, &r)
	r.trim(recallMaxBytes)
	return r
}

// DecodeRecall decodes a Recall from its msgpack form (as stored in an
// archive's summaries segment). Hostile bytes give an error wrapping
// ErrCorrupt, never a panic: msgpack v5.4.1 panics when a nil stands where
// a struct such as time.Time is expected, so the decoder runs under
// recover. A Recall of a newer version (Version > RecallVersion) gives
// ErrSchema.
func DecodeRecall(data []byte) (Recall, error) {
	var r Recall
	if err := r.UnmarshalMsgpack(data); err != nil {
		if errors.Is(err, ErrSchema) {
			return Recall{}, err
		}
		return Recall{}, fmt.Errorf("%w: recall: %w", ErrCorrupt, err)
	}
	return r, nil
}

type recallBuilder struct {
	dir string
}

// requests keeps the first and the latest user requests of the main chain.
func (b *recallBuilder) requests(s *State, r *Recall) {
	var all []RecallRequest
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Sidechain || m.Role != "user" {
			continue
		}
		if m.Kind != "" && m.Kind != "prompt" && m.Kind != "text" && m.Kind != "command" {
			continue
		}
		text, ok := requestText(m.Text)
		if !ok {
			continue
		}
		all = append(all, RecallRequest{Text: capBytes(text, recallRequestBytes), Time: m.Timestamp})
	}
	if len(all) == 0 {
		return
	}
	first := all[0]
	r.Initial = &first
	latest := all[1:]
	if len(latest) > recallMaxRequests {
		r.Omitted.Requests = len(latest) - recallMaxRequests
		latest = latest[len(latest)-recallMaxRequests:]
	}
	r.Requests = make([]RecallRequest, 0, len(latest))
	for i := len(latest) - 1; i >= 0; i-- {
		r.Requests = append(r.Requests, latest[i])
	}
}

var (
	commandNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`) })
	commandArgsRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`) })
	bashInputRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^<bash-input>(.*?)</bash-input>`) })
)

// requestText turns a user message's text into a request, or reports that
// it is not one (injected reminders, command output, interruptions, the
// compaction summary).
func requestText(t string) (string, bool) {
	t = strings.TrimSpace(capBytes(t, 16<<10))
	if t == "" {
		return "", false
	}
	if m := commandNameRe().FindStringSubmatch(t); m != nil {
		cmd := strings.TrimSpace(m[1])
		if a := commandArgsRe().FindStringSubmatch(t); a != nil {
			if args := strings.TrimSpace(a[1]); args != "" {
				cmd += " " + args
			}
		}
		if cmd == "" {
			return "", false
		}
		return clean(cmd, recallRequestBytes), true
	}
	if m := bashInputRe().FindStringSubmatch(t); m != nil {
		// A command the user ran with "!" in the prompt.
		if cmd := strings.TrimSpace(m[1]); cmd != "" {
			return clean("! "+cmd, recallRequestBytes), true
		}
		return "", false
	}
	for _, p := range []string{
		"<local-command-", "<system-reminder>", "<command-message>", "<bash-stdout>", "<bash-stderr>",
		"<user-prompt-submit-hook>", "<task-notification>", "Caveat: The messages below were generated",
		"[Request interrupted", "This session is being continued from a previous conversation",
	} {
		if strings.HasPrefix(t, p) {
			return "", false
		}
	}
	return clean(t, recallRequestBytes), true
}

// tasks copies the todo state within the caps: every active item, then
// pending items, then the latest completed ones.
func (b *recallBuilder) tasks(s *State, r *Recall) {
	budget := recallMaxTasks
	take := func(in []Task, latest bool) []Task {
		n := len(in)
		if n > budget {
			r.Omitted.Tasks += n - budget
			if latest {
				in = in[n-budget:]
			} else {
				in = in[:budget]
			}
		}
		budget -= len(in)
		out := make([]Task, 0, len(in))
		for _, t := range in {
			out = append(out, Task{
				ID:         clean(t.ID, recallShortFieldBytes),
				Content:    clean(t.Content, recallTaskBytes),
				ActiveForm: clean(t.ActiveForm, recallTaskBytes),
				Status:     clean(t.Status, 32),
			})
		}
		return out
	}
	r.Tasks.Active = take(s.Tasks.Active, false)
	r.Tasks.Pending = take(s.Tasks.Pending, false)
	r.Tasks.Completed = take(s.Tasks.Completed, true)
	r.Tasks.UpdatedAt = s.Tasks.UpdatedAt
}

// toolInput is the subset of tool inputs a Recall reads.
type toolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	AbsolutePath string `json:"absolute_path"` // Gemini CLI read_file
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Pattern      string `json:"pattern"`
	Plan         string `json:"plan"`
}

// shellTools name the tools whose `command` input is a shell command when
// an importer did not fill ToolExec.Command.
var shellTools = map[string]bool{
	"Bash": true, "bash": true, "shell": true, "Shell": true, "local_shell": true,
	"exec_command": true, "run_shell_command": true, "container.exec": true,
}

// fileTools name the tools whose file_path/notebook_path/path is a file
// they read (R), edit (E) or write (W); Grep/Glob paths are searches.
var fileTools = map[string]byte{
	"Read": 'R', "Edit": 'E', "MultiEdit": 'E', "Write": 'W', "NotebookEdit": 'E', "NotebookRead": 'R',
	"read_file": 'R', "read_many_files": 'R', "write_file": 'W', "replace": 'E', "edit": 'E',
	"ReadFile": 'R', "WriteFile": 'W', "StrReplaceFile": 'E', "PatchFile": 'E',
	"apply_patch": 'E',
}

type fileAcc struct {
	RecallFile
	known bool // from the file registry
}

type errAcc struct {
	RecallError
	key    string // command family or path, for resolution
	family bool
}

// searchTools name the tools whose path/pattern inputs are searches.
var searchTools = map[string]bool{"Grep": true, "Glob": true, "search_file_content": true, "glob": true}

// RecallTexts reports which of t's texts BuildRecall may read (a superset:
// input for every main-chain tool, output for failed and shell tools). An
// importer whose State goes straight to Encode may leave the others
// empty where it sets their spans: Encode stores the spans, and BuildRecall
// does not read those texts.
func RecallTexts(t *ToolExec) (input, output bool) {
	if t.Sidechain {
		return false, false
	}
	return true, !t.Success || t.Command != "" || shellTools[t.Name]
}

// tools walks the file registry, then the tool history once for files,
// commands and errors, folding every tool into a toolFold.
func (b *recallBuilder) tools(s *State, r *Recall) {
	fold := newToolFold(b, s)
	for seq := range s.Tools {
		fold.add(b, seq, &s.Tools[seq])
	}
	fold.finish(r)
}

// toolFold is the tool pass's state: per path, command and error what the
// registry and the tools so far contributed.
type toolFold struct {
	files    map[string]*fileAcc
	cmds     map[string]*RecallCommand // by commandKey
	errs     map[string]*errAcc        // by tool, subject and message
	okFamily map[string]int            // command family → seq of its latest success
	okPath   map[string]int            // path → seq of its latest successful tool call
}

// newToolFold starts the fold with s's file registry: its read, edit and
// write counts stand; the tool history adds recency, searches and the
// counts of files the registry lacks.
func newToolFold(b *recallBuilder, s *State) *toolFold {
	fold := &toolFold{
		files: map[string]*fileAcc{}, cmds: map[string]*RecallCommand{}, errs: map[string]*errAcc{},
		okFamily: map[string]int{}, okPath: map[string]int{},
	}
	for i := range s.Files {
		fr := &s.Files[i]
		p := b.relPath(fr.Path)
		if p == "" {
			continue
		}
		f := fold.file(p)
		f.known = true
		f.Reads += fr.Reads
		f.Edits += fr.Edits
		f.Writes += fr.Writes
		if fr.LastAccess.After(f.Last) {
			f.Last = fr.LastAccess
		}
	}
	return fold
}

// file returns path p's entry, made if new.
func (fold *toolFold) file(p string) *fileAcc {
	f := fold.files[p]
	if f == nil {
		f = &fileAcc{RecallFile: RecallFile{Path: p, Seq: -1}}
		fold.files[p] = f
	}
	return f
}

// errID is an error's identity: the same tool, subject and message are
// counted as one error.
func errID(e *errAcc) string { return e.Tool + "\x00" + e.Subject + "\x00" + e.Message }

// add folds tool t, the seq-th of the history.
func (fold *toolFold) add(b *recallBuilder, seq int, t *ToolExec) {
	if t.Sidechain {
		return
	}
	var errMsg string // what a failed tool's output says went wrong
	if !t.Success {
		errMsg = errorLine(t.Output)
	}
	var in toolInput
	if t.Input != "" {
		// Inputs are JSON objects written by the assistant; a malformed one
		// leaves in empty and the tool still counts by name and command.
		_ = json.Unmarshal([]byte(t.Input), &in)
	}
	command := t.Command
	if command == "" && shellTools[t.Name] {
		command = in.Command
	}

	// Files: the registry has the counts; the tool history adds recency,
	// searches (Grep/Glob path, Glob pattern) and files the registry lacks.
	var paths []string
	kind := fileTools[t.Name]
	switch {
	case searchTools[t.Name]:
		kind = 'S'
		if in.Path != "" {
			paths = append(paths, in.Path)
		}
		if t.Name == "Glob" || t.Name == "glob" {
			if in.Pattern != "" {
				paths = append(paths, in.Pattern)
			}
		}
	default:
		for _, p := range []string{in.FilePath, in.NotebookPath, in.AbsolutePath, in.Path} {
			if p != "" {
				paths = append(paths, p)
				break
			}
		}
	}
	paths = append(paths, t.RelatedFiles...)
	var touched []string
	for _, raw := range paths {
		p := b.relPath(raw)
		if p == "" || p == "." || slices.Contains(touched, p) {
			continue
		}
		touched = append(touched, p)
		f := fold.file(p)
		f.Seq = seq
		if t.Timestamp.After(f.Last) {
			f.Last = t.Timestamp
		}
		switch {
		case kind == 'S':
			f.Searches++
		case f.known: // the registry's counts stand
		case kind == 'R':
			f.Reads++
		case kind == 'E':
			f.Edits++
		case kind == 'W':
			f.Writes++
		}
	}

	var key, fam string
	if command != "" {
		key = commandKey(command)
		fam = commandFamily(key)
	}
	if key != "" {
		c := fold.cmds[key]
		if c == nil {
			c = &RecallCommand{Command: capBytes(key, recallCommandBytes)}
			if n := strings.Count(strings.TrimSpace(command), "\n") + 1; n > 1 {
				c.Lines = n
			}
			fold.cmds[key] = c
		}
		c.Runs++
		c.OK = t.Success
		c.Last = t.Timestamp
		c.Seq = seq
		c.Exit, c.ExitKnown = exitCode(t.Output)
		c.Error = ""
		c.NoResult = noResult(t)
		if !t.Success && !c.NoResult {
			c.Failures++
			c.Error = capBytes(errMsg, recallErrorBytes)
		}
	}
	if noResult(t) {
		return // still running, interrupted, or cut off: no outcome to learn from
	}

	if t.Success {
		if key != "" {
			fold.okFamily[fam] = seq
		}
		for _, p := range touched {
			fold.okPath[p] = seq
		}
		return
	}
	msg := errMsg
	if strings.Contains(msg, "Sibling tool call errored") {
		return // a parallel call failed; that failure is recorded on its own
	}
	e := &errAcc{RecallError: RecallError{Tool: clean(t.Name, recallShortFieldBytes), Message: capBytes(msg, recallErrorBytes)}}
	switch {
	case key != "":
		e.Subject, e.key, e.family = capBytes(key, recallCommandBytes), fam, true
	case len(touched) > 0:
		e.Subject, e.key = touched[0], touched[0]
	default:
		e.Subject = e.Tool
	}
	id := errID(e)
	if old := fold.errs[id]; old != nil {
		old.Count++
		old.Time, old.Seq = t.Timestamp, seq
		return
	}
	e.Count, e.Time, e.Seq = 1, t.Timestamp, seq
	fold.errs[id] = e
}

// finish fills r's files, commands and errors.
func (fold *toolFold) finish(r *Recall) {
	files := fold.files
	// Files: most recent first; registry-only files (never seen in the tool
	// history) after them by last access.
	fl := make([]*fileAcc, 0, len(files))
	for _, f := range files {
		fl = append(fl, f)
	}
	sort.Slice(fl, func(i, j int) bool {
		a, c := fl[i], fl[j]
		if a.Seq != c.Seq {
			return a.Seq > c.Seq
		}
		if !a.Last.Equal(c.Last) {
			return a.Last.After(c.Last)
		}
		return a.Path < c.Path
	})
	if len(fl) > recallMaxFiles {
		// Keep every modified file we can, dropping the oldest read-only
		// entries first.
		n, drop := len(fl), len(fl)-recallMaxFiles
		for i := n - 1; i >= 0 && drop > 0; i-- {
			if !fl[i].Modified() {
				fl[i], drop = nil, drop-1
			}
		}
		fl = slices.DeleteFunc(fl, func(f *fileAcc) bool { return f == nil })
		fl = fl[:min(len(fl), recallMaxFiles)]
		r.Omitted.Files = n - len(fl)
	}
	r.Files = make([]RecallFile, 0, len(fl))
	for _, f := range fl {
		rf := f.RecallFile
		rf.Path = capBytes(rf.Path, recallPathBytes)
		r.Files = append(r.Files, rf)
	}

	// Each tool updates at most one command and one error, which take its
	// seq: seqs order them without ties.
	cl := make([]*RecallCommand, 0, len(fold.cmds))
	for _, c := range fold.cmds {
		cl = append(cl, c)
	}
	sort.Slice(cl, func(i, j int) bool { return cl[i].Seq > cl[j].Seq })
	if len(cl) > recallMaxCommands {
		r.Omitted.Commands = len(cl) - recallMaxCommands
		cl = cl[:recallMaxCommands]
	}
	r.Commands = make([]RecallCommand, 0, len(cl))
	for _, c := range cl {
		r.Commands = append(r.Commands, *c)
	}

	errOrder := make([]*errAcc, 0, len(fold.errs))
	for _, e := range fold.errs {
		var later int
		var ok bool
		if e.family {
			later, ok = fold.okFamily[e.key]
		} else if e.key != "" {
			later, ok = fold.okPath[e.key]
		}
		e.Resolved = ok && later > e.Seq
		errOrder = append(errOrder, e)
	}
	sort.Slice(errOrder, func(i, j int) bool { return errOrder[i].Seq > errOrder[j].Seq })
	if len(errOrder) > recallMaxErrors {
		// Keep unresolved errors before resolved ones when something must go.
		sort.SliceStable(errOrder, func(i, j int) bool { return !errOrder[i].Resolved && errOrder[j].Resolved })
		r.Omitted.Errors = len(errOrder) - recallMaxErrors
		errOrder = errOrder[:recallMaxErrors]
		sort.SliceStable(errOrder, func(i, j int) bool { return errOrder[i].Seq > errOrder[j].Seq })
	}
	r.Errors = make([]RecallError, 0, len(errOrder))
	for _, e := range errOrder {
		r.Errors = append(r.Errors, e.RecallError)
	}
}

// noResult reports a tool call without a recorded result: importers leave
// Success false and Output empty until the result line arrives.
func noResult(t *ToolExec) bool { return !t.Success && t.Output == "" && len(t.OutputSpans) == 0 }

// decisions gathers corrections and preferences, and plans the user saw
// (ExitPlanMode), newest first.
func (b *recallBuilder) decisions(s *State, r *Recall) {
	var all []RecallDecision
	for _, p := range s.Preferences {
		t := clean(p.Text, recallDecisionBytes)
		if t == "" {
			continue
		}
		kind := p.Kind
		if kind == "" {
			kind = "preference"
		}
		all = append(all, RecallDecision{Kind: clean(kind, 32), Text: capBytes(t, recallDecisionBytes), Time: p.Timestamp})
	}
	for i := range s.Tools {
		t := &s.Tools[i]
		if t.Sidechain || t.Name != "ExitPlanMode" || t.Input == "" {
			continue
		}
		var in toolInput
		if json.Unmarshal([]byte(t.Input), &in) != nil || strings.TrimSpace(in.Plan) == "" {
			continue
		}
		kind := "plan approved"
		if !t.Success {
			kind = "plan rejected"
		}
		all = append(all, RecallDecision{Kind: kind, Text: capBytes(planHeadline(in.Plan), recallDecisionBytes), Time: t.Timestamp})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
	if len(all) > recallMaxDecisions {
		r.Omitted.Decisions = len(all) - recallMaxDecisions
		all = all[:recallMaxDecisions]
	}
	r.Decisions = all
}

// planHeadline is a plan's first heading or first non-empty line, followed
// by its other headings.
func planHeadline(plan string) string {
	plan = capBytes(plan, 16<<10)
	var parts []string
	for _, l := range strings.Split(plan, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(parts) == 0 || strings.HasPrefix(l, "#") {
			parts = append(parts, strings.TrimSpace(strings.TrimLeft(l, "#")))
		}
	}
	return recall.OneLine(strings.Join(parts, "; "))
}

func (b *recallBuilder) compactions(s *State, r *Recall) {
	cs := s.Compactions
	if len(cs) > recallMaxCompactions {
		r.Omitted.Compactions = len(cs) - recallMaxCompactions
		cs = cs[len(cs)-recallMaxCompactions:]
	}
	for _, c := range cs {
		r.Compactions = append(r.Compactions, RecallCompaction{Trigger: clean(c.Trigger, 32), PreTokens: c.PreTokens, Time: c.Timestamp})
	}
}

// trim drops the least relevant entries until the Recall's string payload
// (plus a per-entry allowance) is at most limit bytes.
func (r *Recall) trim(limit int) {
	for r.size() > limit {
		// Take from the list that weighs most, at its least relevant end.
		ls := r.lists()
		best := -1
		for i, c := range ls {
			if c.weight > 0 && (best < 0 || c.weight > ls[best].weight) {
				best = i
			}
		}
		if best < 0 {
			return // only fixed-size fields remain; they are within their caps
		}
		ls[best].drop()
	}
}

// recallList is a list trim may shorten: its weight (see size) and how to
// drop its least relevant entry.
type recallList struct {
	weight int
	drop   func()
}

// lists returns the lists trim may shorten, in the order that breaks ties.
func (r *Recall) lists() []recallList {
	return []recallList{
		{sizeOf(len(r.Commands), func(i int) int { return len(r.Commands[i].Command) + len(r.Commands[i].Error) }), func() {
			r.Commands = r.Commands[:len(r.Commands)-1]
			r.Omitted.Commands++
		}},
		{sizeOf(len(r.Files), func(i int) int { return len(r.Files[i].Path) }), func() {
			r.Files = r.Files[:len(r.Files)-1]
			r.Omitted.Files++
		}},
		{sizeOf(len(r.Errors), func(i int) int { return len(r.Errors[i].Subject) + len(r.Errors[i].Message) + len(r.Errors[i].Tool) }), func() {
			r.Errors = r.Errors[:len(r.Errors)-1]
			r.Omitted.Errors++
		}},
		{sizeOf(len(r.Requests), func(i int) int { return len(r.Requests[i].Text) }), func() {
			r.Requests = r.Requests[:len(r.Requests)-1]
			r.Omitted.Requests++
		}},
		{sizeOf(len(r.Tasks.Completed), func(i int) int { return taskSize(r.Tasks.Completed[i]) }), func() {
			r.Tasks.Completed = r.Tasks.Completed[1:]
			r.Omitted.Tasks++
		}},
		{sizeOf(len(r.Tasks.Pending), func(i int) int { return taskSize(r.Tasks.Pending[i]) }), func() {
			r.Tasks.Pending = r.Tasks.Pending[:len(r.Tasks.Pending)-1]
			r.Omitted.Tasks++
		}},
		{sizeOf(len(r.Decisions), func(i int) int { return len(r.Decisions[i].Text) }), func() {
			r.Decisions = r.Decisions[:len(r.Decisions)-1]
			r.Omitted.Decisions++
		}},
	}
}

func sizeOf(n int, f func(int) int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += f(i) + recallFieldOverhead
	}
	return s
}

func taskSize(t Task) int { return len(t.ID) + len(t.Content) + len(t.ActiveForm) + len(t.Status) }

// size estimates the Recall's encoded size: its strings plus a fixed
// allowance per entry.
func (r *Recall) size() int {
	n := 256 + len(r.Session.SessionID) + len(r.Session.Title) + len(r.Session.Directory) +
		len(r.Session.GitBranch) + len(r.Session.Model) + len(r.Session.ClientVersion) + len(r.Session.Harness)
	if r.Initial != nil {
		n += len(r.Initial.Text) + recallFieldOverhead
	}
	n += sizeOf(len(r.Tasks.Active), func(i int) int { return taskSize(r.Tasks.Active[i]) })
	n += sizeOf(len(r.Compactions), func(i int) int { return len(r.Compactions[i].Trigger) })
	for _, d := range r.Decisions {
		n += len(d.Kind) // (the lists count the texts)
	}
	for _, l := range r.lists() {
		n += l.weight
	}
	return n
}

// relPath makes p relative to the session directory when inside it and
// returns it as one clean line; "" for an empty path.
func (b *recallBuilder) relPath(p string) string {
	p = clean(p, 2*recallPathBytes)
	if p == "" {
		return ""
	}
	if b.dir != "" {
		if p == b.dir {
			return "."
		}
		for _, sep := range []string{"/", `\`} {
			if strings.HasPrefix(p, b.dir+sep) {
				return strings.TrimPrefix(p[len(b.dir)+1:], "./")
			}
		}
	}
	return strings.TrimPrefix(p, "./")
}

// commandKey is a command's identity: its whitespace-normalised text, or
// for a multi-line command its whitespace-normalised first line.
func commandKey(cmd string) string {
	cmd = strings.TrimSpace(strings.ReplaceAll(cmd, "\r\n", "\n"))
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i]
	}
	return recall.OneLine(capBytes(cmd, 2*recallCommandBytes))
}

// commandFamily is the program and its first non-option argument, after
// environment assignments and a leading `cd DIR &&`: "mix test", "git push".
func commandFamily(cmd string) string {
	f := strings.Fields(commandKey(cmd)) // a key is its own key
	wrapper := false                     // after sudo/env/time, skip their options too
	for len(f) > 0 {
		switch {
		case wrapper && strings.HasPrefix(f[0], "-"):
			f = f[1:]
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-"):
			f = f[1:]
		case f[0] == "cd" && len(f) >= 3 && (f[2] == "&&" || f[2] == ";"):
			f = f[3:]
		case f[0] == "sudo" || f[0] == "time" || f[0] == "env":
			f, wrapper = f[1:], true
		default:
			goto done
		}
	}
done:
	if len(f) == 0 {
		return ""
	}
	fam := f[0]
	if i := strings.LastIndexByte(fam, '/'); i >= 0 && i < len(fam)-1 {
		fam = fam[i+1:]
	}
	for _, a := range f[1:] {
		if a == "&&" || a == "||" || a == "|" || a == ";" {
			break
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		fam += " " + a
		break
	}
	return fam
}

var exitCodeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:error:\s*)?exit(?: code|_code|ed with code)?:?\s*(-?\d{1,6})\b`)
})

// exitCode finds an exit status at the start of a tool's output ("Exit code
// 1", Claude Code's form; "Exit code: 1" and "exit_code: 1" too).
func exitCode(out string) (int, bool) {
	lines := strings.SplitN(out, "\n", 4)
	for _, l := range lines[:min(len(lines), 3)] {
		if m := exitCodeRe().FindStringSubmatch(l); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

var (
	errStrongRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(^|[\s\[(*✘])(error|fatal|panic|exception|traceback|failed|failure|FAIL)\b|` +
			`not found|no such file|does not exist|permission denied|rejected|cannot |can't |undefined|timed out|refused`)
	})
	errTestRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\d+\) test\b|^---\s*FAIL|^FAIL\b|^\s*✗|^\s*×`)
	})
	errTagRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`</?tool_use_error>`) })
	errNoiseRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:error:\s*)?exit(?: code|_code)?:?\s*-?\d+\s*$`)
	})
)

// errorLine picks the most telling line of a failed tool's output: the
// first line naming an error or a failing test, else the first non-empty
// line that is not just the exit status.
func errorLine(out string) string {
	if out == "" {
		return ""
	}
	if len(out) > 16<<10 {
		out = out[:16<<10]
	}
	if strings.Contains(out, "The user doesn't want to proceed with this tool use") || strings.HasPrefix(out, "User rejected tool use") {
		return "rejected by the user (not run)"
	}
	out = errTagRe().ReplaceAllString(out, "")
	out = strings.ReplaceAll(out, `\n`, "\n") // some hooks print escaped newlines
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !errNoiseRe().MatchString(l) {
			lines = append(lines, l)
		}
	}
	// A line ending in ':' introduces the next one: keep both.
	pick := func(i int) string {
		l := lines[i]
		if strings.HasSuffix(l, ":") && i+1 < len(lines) {
			l += " " + lines[i+1]
		}
		return clean(l, recallErrorBytes)
	}
	test := -1
	for i, l := range lines {
		if errStrongRe().MatchString(l) {
			return pick(i)
		}
		if test < 0 && errTestRe().MatchString(l) {
			test = i
		}
	}
	if test >= 0 {
		return pick(test)
	}
	if len(lines) > 0 {
		return pick(0)
	}
	return ""
}

// clean is recall.OneLine(s) cut to n bytes; s is cut first so that a huge
// string costs no more than a small one.
func clean(s string, n int) string {
	return capBytes(recall.OneLine(capBytes(s, 2*n+16)), n)
}

// capBytes cuts s to at most n bytes at a rune boundary, ending it with "…"
// when it was cut.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut, mark := n-len(ell), ell
	if cut < 0 {
		cut, mark = n, ""
	}
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
