package claude

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
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
// state was taken on (same length prefix, same xxhash64), the importer
// version and project root are the same and the previous archive derives its
// conversation from the raw transcript; it then reads only the new lines of
// the main file and, from the start, the subagent files (which a full import
// also reads after the main file). Anything else is a full import.
//
// The restored State is partial (archive.ModelSource.Partial): its Tools are
// all the session's tools, but its Messages are only those the recall and
// the preferences read from the restored part (main-chain user messages)
// plus every message read after the resume point. What is stored is the
// same as after a full import: the conversation is rebuilt from the raw
// transcript when it is read, and every other component is computed from
// the restored state exactly as the full import computes it (checked by
// TestResumeMatchesFullImport on the corpus).

// resumeVersion changes whenever resumeState's meaning does.
const resumeVersion = 1

type resumeState struct {
	V        int    `msgpack:"v"`
	Importer int    `msgpack:"importer"`
	Root     string `msgpack:"root"`
	Name     string `msgpack:"name"`  // main file
	Off      int    `msgpack:"off"`   // bytes read (complete lines)
	Lines    int    `msgpack:"lines"` // lines read
	Hash     uint64 `msgpack:"hash"`  // xxhash64 of the bytes read

	Meta        archive.Metadata     `msgpack:"meta"`
	Import      archive.ImportReport `msgpack:"import"`
	Files       []archive.FileRecord `msgpack:"files"`
	Hashes      []hashRef            `msgpack:"hashes"`
	Tools       []archive.ToolExec   `msgpack:"tools"` // texts left out (spans kept)
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
}

// hashRef is a hashSource as offsets into the main file.
type hashRef struct {
	File       int    `msgpack:"f"`
	Line       int    `msgpack:"o"` // offset of the line body in the main file
	Len        int    `msgpack:"n"`
	Vals       [6]int `msgpack:"v"` // content, old, new (start, end) relative to the line
	ReplaceAll bool   `msgpack:"ra,omitempty"`
	Edit       bool   `msgpack:"e,omitempty"`
}

// takeSnapshot records the importer's state after off bytes (lines lines)
// of the main file data, as ModelSource.Resume.
func (im *importer) takeSnapshot(data []byte, off, lines int) {
	st := im.st
	rs := resumeState{
		V: resumeVersion, Importer: importerVersion, Root: im.root, Name: st.Raw[0].Name,
		Off: off, Lines: lines, Hash: xxhash.Sum64(data[:off]),
		Meta: st.Meta, Import: st.Import, Files: st.Files, NMsgs: im.msgBase + len(st.Messages),
		Pending: im.pendingSummary, Todos: im.todos, TodosAt: im.todosAt, Agents: im.agents,
		LastCtx: im.lastCtx, SessionSeen: im.sessionSeen,
	}
	for i, h := range im.hashes {
		if h.fi != 0 || h.off < 0 || h.off+len(h.b) > off {
			im.snapErr = errSnapshot
			return
		}
		rs.Hashes = append(rs.Hashes, hashRef{File: i, Line: h.off, Len: len(h.b),
			Vals: [6]int{h.content.S, h.content.E, h.old.S, h.old.E, h.new.S, h.new.E}, ReplaceAll: h.replaceAll, Edit: h.edit})
	}
	sortHashRefs(rs.Hashes)
	rs.Tools = make([]archive.ToolExec, len(st.Tools))
	for i, t := range st.Tools {
		t.Input, t.Output = "", ""
		rs.Tools[i] = t
	}
	for _, m := range st.Messages {
		if keepMessage(&m) {
			m.Text = ""
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
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(&rs); err != nil {
		im.snapErr = err
		return
	}
	im.resume = buf.Bytes()
}

// keepMessage: the messages of the restored part that a resumed import
// keeps (what BuildRecall's requests and the preferences read).
func keepMessage(m *archive.Message) bool {
	return m.Role == "user" && !m.Sidechain && (m.Kind == "" || m.Kind == "prompt" || m.Kind == "text" || m.Kind == "command")
}

// resumeImport restores the importer from prev's resume state and reads
// the rest of files; ok is false when prev cannot be resumed from (the
// caller then imports in full).
func resumeImport(files []archive.RawFile, opt archive.ImportOptions, prev *archive.Archive) (*archive.State, bool) {
	if prev == nil || len(files) == 0 {
		return nil, false
	}
	if src, ok := prev.Source(); !ok || src.Importer != importerName || src.Version != importerVersion {
		return nil, false
	}
	b, ok, err := prev.ResumeState()
	if err != nil || !ok {
		return nil, false
	}
	var rs resumeState
	if err := unmarshalSafe(b, &rs); err != nil {
		return nil, false
	}
	im := newImporter(opt)
	main := files[0]
	data := main.Data
	if rs.V != resumeVersion || rs.Importer != importerVersion || rs.Root != im.root || rs.Name != main.Name ||
		rs.Off <= 0 || rs.Off > len(data) || data[rs.Off-1] != '\n' || rs.Lines <= 0 || xxhash.Sum64(data[:rs.Off]) != rs.Hash {
		return nil, false
	}
	if !im.restore(&rs, data) {
		return nil, false
	}
	im.st.Raw = files
	im.snapshot = im.takeSnapshot
	im.fileFrom(0, main, rs.Off, rs.Lines)
	for fi := 1; fi < len(files); fi++ {
		im.file(fi, files[fi])
	}
	st, err := im.end(opt)
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
	starts := lineStarts(data[:rs.Off])
	if len(starts) != rs.Lines {
		return false
	}
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
	for i := range rs.Tools {
		t := &rs.Tools[i]
		if t.Input, ok = text(t.Ref, t.InputSpans); !ok {
			return false
		}
		if t.Output, ok = text(t.ResultRef, t.OutputSpans); !ok {
			return false
		}
		if _, dup := im.tools[t.ID]; !dup || t.ID == "" {
			im.tools[t.ID] = i
		}
	}
	st.Tools = rs.Tools
	for i := range rs.Msgs {
		m := &rs.Msgs[i]
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
		if h.File < 0 || h.File >= len(st.Files) || h.Line < 0 || h.Len < 0 || h.Line+h.Len > rs.Off {
			return false
		}
		b := data[h.Line : h.Line+h.Len]
		for _, v := range h.Vals {
			if v < 0 || v > len(b) {
				return false
			}
		}
		im.hashes[h.File] = hashSource{b: b, off: h.Line, content: jscan.Val{S: h.Vals[0], E: h.Vals[1]},
			old: jscan.Val{S: h.Vals[2], E: h.Vals[3]}, new: jscan.Val{S: h.Vals[4], E: h.Vals[5]},
			replaceAll: h.ReplaceAll, edit: h.Edit}
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
	starts := make([]int, 0, bytes.Count(data, []byte{'\n'})+1)
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

func lineCount(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

var errSnapshot = errors.New("claude: resume snapshot: hash source outside the main file's read part")

func sortHashRefs(h []hashRef) { sort.Slice(h, func(i, j int) bool { return h[i].File < h[j].File }) }

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
