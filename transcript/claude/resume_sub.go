package claude

import (
	"bytes"
	"maps"
	"sort"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/ben10ctx/ben10/archive"
)

// Per-subagent resume points. A full import reads the subagent files after
// the main file, so a resumed import reads the main file's new lines
// before them: a subagent file's effect on the importer cannot be a
// snapshot of the importer's state. It is recorded instead as the file's
// own contribution (subState), which the next save re-applies on top of
// whatever the main file's new lines did, when the file still starts with
// the bytes it was recorded on and nothing the file's lines look up was
// changed by the lines read before it (the file is then "independent"):
//
//   - its tools' ids (tool_use and tool_result) name no tool read before
//     the file, so its results bind to its own tools only;
//   - its responses' usage keys were not counted before the file;
//   - it holds no legacy `summary` line (a compaction numbered by the
//     messages read before it), and an isCompactSummary line only when no
//     main-file compaction waits for its summary;
//   - paths are made relative to the same root.
//
// Everything else a subagent line does commutes with the main file's lines
// or is kept per file: counters and problems add up, timestamps take the
// minimum and maximum, the file registry's entries add up per path (new
// paths appended in the order the file first touched them, the last
// hash-changing operation winning), tools are appended, a custom title
// overrides. Sidechain messages are counted, not kept (no component of a
// resumed State reads them: the conversation is rebuilt from the raw
// transcript). A file that grew resumes from its recorded offset: the
// contribution is applied, then the new lines are read. Anything else is
// read from the start (and recorded again when independent). The
// equivalence with a full import is checked by
// TestSubagentResume* and TestResumeMatchesFullImportCorpus.

// subState is one subagent file's recorded contribution, from its first
// Off bytes (Lines complete lines).
type subState struct {
	Name  string `msgpack:"name"`
	Off   int    `msgpack:"off"`
	Lines int    `msgpack:"lines"`
	// Hash: as resumeState.Hash (0 without redaction: the previous
	// archive's chunk digests vouch for the prefix).
	Hash uint64 `msgpack:"hash"`
	// File is the file's index when recorded (Ref.File of its tools).
	File   int                  `msgpack:"file"`
	Root   string               `msgpack:"root"` // root paths were made relative to
	First  time.Time            `msgpack:"first"`
	Last   time.Time            `msgpack:"last"`
	Title  string               `msgpack:"title,omitempty"`
	Import archive.ImportReport `msgpack:"import"` // the file's own counters and problems (Files not counted)
	Tokens int64                `msgpack:"tokens"`
	NMsgs  int                  `msgpack:"nmsgs"`
	Keys   []uint64             `msgpack:"keys"` // usage keys counted (sorted)
	// IDs are the tool ids the file looked up (uses and results) besides
	// its own tools' (which Tools gives back), sorted.
	IDs         []string   `msgpack:"ids"`
	Tools       toolSkels  `msgpack:"tools"`
	IDPos       []int      `msgpack:"id_pos"`
	Touches     []subTouch `msgpack:"touches"`
	CompSummary bool       `msgpack:"comp_summary,omitempty"`
}

// subTouch is what a subagent file did to one file registry entry.
type subTouch struct {
	Path   string    `msgpack:"p"`
	Access int       `msgpack:"n"`
	R      int       `msgpack:"r,omitempty"`
	E      int       `msgpack:"e,omitempty"`
	W      int       `msgpack:"w,omitempty"`
	Last   time.Time `msgpack:"t"`
	// HashOp is the last operation of the file on the entry's content
	// hash: 0 none, hashDelete, hashSet. (FileRecord.Hash itself is only
	// set when the import finishes, from the hashes left.)
	HashOp int8   `msgpack:"o,omitempty"`
	Hash   string `msgpack:"h,omitempty"` // hashSet: the content hash
	srcSet bool   // (recording) hashSet from this file
	order  int
}

const (
	hashDelete = 1
	hashSet    = 2
)

// subRec records one subagent file while it is read.
type subRec struct {
	fi        int
	n0        int // len(st.Tools) when the file started
	tokens0   int64
	msgs0     int
	imp0      archive.ImportReport
	dependent bool // something it read depends on the lines before it
	st        subState
	keys      map[uint64]bool
	ids       map[string]bool
	touches   map[string]*subTouch
}

func (im *importer) effectiveRoot() string {
	if im.root != "" {
		return im.root
	}
	return im.st.Meta.DirectoryPath
}

// startRec starts recording subagent file fi (named name).
func (im *importer) startRec(fi int, name string) *subRec {
	st := im.st
	r := &subRec{
		fi: fi, n0: len(st.Tools), tokens0: st.Meta.TotalTokens, msgs0: im.msgBase + len(st.Messages),
		imp0: st.Import, keys: map[uint64]bool{}, ids: map[string]bool{}, touches: map[string]*subTouch{},
	}
	r.st.Name, r.st.File, r.st.Root = name, fi, im.effectiveRoot()
	r.st.Import.Problems = nil
	return r
}

// recTime, recTitle, recProblem, recUnknown, recKey, recToolID, recTouch
// and recHash are the importer's hooks (no-ops when im.rec is nil).
func (im *importer) recTime(ts time.Time) {
	r := im.rec
	if r == nil || ts.IsZero() {
		return
	}
	if r.st.First.IsZero() || ts.Before(r.st.First) {
		r.st.First = ts
	}
	if ts.After(r.st.Last) {
		r.st.Last = ts
	}
}

func (im *importer) recProblem(p string) {
	if r := im.rec; r != nil && len(r.st.Import.Problems) < maxProblems {
		r.st.Import.Problems = append(r.st.Import.Problems, p)
	}
}

func (im *importer) recUnknown(typ string) {
	if r := im.rec; r != nil {
		if r.st.Import.UnknownTypes == nil {
			r.st.Import.UnknownTypes = map[string]int{}
		}
		r.st.Import.UnknownTypes[typ]++
	}
}

// recKey is called before usage key k is looked up.
func (im *importer) recKey(k uint64) {
	r := im.rec
	if r == nil {
		return
	}
	if im.usage[k] && !r.keys[k] {
		r.dependent = true
	}
	r.keys[k] = true
}

// recToolID is called before tool id is looked up (use or result).
func (im *importer) recToolID(id string) {
	r := im.rec
	if r == nil || id == "" {
		return
	}
	if i, ok := im.tools[id]; ok && i < r.n0 {
		r.dependent = true
	}
	r.ids[id] = true
}

func (r *subRec) touch(p string) *subTouch {
	t := r.touches[p]
	if t == nil {
		t = &subTouch{Path: p, order: len(r.touches)}
		r.touches[p] = t
	}
	return t
}

// recTouch mirrors touch for one path.
func (im *importer) recTouch(p string, ts time.Time, op byte, src bool) {
	r := im.rec
	if r == nil {
		return
	}
	t := r.touch(p)
	t.Access++
	switch op {
	case 'r':
		t.R++
	case 'e':
		t.E++
		t.HashOp, t.srcSet, t.Hash = hashDelete, false, ""
	case 'w':
		t.W++
		t.HashOp, t.srcSet, t.Hash = hashDelete, false, ""
		if src {
			t.HashOp, t.srcSet = hashSet, true
		}
	}
	if ts.After(t.Last) {
		t.Last = ts
	}
}

// recHash mirrors resultHash's setHash for path p.
func (im *importer) recHash(p string) {
	if r := im.rec; r != nil {
		t := r.touch(p)
		t.HashOp, t.srcSet = hashSet, true
	}
}

// endRec finishes recording after off bytes (lines complete lines) of
// data: the recorded state when the file was independent, else nil.
func (im *importer) endRec(data []byte, off, lines int) {
	r := im.rec
	im.rec = nil
	if r == nil || r.dependent || off <= 0 || lines <= 0 {
		return
	}
	st := im.st
	s := &r.st
	s.Off, s.Lines = off, lines
	if im.redactFP != "" {
		if r := &im.replayed; r.data == &data[0] && r.off == off {
			s.Hash = r.hash // the file did not grow since its record
		} else {
			s.Hash = xxhash.Sum64(data[:off])
		}
	}
	s.Tokens = st.Meta.TotalTokens - r.tokens0
	s.NMsgs = im.msgBase + len(st.Messages) - r.msgs0
	imp := st.Import
	s.Import.Lines = imp.Lines - r.imp0.Lines
	s.Import.Skipped = imp.Skipped - r.imp0.Skipped
	s.Import.Partial = imp.Partial - r.imp0.Partial
	s.Import.InvalidUTF8 = imp.InvalidUTF8 - r.imp0.InvalidUTF8
	s.Import.Blank = imp.Blank - r.imp0.Blank
	s.Import.Truncated = imp.Truncated && !r.imp0.Truncated
	s.Keys = make([]uint64, 0, len(r.keys))
	for k := range r.keys {
		s.Keys = append(s.Keys, k)
	}
	sort.Slice(s.Keys, func(i, j int) bool { return s.Keys[i] < s.Keys[j] })
	own := make(map[string]bool, len(st.Tools)-r.n0)
	for _, t := range st.Tools[r.n0:] {
		own[t.ID] = true
	}
	s.IDs = nil
	for id := range r.ids {
		if !own[id] {
			s.IDs = append(s.IDs, id)
		}
	}
	sort.Strings(s.IDs)
	s.Touches = make([]subTouch, len(r.touches))
	for p, t := range r.touches {
		if t.HashOp == hashSet && t.srcSet {
			i, ok := im.files[p]
			src, ok2 := im.hashes[i]
			if !ok || !ok2 {
				return
			}
			t.Hash = im.hashOf(src)
			im.hashes[i] = hashSource{h: t.Hash, done: true}
		}
		s.Touches[t.order] = *t
	}
	starts := lineStartsCap(data[:off], lines)
	s.Tools = make([]archive.ToolExec, len(st.Tools)-r.n0)
	s.IDPos = make([]int, len(s.Tools))
	for i := range s.Tools {
		t := st.Tools[r.n0+i]
		s.IDPos[i] = idInline
		if t.Ref.File == r.fi && t.Ref.Line >= 0 && t.Ref.Line < len(starts) {
			end := off
			if t.Ref.Line+1 < len(starts) {
				end = starts[t.Ref.Line+1]
			}
			if pos := idPos(&t, data[starts[t.Ref.Line]:end]); pos != idInline {
				s.IDPos[i] = pos
				t.ID = ""
			}
		}
		t.Input, t.Output = "", ""
		s.Tools[i] = t
	}
	im.subs = append(im.subs, *s)
}

// subFile reads subagent file fi, resuming from its recorded contribution
// (prev's resume state) when it applies, and records it for the next one.
func (im *importer) subFile(fi int, f archive.RawFile, rec *subState, prev *archive.Archive) {
	if rec != nil && im.replay(fi, f, rec, prev) {
		return
	}
	im.file(fi, f)
}

// replay applies rec to the importer for file fi and reads the rest of
// the file; it reports false, having changed nothing, when rec does not
// apply.
func (im *importer) replay(fi int, f archive.RawFile, s *subState, prev *archive.Archive) bool {
	data := f.Data
	if s.Name != f.Name || s.Off <= 0 || s.Off > len(data) || data[s.Off-1] != '\n' || s.Lines <= 0 ||
		s.Root != im.effectiveRoot() || (s.CompSummary && im.pendingSummary >= 0) || len(s.IDPos) != len(s.Tools) ||
		s.NMsgs < 0 || s.Import.Lines < 0 || s.Import.Skipped < 0 || s.Import.Partial < 0 || s.Import.InvalidUTF8 < 0 || s.Import.Blank < 0 {
		return false
	}
	if im.redactFP == "" {
		if s.Hash != 0 || !prev.SameOriginalPrefix(f.Name, data, s.Off) {
			return false
		}
	} else if xxhash.Sum64(data[:s.Off]) != s.Hash {
		return false
	} else {
		im.replayed.data, im.replayed.off, im.replayed.hash = &data[0], s.Off, s.Hash
	}
	for _, k := range s.Keys {
		if im.usage[k] {
			return false
		}
	}
	for _, t := range s.Touches {
		if t.Access < 0 || t.R < 0 || t.E < 0 || t.W < 0 || t.HashOp < 0 || t.HashOp > hashSet {
			return false
		}
		if t.Access == 0 {
			// Only a result's hash: the entry must be there.
			if _, ok := im.files[t.Path]; !ok {
				return false
			}
		}
	}
	// The tools, resolved before anything changes.
	tools := make([]archive.ToolExec, len(s.Tools))
	var starts []int
	for i, t := range s.Tools {
		if t.Ref.File == s.File {
			t.Ref.File = fi
		}
		if t.ResultRef.File == s.File {
			t.ResultRef.File = fi
		}
		if s.IDPos[i] != idInline {
			if starts == nil {
				starts = lineStartsCap(data[:s.Off], s.Lines)
				if len(starts) != s.Lines {
					return false
				}
			}
			if t.Ref.File != fi || t.Ref.Line < 0 || t.Ref.Line >= len(starts) {
				return false
			}
			end := s.Off
			if t.Ref.Line+1 < len(starts) {
				end = starts[t.Ref.Line+1]
			}
			var ok bool
			if t.ID, ok = idAt(&t, bytes.TrimRight(data[starts[t.Ref.Line]:end], "\r\n"), s.IDPos[i]); !ok {
				return false
			}
		}
		if in, out := archive.RecallTexts(&t); in || out {
			// Sidechain tools only: the recall reads no text of theirs.
			return false
		}
		tools[i] = t
	}
	for _, ids := range [][]string{s.IDs, toolIDs(tools)} {
		for _, id := range ids {
			if _, ok := im.tools[id]; ok && id != "" {
				return false
			}
		}
	}

	// Apply, recording again for the next resume state.
	st := im.st
	st.Import.Files++
	im.rec = im.startRec(fi, f.Name)
	r := im.rec
	for _, t := range tools {
		if _, dup := im.tools[t.ID]; !dup || t.ID == "" {
			im.tools[t.ID] = len(st.Tools)
		}
		st.Tools = append(st.Tools, t)
	}
	for _, id := range s.IDs {
		r.ids[id] = true
	}
	for _, t := range tools {
		if t.ID != "" {
			r.ids[t.ID] = true
		}
	}
	for _, k := range s.Keys {
		im.usage[k] = true
		r.keys[k] = true
	}
	st.Meta.TotalTokens += s.Tokens
	im.msgBase += s.NMsgs
	im.recTime(s.First)
	im.recTime(s.Last)
	m := &st.Meta
	if !s.First.IsZero() && (m.FirstActivity.IsZero() || s.First.Before(m.FirstActivity)) {
		m.FirstActivity = s.First
	}
	if s.Last.After(m.LastActivity) {
		m.LastActivity = s.Last
	}
	if s.Title != "" {
		m.Title = s.Title
		r.st.Title = s.Title
	}
	imp := &st.Import
	imp.Lines += s.Import.Lines
	imp.Skipped += s.Import.Skipped
	imp.Partial += s.Import.Partial
	imp.InvalidUTF8 += s.Import.InvalidUTF8
	imp.Blank += s.Import.Blank
	imp.Truncated = imp.Truncated || s.Import.Truncated
	for _, p := range s.Import.Problems {
		if len(imp.Problems) < maxProblems {
			imp.Problems = append(imp.Problems, p)
		}
		im.recProblem(p)
	}
	if len(s.Import.UnknownTypes) > 0 {
		if imp.UnknownTypes == nil {
			imp.UnknownTypes = map[string]int{}
		}
		if r.st.Import.UnknownTypes == nil {
			r.st.Import.UnknownTypes = map[string]int{}
		}
		for k, n := range s.Import.UnknownTypes {
			imp.UnknownTypes[k] += n
			r.st.Import.UnknownTypes[k] += n
		}
	}
	r.st.CompSummary = s.CompSummary
	for _, t := range s.Touches {
		i, ok := im.files[t.Path]
		if !ok {
			i = len(st.Files)
			im.files[t.Path] = i
			st.Files = append(st.Files, archive.FileRecord{Path: t.Path})
		}
		fr := &st.Files[i]
		fr.AccessCount += t.Access
		fr.Reads += t.R
		fr.Edits += t.E
		fr.Writes += t.W
		if t.Last.After(fr.LastAccess) {
			fr.LastAccess = t.Last
		}
		switch t.HashOp {
		case hashDelete:
			delete(im.hashes, i)
		case hashSet:
			im.hashes[i] = hashSource{h: t.Hash, done: true}
		}
		rt := r.touch(t.Path)
		order := rt.order
		*rt = t
		rt.order = order
		// A set hash is carried over as its value.
		rt.srcSet = false
	}
	// The rest of the file.
	im.fileFrom(fi, f, s.Off, s.Lines)
	subReplays.Add(1)
	return true
}

// subReplays counts the subagent files resumed from a recorded
// contribution (read by the tests).
var subReplays atomic.Int64

func toolIDs(ts []archive.ToolExec) []string {
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	return ids
}

// cloneImport copies r's map and slice so that later lines do not change
// the copy.
func cloneImport(r archive.ImportReport) archive.ImportReport {
	r.UnknownTypes = maps.Clone(r.UnknownTypes)
	r.Problems = append([]string(nil), r.Problems...)
	return r
}
