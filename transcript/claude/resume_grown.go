package claude

import (
	"io"
	"path/filepath"

	"github.com/ben10ctx/ben10/archive"
)

// An incremental save without the main file's unchanged prefix in memory.
// When the previous archive's resume state applies and nothing is
// redacted, the main file is read with archive.Archive.ReadGrown: its
// prefix is checked against the previous archive's chunk digests while it
// streams through a small buffer, and only the lines the restored state
// points into (restoreLines) are kept; the rest of the file is read in
// full. The importer restores from those lines, the encoder copies the
// prefix's segments. Anything that does not fit (ReadGrown declines, the
// state does not restore) is an ordinary save, reading the files whole.

// restoredMain is what the importer keeps of the main file's restored
// state: which prefix lines were read (with a GrownFile) and where each
// restored tool's id was, so that the next snapshot need not search the
// lines again.
type restoredMain struct {
	grown *archive.GrownFile // nil: the main file was read whole

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
// holding the ids it locates and the texts the recall reads.
func restoreLines(rs *resumeState) []bool {
	kept := make([]bool, rs.Lines)
	mark := func(ref archive.RawRef) {
		if ref.File == 0 && ref.Line >= 0 && ref.Line < len(kept) {
			kept[ref.Line] = true
		}
	}
	for i := range rs.Tools {
		t := &rs.Tools[i]
		if rs.IDPos != nil && i < len(rs.IDPos) && rs.IDPos[i] != idInline {
			mark(t.Ref)
		}
		in, out := archive.RecallTexts(t)
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

// saveGrown is Save reading the main file with ReadGrown (see above); ok
// is false, with nothing written to w, when that does not apply. pre is
// the previous archive's resume state, decoded while the subagent files
// (subs, or their error subErr) were read; saveGrown consumes its slices
// (restore fills them in): the caller decodes it again for an ordinary
// save.
func saveGrown(w io.Writer, path string, iopt archive.ImportOptions, eopt archive.EncodeOptions, pre *resumeState, subs []archive.RawFile, subErr error) (st *archive.State, stats archive.EncodeStats, ok bool, err error) {
	prev := eopt.Previous
	name := filepath.Base(path)
	if pre == nil || subErr != nil || pre.V != resumeVersion || pre.Importer != importerVersion || pre.Name != name || pre.RedactFP != "" || pre.Hash != 0 ||
		pre.Off <= 0 || pre.Lines <= 0 || pre.Root != newImporter(iopt).root {
		return nil, stats, false, nil
	}
	kept := restoreLines(pre)
	g, ok, err := prev.ReadGrown(path, name, pre.Off, eopt.ChunkSize, MaxFileSize, func(l int) bool { return l < len(kept) && kept[l] })
	if err != nil || !ok {
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
	st, ok = resumeImport(files, nil, "", iopt, prev, pre, &restoredMain{grown: g})
	if !ok {
		enc.Discard()
		return nil, stats, false, nil
	}
	stats, err = enc.Finish(st)
	if err != nil {
		return nil, stats, true, err
	}
	return st, stats, true, nil
}
