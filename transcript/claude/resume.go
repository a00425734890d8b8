package claude

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/jscan"
)

// Resumable import. A save stores, beside the archive, the importer's state
// after the main transcript's last complete line (resumeState, in the
// archive's resume-state segment). The next save of the same transcript
// restores it when the main file still starts with exactly the bytes that
// state was taken on (without redaction: the previous archive's per-chunk
// xxhash64 digests of the original bytes match; with redaction: the
// xxhash64 of the redacted prefix the state records matches), the importer
// version and project root are the same and the previous archive derives its
// conversation from the raw transcript; it then reads only the new lines of
// the main file, and then the subagent files (which a full import also
// reads after the main file): each from its own resume point when the
// state records one that applies (resume_sub.go), else from the start.
// Anything else is a full import.
//
// The restored State is partial (archive.ModelSource.Partial): its Tools are
// all the session's tools, but its Messages are only those the recall and
// the preferences read from the restored part (main-chain user messages)
// plus every message read after the resume point (sidechain messages of a
// subagent file resumed from its record are counted, not kept). What is stored is the
// same as after a full import: the conversation is rebuilt from the raw
// transcript when it is read, and every other component is computed from
// the restored state exactly as the full import computes it (checked by
// TestResumeMatchesFullImport on the corpus).

// resumeVersion changes whenever resumeState's meaning does.
// Version 3: shell commands derivable from their tool's input are left
// out (CmdOmitted). Version 4: tool ids are pointers into their tool_use
// line (IDPos). Version 5: tools are encoded as arrays (toolSkels).
// Version 6: without redaction, the prefix is checked against the previous
// archive's per-chunk digests (Hash is 0). Version 7: per-subagent resume
// points (Subs, resume_sub.go). Version 8: the encoding starts with a
// header naming the main-file lines restore reads (resumeHeader).
const resumeVersion = 8

// idInline marks, in resumeState.IDPos, a tool whose ID is stored inline.
const idInline = -1 << 31

type resumeState struct {
	V        int    `msgpack:"v"`
	Importer int    `msgpack:"importer"`
	Root     string `msgpack:"root"`
	Name     string `msgpack:"name"`  // main file
	Off      int    `msgpack:"off"`   // bytes read (complete lines)
	Lines    int    `msgpack:"lines"` // lines read
	// Hash is the xxhash64 of the bytes read when the files were redacted
	// (the archive's chunk digests are of the original bytes); without
	// redaction it is 0 and the prefix is checked against those digests
	// (archive.Archive.SameOriginalPrefix).
	Hash uint64 `msgpack:"hash"`
	// HashState is, with Hash, the xxhash64 digest's state after those
	// bytes (xxhash.Digest.MarshalBinary), written by importer versions
	// whose incremental saves went on from it without reading the prefix;
	// read back for compatibility only.
	HashState []byte `msgpack:"hash_state,omitempty"`
	// RedactFP is the redaction fingerprint the raw files were redacted
	// with before import ("" when not redacted): the state holds only
	// what the redacted lines say.
	RedactFP string `msgpack:"redact_fp,omitempty"`

	Meta        archive.Metadata     `msgpack:"meta"`
	Import      archive.ImportReport `msgpack:"import"`
	Files       []archive.FileRecord `msgpack:"files"`
	Hashes      []hashVal            `msgpack:"hashes"`
	Tools       toolSkels            `msgpack:"tools"` // texts left out (spans kept)
	Msgs        []archive.Message    `msgpack:"msgs"`  // main-chain user messages, texts left out
	NMsgs       int                  `msgpack:"nmsgs"`
	Compactions []archive.Compaction `msgpack:"compactions"` // summaries left out (spans kept)
	Pending     int                  `msgpack:"pending"`
	Todos       []archive.Task       `msgpack:"todos"`
	TodosAt     time.Time            `msgpack:"todos_at"`
	Agents      []archive.Task       `msgpack:"agents"`
	Usage       []uint64             `msgpack:"usage"`
	LastCtx     int64                `msgpack:"last_ctx"`
	SessionSeen bool                 `msgpack:"session_seen"`
	// Standalone: the main file is a subagent's own transcript (lines.go).
	Standalone bool `msgpack:"standalone,omitempty"`
	// CustomTitled: a custom-title line was read (it wins over ai-title).
	CustomTitled bool `msgpack:"custom_titled,omitempty"`
	// CmdOmitted: the Command of a main-chain tool is left out when
	// shellCommand gives it back from the tool's input (which restore
	// resolves); CmdEmpty lists the main-chain tools whose Command is ""
	// although shellCommand gives one.
	CmdOmitted bool  `msgpack:"cmd_omitted,omitempty"`
	CmdEmpty   []int `msgpack:"cmd_empty,omitempty"`
	// IDPos locates each tool's ID (left out of Tools) in the main file's
	// line Ref as a JSON string without escapes: at byte InputSpans[0].Off
	// - IDPos[i] of the line when the tool has an input span, else at
	// IDPos[i]. idInline: the ID is stored inline.
	IDPos []int `msgpack:"id_pos,omitempty"`
	// Subs are the subagent files' recorded contributions (those whose
	// lines do not depend on the lines read before them), in file order.
	Subs []subState `msgpack:"subs,omitempty"`
}

// mainStarts returns the line starts of data[:off] (lines of them),
// extending those restore computed.
func (im *importer) mainStarts(data []byte, off, lines int) []int {
	if im.starts == nil || off < im.startsOff {
		return lineStartsCap(data[:off], lines)
	}
	starts := im.starts
	for _, st := range lineStarts(data[im.startsOff:off]) {
		starts = append(starts, st+im.startsOff)
	}
	return starts
}

// idPos returns where t's ID is in line (see resumeState.IDPos), or
// idInline.
func idPos(t *archive.ToolExec, line []byte) int {
	if t.ID == "" || strings.ContainsAny(t.ID, "\\\"") {
		return idInline
	}
	needle := make([]byte, 0, len(t.ID)+2)
	needle = append(append(append(needle, '"'), t.ID...), '"')
	if len(t.InputSpans) > 0 {
		in := int(t.InputSpans[0].Off)
		if in > len(line) {
			return idInline
		}
		// The id is written just before the name and the input: look
		// there first.
		w := max(0, in-512)
		if p := bytes.LastIndex(line[w:in], needle); p >= 0 {
			return in - (w + p)
		}
		if p := bytes.Index(line[:in], needle); p >= 0 {
			return in - p
		}
		return idInline
	}
	if p := bytes.Index(line, needle); p >= 0 {
		return p
	}
	return idInline
}

// idAt is the ID idPos located in line; ok is false when pos does not
// point at a JSON string without escapes.
func idAt(t *archive.ToolExec, line []byte, pos int) (string, bool) {
	p := pos
	if len(t.InputSpans) > 0 {
		p = int(t.InputSpans[0].Off) - pos
	}
	if p < 0 || p >= len(line) || line[p] != '"' {
		return "", false
	}
	e := bytes.IndexByte(line[p+1:], '"')
	if e <= 0 || bytes.IndexByte(line[p+1:p+1+e], '\\') >= 0 {
		return "", false
	}
	return string(line[p+1 : p+1+e]), true
}

// shellCommand is the Command the importer derives from a tool's name and
// input JSON text (see toolUse).
func shellCommand(name, input string) string {
	if !isShellTool(name) || input == "" {
		return ""
	}
	b := []byte(input)
	v, err := jscan.ParseLine(b)
	if err != nil {
		return ""
	}
	var cmd jscan.Val
	_ = jscan.EachField(b, v, func(k []byte, x jscan.Val) {
		if string(k) == "command" {
			cmd = x
		}
	})
	return str(b, cmd)
}

// hashVal is a file registry entry's content hash as known at the resume
// point (a SHA-256 of content the transcript already holds, or "" when
// unknown).
type hashVal struct {
	File int    `msgpack:"f"`
	Hash string `msgpack:"h"`
}

// takeSnapshot records the importer's state after off bytes (lines lines)
// of the main file data, as ModelSource.Resume.
func (im *importer) takeSnapshot(data []byte, off, lines int) {
	st := im.st
	rs := resumeState{
		V: resumeVersion, Importer: importerVersion, Root: im.root, Name: st.Raw[0].Name, RedactFP: im.redactFP,
		Off: off, Lines: lines,
		Meta: st.Meta, Import: cloneImport(st.Import), Files: slices.Clone(st.Files), NMsgs: im.msgBase + len(st.Messages),
		Pending: im.pendingSummary, Todos: slices.Clone(im.todos), TodosAt: im.todosAt, Agents: slices.Clone(im.agents),
		LastCtx: im.lastCtx, SessionSeen: im.sessionSeen, Standalone: im.standalone, CustomTitled: im.customTitled,
	}
	if im.redactFP != "" {
		rs.Hash = im.prefixHash(data, off)
	}
	for i, h := range im.hashes {
		// Hash now (finish reuses it): the resume state keeps the hash,
		// not where the content is.
		v := im.hashOf(h)
		im.hashes[i] = hashSource{h: v, done: true}
		rs.Hashes = append(rs.Hashes, hashVal{File: i, Hash: v})
	}
	sort.Slice(rs.Hashes, func(i, j int) bool { return rs.Hashes[i].File < rs.Hashes[j].File })
	rs.Tools = make([]archive.ToolExec, len(st.Tools))
	rs.CmdOmitted = true
	starts := im.mainStarts(data, off, lines)
	rs.IDPos = make([]int, len(st.Tools))
	for i, t := range st.Tools {
		rs.IDPos[i] = idInline
		if pos, ok := im.restored.idPos(i, &t); ok {
			// As restored: the same id in the same bytes.
			rs.IDPos[i] = pos
			if pos != idInline {
				t.ID = ""
			}
		} else if t.Ref.File == 0 && t.Ref.Line >= 0 && t.Ref.Line < len(starts) {
			end := off
			if t.Ref.Line+1 < len(starts) {
				end = starts[t.Ref.Line+1]
			}
			if pos := idPos(&t, data[starts[t.Ref.Line]:end]); pos != idInline {
				rs.IDPos[i] = pos
				t.ID = ""
			}
		}
		if kind, ok := im.restored.cmdKind(i, &t); ok {
			// As restored: the same command from the same input.
			switch kind {
			case cmdDerived:
				t.Command = ""
			case cmdEmptied:
				rs.CmdEmpty = append(rs.CmdEmpty, i)
			}
		} else if !t.Sidechain {
			switch d := shellCommand(t.Name, t.Input); {
			case d == t.Command:
				t.Command = ""
			case t.Command == "":
				rs.CmdEmpty = append(rs.CmdEmpty, i)
			}
		}
		t.Input, t.Output = "", ""
		rs.Tools[i] = t
	}
	for _, m := range st.Messages {
		if keepMessage(&m) {
			if len(m.TextSpans) > 0 {
				m.Text = "" // read back from the line
			}
			rs.Msgs = append(rs.Msgs, m)
		}
	}
	rs.Compactions = make([]archive.Compaction, len(st.Compactions))
	for i, c := range st.Compactions {
		c.Summary = ""
		rs.Compactions[i] = c
	}
	for k := range im.usage {
		rs.Usage = append(rs.Usage, k)
	}
	sort.Slice(rs.Usage, func(i, j int) bool { return rs.Usage[i] < rs.Usage[j] })
	rs.Meta.SubagentIDs = slices.Clone(rs.Meta.SubagentIDs)
	// The subagent files are read after this: the state is encoded with
	// their records at the end (encodeResume).
	im.rs = &rs
}

// encodeResumeAsync encodes the resume state (encodeResume) in the
// background, while the import finishes; the returned function waits for
// it. The state it encodes is its own (takeSnapshot and endRec copy what
// later lines change).
func (im *importer) encodeResumeAsync() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		im.encodeResume()
	}()
	return func() { <-done }
}

// encodeResume encodes the main file's snapshot with the subagent files'
// records as the resume state (ModelSource.Resume).
func (im *importer) encodeResume() {
	rs := im.rs
	if rs == nil || im.snapErr != nil {
		return
	}
	rs.Subs = im.subs
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(rs); err != nil {
		im.snapErr = err
		return
	}
	im.resume = buf.Bytes()
}

// prefixHash is the xxhash64 of data[:off], continuing the resume check's
// digest when it covers a part of it.
func (im *importer) prefixHash(data []byte, off int) uint64 {
	if im.prefix == nil || off < im.prefixOff {
		im.prefix, im.prefixOff = xxhash.New(), 0
	}
	_, _ = im.prefix.Write(data[im.prefixOff:off])
	im.prefixOff = off
	return im.prefix.Sum64()
}

// keepMessage: the messages of the restored part that a resumed import
// keeps (what BuildRecall's requests and the preferences read).
func keepMessage(m *archive.Message) bool {
	return m.Role == "user" && !m.Sidechain && (m.Kind == "" || m.Kind == "prompt" || m.Kind == "text" || m.Kind == "command")
}

// loadResume decodes prev's resume state when prev was written by this
// importer (nil when it was not, or has none).
func loadResume(prev *archive.Archive) *resumeState {
	if src, ok := prev.Source(); !ok || src.Importer != derivedName || src.Version != importerVersion {
		return nil
	}
	b, ok, err := prev.ResumeState()
	if err != nil || !ok {
		return nil
	}
	_, body, _ := parseResumeHeader(b)
	return decodeResume(body)
}

// decodeResume decodes a resume state's msgpack body (nil when
// malformed).
func decodeResume(body []byte) *resumeState {
	var rs resumeState
	if err := unmarshalSafe(body, &rs); err != nil {
		return nil
	}
	return &rs
}

// resumeImport restores the importer from prev's resume state and reads
// the rest of files (a subagent file from its own resume point when it has
// one that applies); ok is false when prev cannot be resumed from (the
// caller then imports in full).
func resumeImport(files []archive.RawFile, redacted []map[int]bool, redactFP string, opt archive.ImportOptions, prev *archive.Archive, pre *resumeState, rm *restoredMain) (*archive.State, bool) {
	if prev == nil || len(files) == 0 || pre == nil {
		return nil, false
	}
	rs := *pre
	im := newImporter(opt)
	im.restored = rm
	im.redacted, im.redactFP = redacted, redactFP
	main := files[0]
	data := main.Data
	if rs.V != resumeVersion || rs.Importer != importerVersion || rs.Root != im.root || rs.Name != main.Name || rs.RedactFP != redactFP ||
		rs.Off <= 0 || rs.Off > len(data) || data[rs.Off-1] != '\n' || rs.Lines <= 0 {
		return nil, false
	}
	if redactFP == "" {
		// The stored bytes are the original ones: the previous archive's
		// chunk digests tell whether the prefix is unchanged (the encoder
		// checks the same digests for the raw segments it copies; it is
		// hashing them in the background while the state is restored, and
		// the prefix is checked before anything is read on from it).
		if rs.Hash != 0 {
			return nil, false
		}
	} else {
		// The prefix check's digest goes on over the new lines for the
		// next resume state: the file is hashed once.
		d := xxhash.New()
		_, _ = d.Write(data[:rs.Off])
		if d.Sum64() != rs.Hash {
			return nil, false
		}
		im.prefix, im.prefixOff = d, rs.Off
	}
	if !im.restore(&rs, data) {
		return nil, false
	}
	if redactFP == "" && !prev.SameOriginalPrefix(main.Name, data, rs.Off) {
		return nil, false
	}
	im.st.Raw = files
	im.snapshot = im.takeSnapshot
	im.recordSubs = true
	im.fileFrom(0, main, rs.Off, rs.Lines)
	subs := make(map[string]*subState, len(rs.Subs))
	for i := range rs.Subs {
		subs[rs.Subs[i].Name] = &rs.Subs[i]
	}
	for fi := 1; fi < len(files); fi++ {
		im.subFile(fi, files[fi], subs[files[fi].Name], prev)
	}
	wait := im.encodeResumeAsync()
	st, err := im.end(opt)
	wait()
	if err != nil || im.snapErr != nil {
		return nil, false
	}
	st.Source.Partial = true
	st.Source.Resume = im.resume
	return st, true
}

// restore loads rs into a fresh importer, resolving the texts the recall
// reads from data (the main file, whose first rs.Off bytes rs was taken
// on). It reports false when rs does not fit data.
func (im *importer) restore(rs *resumeState, data []byte) bool {
	st := im.st
	st.Meta, st.Import, st.Files = rs.Meta, rs.Import, rs.Files
	im.sideKnown, im.standalone, im.customTitled = rs.Off > 0, rs.Standalone, rs.CustomTitled
	rm := im.restored
	starts := lineStartsCap(data[:rs.Off], rs.Lines)
	if len(starts) != rs.Lines {
		return false
	}
	im.starts, im.startsOff = starts, rs.Off
	line := func(ref archive.RawRef) ([]byte, bool) {
		if ref.File != 0 || ref.Line < 0 || ref.Line >= len(starts) {
			return nil, false
		}
		end := rs.Off - 1
		if ref.Line+1 < len(starts) {
			end = starts[ref.Line+1] - 1
		}
		return bytes.TrimRight(data[starts[ref.Line]:end], "\r"), true
	}
	text := func(ref archive.RawRef, spans []archive.Span) (string, bool) {
		if len(spans) == 0 {
			return "", true
		}
		l, ok := line(ref)
		if !ok {
			return "", false
		}
		return archive.SpanText(l, spans)
	}
	var ok bool
	cmdEmpty := rs.CmdEmpty
	if len(im.tools) == 0 {
		im.tools = make(map[string]int, len(rs.Tools)+32)
	}
	if len(im.usage) == 0 {
		im.usage = make(map[uint64]bool, len(rs.Usage)+8)
	}
	if rs.IDPos != nil && len(rs.IDPos) != len(rs.Tools) {
		return false
	}
	for i := range rs.Tools {
		t := &rs.Tools[i]
		if rs.IDPos != nil && rs.IDPos[i] != idInline {
			l, ok := line(t.Ref)
			if !ok {
				return false
			}
			if t.ID, ok = idAt(t, l, rs.IDPos[i]); !ok {
				return false
			}
		}
		// Only the texts the recall reads are resolved (the restored
		// part's conversation is rebuilt from the raw transcript when read).
		in, out := archive.RecallTexts(t)
		if in {
			if t.Input, ok = text(t.Ref, t.InputSpans); !ok {
				return false
			}
		}
		if out {
			if t.Output, ok = text(t.ResultRef, t.OutputSpans); !ok {
				return false
			}
		}
		kind := cmdExplicit
		if rs.CmdOmitted && !t.Sidechain && t.Command == "" {
			if len(cmdEmpty) > 0 && cmdEmpty[0] == i {
				cmdEmpty = cmdEmpty[1:]
				kind = cmdEmptied
			} else {
				t.Command = shellCommand(t.Name, t.Input)
				kind = cmdDerived
			}
		}
		if rm != nil && rs.CmdOmitted && !t.Sidechain {
			rm.noteCmd(i, kind, len(rs.Tools))
		}
		if _, dup := im.tools[t.ID]; !dup || t.ID == "" {
			im.tools[t.ID] = i
		}
	}
	st.Tools = rs.Tools
	if rm != nil {
		rm.note(rs)
	}
	for i := range rs.Msgs {
		m := &rs.Msgs[i]
		if len(m.TextSpans) == 0 {
			continue // kept with its text (a pasted image's marker)
		}
		if m.Text, ok = text(m.Ref, m.TextSpans); !ok {
			return false
		}
	}
	st.Messages = rs.Msgs
	im.msgBase = rs.NMsgs - len(rs.Msgs)
	for i := range rs.Compactions {
		c := &rs.Compactions[i]
		if c.Summary, ok = text(c.SummaryRef, c.SummarySpans); !ok {
			return false
		}
	}
	st.Compactions = rs.Compactions
	for i, f := range st.Files {
		im.files[f.Path] = i
	}
	for _, h := range rs.Hashes {
		if h.File < 0 || h.File >= len(st.Files) {
			return false
		}
		im.hashes[h.File] = hashSource{h: h.Hash, done: true}
	}
	if rs.Pending >= len(st.Compactions) {
		return false
	}
	im.pendingSummary = rs.Pending
	im.todos, im.todosAt, im.agents = rs.Todos, rs.TodosAt, rs.Agents
	for j, a := range im.agents {
		im.agentIdx[a.ID] = j
	}
	for _, k := range rs.Usage {
		im.usage[k] = true
	}
	im.lastCtx, im.sessionSeen = rs.LastCtx, rs.SessionSeen
	return true
}

func lineStarts(data []byte) []int {
	return lineStartsCap(data, bytes.Count(data, []byte{'\n'})+1)
}

// lineStartsCap is lineStarts with the expected number of lines given
// (a capacity hint: the result is the same whatever it is).
func lineStartsCap(data []byte, n int) []int {
	starts := make([]int, 0, min(max(n, 0), len(data)+1))
	for off := 0; off < len(data); {
		starts = append(starts, off)
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return starts
}

// unmarshalSafe decodes msgpack from an archive; hostile bytes give an
// error, never a panic.
func unmarshalSafe(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed resume state: %v", p)
		}
	}()
	return msgpack.Unmarshal(b, v)
}

// restoredMain is what the importer keeps of the main file's restored
// state: where each restored tool's id was, so that the next snapshot need
// not search the lines again.
type restoredMain struct {
	ids   []string
	refs  []archive.RawRef
	inOff []int64 // the first input span's offset, or -1
	pos   []int

	// How each restored main-chain tool's Command was stored (cmdNone for
	// the others), and the name, input and command it was restored with.
	cmd      []cmdForm
	cmdTools []archive.ToolExec
}

// cmdForm is how a resume state stores a main-chain tool's Command.
type cmdForm uint8

const (
	cmdNone     cmdForm = iota // not recorded
	cmdExplicit                // stored as is
	cmdDerived                 // left out: shellCommand gives it back
	cmdEmptied                 // "" although shellCommand gives one (CmdEmpty)
)

// noteCmd records how restored tool i (of n) had its Command stored.
func (rm *restoredMain) noteCmd(i int, form cmdForm, n int) {
	if rm.cmd == nil {
		rm.cmd = make([]cmdForm, n)
	}
	rm.cmd[i] = form
}

// cmdKind returns how restored tool i's Command was stored when t still
// has the name, input and command it was restored with (the next
// snapshot stores it the same way); ok is false otherwise.
func (rm *restoredMain) cmdKind(i int, t *archive.ToolExec) (cmdForm, bool) {
	if rm == nil || i >= len(rm.cmd) || i >= len(rm.cmdTools) || rm.cmd[i] == cmdNone || t.Sidechain {
		return cmdNone, false
	}
	r := &rm.cmdTools[i]
	if t.Name != r.Name || t.Input != r.Input || t.Command != r.Command {
		return cmdNone, false
	}
	return rm.cmd[i], true
}

func firstInputOff(t *archive.ToolExec) int64 {
	if len(t.InputSpans) == 0 {
		return -1
	}
	return int64(t.InputSpans[0].Off)
}

// note records the restored tools' ids and positions (rs.Tools with their
// ids resolved).
func (rm *restoredMain) note(rs *resumeState) {
	n := len(rs.Tools)
	if rs.IDPos != nil {
		rm.ids, rm.refs, rm.inOff, rm.pos = make([]string, n), make([]archive.RawRef, n), make([]int64, n), rs.IDPos
		for i := range rs.Tools {
			t := &rs.Tools[i]
			rm.ids[i], rm.refs[i], rm.inOff[i] = t.ID, t.Ref, firstInputOff(t)
		}
	}
	if rm.cmd != nil {
		rm.cmdTools = make([]archive.ToolExec, n)
		for i := range rs.Tools {
			t := &rs.Tools[i]
			rm.cmdTools[i] = archive.ToolExec{Name: t.Name, Input: t.Input, Command: t.Command}
		}
	}
}

// idPos returns the IDPos restored for tool i when t still has the id,
// line and input it was restored with (the prefix is unchanged, so idPos
// would find the same); ok is false otherwise.
func (rm *restoredMain) idPos(i int, t *archive.ToolExec) (int, bool) {
	if rm == nil || i >= len(rm.pos) || t.ID != rm.ids[i] || t.Ref != rm.refs[i] || firstInputOff(t) != rm.inOff[i] {
		return 0, false
	}
	return rm.pos[i], true
}

// resumeHeader started an encoded resume state of importer versions
// whose incremental saves read only part of the main file's prefix: the
// main file's resume point and the lines restore read there. New states
// have none; parseResumeHeader skips it in older ones.
//
//	"B10R" uvarint(off) uvarint(lines) uvarint(n) n × uvarint(line delta)
var resumeMagic = []byte("B10R")

// resumeHint is a parsed resume header: the lines restore read, in
// increasing order (at most one per byte of the header: its size is
// bounded by the input's, whatever the numbers in it say).
type resumeHint struct {
	off, lines int
	kept       []int
}

// parseResumeHeader splits an encoded resume state into its header (ok
// false when there is none or it is malformed) and its msgpack body.
func parseResumeHeader(b []byte) (h resumeHint, body []byte, ok bool) {
	if !bytes.HasPrefix(b, resumeMagic) {
		return h, b, false
	}
	r := b[len(resumeMagic):]
	next := func() (int, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 || v > uint64(len(b))<<32 {
			return 0, false
		}
		r = r[n:]
		return int(v), true
	}
	var good [3]bool
	var n int
	h.off, good[0] = next()
	h.lines, good[1] = next()
	n, good[2] = next()
	if !good[0] || !good[1] || !good[2] || h.lines > h.off || n > h.lines || n > len(r) {
		return resumeHint{}, nil, false
	}
	h.kept = make([]int, 0, n)
	l := 0
	for i := range n {
		d, ok := next()
		if !ok || (i > 0 && d == 0) || d >= h.lines-l {
			return resumeHint{}, nil, false
		}
		l += d
		h.kept = append(h.kept, l)
	}
	return h, r, true
}
