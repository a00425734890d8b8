package claude

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"slices"

	"github.com/ben10ctx/ben10/archive"
)

// An incremental save without the main file's unchanged prefix in memory.
// When the previous archive's resume state applies (and redaction is off
// for both archives, or both redact line by line with the same
// configuration), the main file is read with archive.Archive.ReadGrown:
// its prefix is checked against the previous archive's chunk digests (of
// the original bytes, also when redacted) while it streams through a
// small buffer, and only the lines the restored state points into
// (restoreLines) are kept; the rest of the file is read in full. The
// importer restores from those lines, the encoder copies the prefix's
// segments. With redaction, the importer reads the stored view of the
// file the encoder makes from it (archive.GrownData: the kept lines
// redaction changed before are redacted again, the offsets shifted) and
// the state's digest of the redacted prefix goes on from the state it
// recorded (resumeState.HashState) instead of hashing the prefix again.
// Anything that does not fit (ReadGrown declines, the encoder cannot make
// the stored view, the state does not restore) is an ordinary save,
// reading the files whole.

// restoredMain is what the importer keeps of the main file's restored
// state: which prefix lines were read (with a GrownFile) and where each
// restored tool's id was, so that the next snapshot need not search the
// lines again.
type restoredMain struct {
	grown *archive.GrownFile // nil: the main file was read whole
	// foldN: the first foldN tools are restored without their texts, the
	// previous archive's recall fold covering them (with grown only).
	foldN int

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

// endsLine reports whether data[:off] (0 < off <= len(data)) ends a
// line. Before a GrownFile's From, ReadGrown checked that the part it
// streamed, which ends at From, ends a line.
func (rm *restoredMain) endsLine(data []byte, off int) bool {
	if rm != nil && rm.grown != nil && off <= rm.grown.From {
		return off == rm.grown.From
	}
	return data[off-1] == '\n'
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

// restoreLines marks the main-file lines restore reads for rs: the lines
// holding the ids it locates and the texts the recall reads, but for the
// first foldN tools (whose part of the recall the next save takes from
// the recall fold, archive.RecallFoldPoint) only the plans' inputs and
// the shell inputs commands are derived from (see restore).
func restoreLines(rs *resumeState, foldN int) []bool {
	kept := make([]bool, rs.Lines)
	mark := func(ref archive.RawRef) {
		if ref.File == 0 && ref.Line >= 0 && ref.Line < len(kept) {
			kept[ref.Line] = true
		}
	}
	emptied := rs.CmdEmpty
	for i := range rs.Tools {
		t := &rs.Tools[i]
		if rs.IDPos != nil && i < len(rs.IDPos) && rs.IDPos[i] != idInline {
			mark(t.Ref)
		}
		in, out := archive.RecallTexts(t)
		if i < foldN {
			for len(emptied) > 0 && emptied[0] < i {
				emptied = emptied[1:]
			}
			derive := rs.CmdOmitted && !t.Sidechain && t.Command == "" && !(len(emptied) > 0 && emptied[0] == i) && isShellTool(t.Name)
			in, out = in && (derive || t.Name == "ExitPlanMode"), false
		}
		if in && len(t.InputSpans) > 0 {
			mark(t.Ref)
		}
		if out && len(t.OutputSpans) > 0 {
			mark(t.ResultRef)
		}
	}
	for i := range rs.Msgs {
		if len(rs.Msgs[i].TextSpans) > 0 {
			mark(rs.Msgs[i].Ref)
		}
	}
	for i := range rs.Compactions {
		if len(rs.Compactions[i].SummarySpans) > 0 {
			mark(rs.Compactions[i].SummaryRef)
		}
	}
	return kept
}

// resumeHeader starts an encoded resume state (version 8 on): the main
// file's resume point and the lines restore reads there (restoreLines),
// so that an incremental save can start reading the main file while the
// rest of the state is decoded. It is a hint: restore fails, and the save
// reads the files whole, when a line it needs was not read.
//
//	"B10R" uvarint(off) uvarint(lines) uvarint(n) n × uvarint(line delta)
var resumeMagic = []byte("B10R")

// appendResumeHeader appends rs's header to dst (foldN: see
// restoreLines).
func appendResumeHeader(dst []byte, rs *resumeState, foldN int) []byte {
	dst = append(dst, resumeMagic...)
	dst = binary.AppendUvarint(dst, uint64(rs.Off))
	dst = binary.AppendUvarint(dst, uint64(rs.Lines))
	kept := restoreLines(rs, foldN)
	n := 0
	for _, k := range kept {
		if k {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	last := 0
	for l, k := range kept {
		if k {
			dst = binary.AppendUvarint(dst, uint64(l-last))
			last = l
		}
	}
	return dst
}

// resumeHint is a parsed resume header: the lines restore reads, in
// increasing order (at most one per byte of the header: its size is
// bounded by the input's, whatever the numbers in it say).
type resumeHint struct {
	off, lines int
	kept       []int
}

// keeper returns a function reporting whether line l is one of h's;
// ReadGrown asks in increasing order, which its cursor follows.
func (h *resumeHint) keeper() func(l int) bool {
	next, last := 0, -1
	return func(l int) bool {
		if l < last {
			// Out of order: search.
			_, found := slices.BinarySearch(h.kept, l)
			return found
		}
		last = l
		for next < len(h.kept) && h.kept[next] < l {
			next++
		}
		return next < len(h.kept) && h.kept[next] == l
	}
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

// saveGrown is Save reading the main file with ReadGrown (see above), the
// resume state decoded and the subagent files read meanwhile; ok is false,
// with nothing written to w, when that does not apply (the caller then
// saves reading the files whole).
func saveGrown(w io.Writer, path string, iopt archive.ImportOptions, eopt archive.EncodeOptions) (st *archive.State, stats archive.EncodeStats, ok bool, err error) {
	prev := eopt.Previous
	if src, ok := prev.Source(); !ok || src.Importer != derivedName || src.Version != importerVersion {
		return nil, stats, false, nil
	}
	b, ok, err := prev.ResumeState()
	if err != nil || !ok {
		return nil, stats, false, nil
	}
	h, body, ok := parseResumeHeader(b)
	if !ok {
		return nil, stats, false, nil
	}
	var pre *resumeState
	var subs []archive.RawFile
	var subErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		pre = decodeResume(body)
		subs, subErr = readSubagents(path, iopt, nil)
	}()
	name := filepath.Base(path)
	g, ok, err := prev.ReadGrown(path, name, h.off, eopt.ChunkSize, MaxFileSize, h.keeper())
	<-done
	fp := ""
	if eopt.RedactLine != nil {
		fp = eopt.RedactFingerprint
	}
	// A redacted state goes on from its digest's state (an older one
	// without it is resumed reading the files whole); an unredacted one
	// has neither.
	hashed := pre != nil && (fp != "" && len(pre.HashState) > 0 || fp == "" && pre.Hash == 0 && len(pre.HashState) == 0)
	if err != nil || !ok || pre == nil || subErr != nil || pre.V != resumeVersion || pre.Importer != importerVersion || pre.Name != name ||
		pre.RedactFP != fp || !hashed || pre.Off != h.off || pre.Lines != h.lines || pre.Root != newImporter(iopt).root {
		return nil, stats, false, nil // read again, whole (reporting any error)
	}
	files := append([]archive.RawFile{{Name: name, Data: g.Data}}, subs...)
	// The raw files' new parts are compressed while the state is restored
	// and the new lines read.
	enc, err := archive.NewEncoder(w, eopt)
	if err != nil {
		return nil, stats, true, err
	}
	enc.StartRaw(files)
	src, redacted := files, []map[int]bool(nil)
	if fp != "" {
		// The model is built from the stored (redacted) files; the main
		// one's view is as sparse as g.
		var err error
		if src, redacted, err = enc.Stored(); err != nil {
			enc.Discard()
			return nil, stats, false, nil
		}
		if g, ok = archive.GrownData(src[0].Data); !ok {
			enc.Discard()
			return nil, stats, false, nil
		}
	}
	rm := &restoredMain{grown: g}
	if n := prev.RecallFoldTools(); n <= len(pre.Tools) {
		rm.foldN = n
	}
	st, ok = resumeImport(src, redacted, fp, iopt, prev, pre, rm)
	if !ok {
		enc.Discard()
		return nil, stats, false, nil
	}
	stats, err = enc.Finish(st)
	if errors.Is(err, archive.ErrFoldMismatch) {
		// Some tool the fold covers changed: nothing was written; save
		// again with every text.
		return nil, stats, false, nil
	}
	if err != nil {
		return nil, stats, true, err
	}
	return st, stats, true, nil
}
