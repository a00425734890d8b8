package snapshot

import (
	"io"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// rawOnlyFits reports whether Create can honour CreateOptions.RawOnly:
// a Claude Code session (o.Harness, else detected; set in o) of a known
// session id, with line redaction or none, below LevelMax.
func (m *Manager) rawOnlyFits(o *CreateOptions, eopts archive.EncodeOptions) bool {
	if o.SessionID == "" || (eopts.RedactText != nil && eopts.RedactLine == nil) || (eopts.Codec != ctxfmt.CodecNone && eopts.Level >= ctxfmt.LevelMax) {
		return false
	}
	if o.Harness == "" {
		h, err := transcript.Detect(o.TranscriptPath)
		if err != nil {
			return false
		}
		o.Harness = h
	}
	return o.Harness == archive.HarnessClaude
}

// writeRawOnly writes the raw-only snapshot of o's transcript to w (see
// archive.EncodeRawOnly) and returns the State Create records: the
// session's identity, no model.
func (m *Manager) writeRawOnly(w io.Writer, o CreateOptions, eopts archive.EncodeOptions, read <-chan readResult) (*archive.State, archive.EncodeStats, error) {
	iopt := m.importOptions()
	r := <-read
	if r.err != nil {
		return nil, archive.EncodeStats{}, r.err
	}
	files := r.files
	stats, err := archive.EncodeRawOnly(w, files, eopts, archive.RawOnlyOptions{
		Importer: claude.ImporterName, Harness: archive.HarnessClaude, SessionID: o.SessionID, Root: iopt.ProjectDir,
		FileContents: iopt.IncludeFileContents, ExcludePatterns: iopt.ExcludePatterns, MaxFileContent: iopt.MaxFileContent,
	})
	if err != nil {
		return nil, stats, err
	}
	return &archive.State{Meta: archive.Metadata{Harness: archive.HarnessClaude, SessionID: o.SessionID}}, stats, nil
}

// importOptions are the importer options of the snapshots of m's store.
func (m *Manager) importOptions() archive.ImportOptions {
	return archive.ImportOptions{
		ProjectDir:          m.st.ProjectDir(),
		IncludeFileContents: m.cfg.CompactionSnapshots.IncludeFileContents,
		ExcludePatterns:     ExcludePatterns(m.cfg),
	}
}

// readResult is what readAsync delivers.
type readResult struct {
	files []archive.RawFile
	err   error
}

// readAsync reads the transcript files a raw-only snapshot of path holds
// (the main file and its subagent files) in the background.
func (m *Manager) readAsync(path string) <-chan readResult {
	ch := make(chan readResult, 1)
	iopt := m.importOptions()
	go func() {
		files, err := claude.ReadFiles(path, iopt)
		ch <- readResult{files, err}
	}()
	return ch
}
