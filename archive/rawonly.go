package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// LayoutRawOnly is the layout of a raw-only archive (see EncodeRawOnly):
// the raw segments are laid out as in layout 3, and the model segments
// (conversation, tool history, file registry, task state, compactions,
// preferences, summaries) may be absent. Its metadata segment carries
// PendingModel under the key "pending"; its Metadata holds the session's
// identity only (harness, session id, times). Builds that read layouts up
// to 3 refuse it with ErrSchema rather than show an empty session.
const LayoutRawOnly = 4

// PendingModel, in a raw-only archive's metadata, names the importer that
// builds the model from the stored raw transcript, and how it was to be
// called: what the save that wrote the raw segments would have given it.
type PendingModel struct {
	Importer string `msgpack:"importer"`
	Version  int    `msgpack:"version"`
	// Root is the project root the importer makes paths relative to (the
	// ImportOptions.ProjectDir of the save, made absolute; "" for none).
	Root string `msgpack:"root,omitempty"`
	// Resumable: the completed archive carries the importer's resume
	// state (a save without redaction, or with a redaction fingerprint).
	Resumable bool `msgpack:"resumable,omitempty"`
	// FileContents, ExcludePatterns and MaxFileContent are the save's
	// ImportOptions for capturing project files: the completion
	// (Reencode) captures them from disk when it builds the model.
	// Readers of the raw-only archive never read the project's files:
	// until it is completed it holds no file contents.
	FileContents    bool     `msgpack:"file_contents,omitempty"`
	ExcludePatterns []string `msgpack:"exclude,omitempty"`
	MaxFileContent  int64    `msgpack:"max_file_content,omitempty"`
	// Chunks, when set, holds per raw file the chunks the completed
	// archive's manifest lists (as a direct save cuts the file, with the
	// hashes of the original bytes): the raw-only archive then stores the
	// file in smaller chunks, compressed on several cores at once (see
	// rawOnlySplit). When absent the completion keeps the manifest's.
	Chunks [][]rawChunk `msgpack:"chunks,omitempty"`
}

// rawOnlySplit: a raw-only archive written without a previous archive
// cuts its raw files into chunks of 1/rawOnlySplit of the chunk size
// (1 MiB for DefaultChunkSize), so that they are compressed on several
// cores at once rather than one large chunk on one core while the others
// wait; PendingModel.Chunks keeps the direct save's chunks for the
// completion.
const rawOnlySplit = 4

// DeriveOptions tell a ModelDeriver how to build a State from stored raw
// transcript files.
type DeriveOptions struct {
	// Root is PendingModel.Root.
	Root string
	// Redacted holds, per file, the lines the redactor changed when the
	// files were stored (nil when the archive is not redacted).
	Redacted []map[int]bool
	// RedactFingerprint is the archive's redaction fingerprint.
	RedactFingerprint string
	// Resumable asks for the importer's resume state
	// (ModelSource.Resume); Lazy lets tool outputs the recall does not
	// read stay undecoded (ModelSource.Lazy).
	Resumable, Lazy bool
	// Capture: capture project files as ImportOptions.IncludeFileContents
	// does, with ExcludePatterns and MaxFileContent.
	Capture         bool
	ExcludePatterns []string
	MaxFileContent  int64
}

// ModelDeriver builds the whole State (model and Meta; Raw set to raw)
// from the raw transcript files stored in an archive, as the importer
// built it when it imported the same stored lines: the resulting State
// must be sealed with State.SetSource.
type ModelDeriver func(raw []RawFile, o DeriveOptions) (*State, error)

type modelDeriver struct {
	version int
	fn      ModelDeriver
}

var modelDerivers sync.Map // importer name → modelDeriver

// RegisterModelDeriver makes fn, version version of the importer named
// importer, build the model of raw-only archives (see EncodeRawOnly) in
// this process; package transcript/claude registers "claude" from init.
func RegisterModelDeriver(importer string, version int, fn ModelDeriver) {
	modelDerivers.Store(importer, modelDeriver{version: version, fn: fn})
}

func modelDeriverFor(importer string) (modelDeriver, bool) {
	if importer == "" {
		return modelDeriver{}, false
	}
	v, ok := modelDerivers.Load(importer)
	if !ok {
		return modelDeriver{}, false
	}
	return v.(modelDeriver), true
}

// RawOnlyOptions say whose session a raw-only archive holds and which
// importer builds its model.
type RawOnlyOptions struct {
	// Importer names a ModelDeriver registered in this process.
	Importer  string
	Harness   Harness
	SessionID string
	// Root is the ImportOptions.ProjectDir the importer is to be given.
	Root string
	// FileContents, ExcludePatterns and MaxFileContent: the
	// ImportOptions for capturing project files, applied when the
	// archive is completed (see PendingModel).
	FileContents    bool
	ExcludePatterns []string
	MaxFileContent  int64
}

// ErrRawOnly: EncodeRawOnly cannot write the archive asked for (no
// importer registered to rebuild its model, or options it cannot honour).
var ErrRawOnly = errors.New("archive: cannot write a raw-only archive")

// EncodeRawOnly writes a raw-only archive of the transcript files to w:
// the metadata (with the raw manifest and PendingModel), the redaction
// report and the raw segments, redacted, cut, hashed and compressed as a
// full save of the same files with the same options stores them (with
// opts.Previous: chunks, matching hashes and reused segments alike;
// without it, each file is stored in chunks of a quarter of the chunk
// size, compressed on several cores at once, and the direct save's
// chunks are recorded for the completion, PendingModel.Chunks), but
// no model segment, and without the files' SHA-256 (the manifest leaves
// it empty: the segments' checksums vouch for the bytes, and the
// completion computes it; RawFileInfos computes it from the raw files). It is what a hook in a hurry writes: the importer is
// not run. A reader builds the model from the raw transcript when asked
// for it (Archive methods do so transparently, see Archive.RawOnly), and
// Archive.Reencode writes the complete archive, as a direct save of the
// same files would have (the model built from the stored lines).
//
// Redaction must be by line (opts.RedactLine) or none: texts redacted
// one by one (RedactText alone) cannot be rebuilt from the stored lines.
// RedactText, when set beside RedactLine, is not used (no model text is
// stored).
func EncodeRawOnly(w io.Writer, files []RawFile, opts EncodeOptions, ro RawOnlyOptions) (EncodeStats, error) {
	d, ok := modelDeriverFor(ro.Importer)
	if !ok {
		return EncodeStats{}, fmt.Errorf("%w: %w: %q", ErrRawOnly, ErrNoDeriver, ro.Importer)
	}
	if opts.RedactText != nil && opts.RedactLine == nil {
		return EncodeStats{}, fmt.Errorf("%w: texts redacted one by one (RedactText without RedactLine)", ErrRawOnly)
	}
	if len(files) == 0 {
		return EncodeStats{}, fmt.Errorf("%w: no raw files", ErrRawOnly)
	}
	if opts.Codec != ctxfmt.CodecNone && opts.Level == ctxfmt.LevelMax {
		// LevelMax compresses raw segments against the recall, which a
		// raw-only archive does not hold (its completion writes max).
		return EncodeStats{}, fmt.Errorf("%w: at level max (write it at a lower level; its completion can write max)", ErrRawOnly)
	}
	root := ro.Root
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	enc, err := NewEncoder(w, opts)
	if err != nil {
		return EncodeStats{}, err
	}
	enc.used = true
	enc.e.noHash = true
	if opts.Previous == nil && opts.Codec != ctxfmt.CodecNone {
		enc.e.split = enc.e.chunkSize() / rawOnlySplit
	}
	enc.StartRaw(files)
	<-enc.done
	e := enc.e
	if enc.rawErr != nil {
		return *e.stats, enc.rawErr
	}
	redacting := opts.RedactLine != nil
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	meta := Metadata{SchemaVersion: SchemaVersion, Harness: ro.Harness, SessionID: ro.SessionID, UpdatedAt: now().UTC()}
	meta.CreatedAt = meta.UpdatedAt
	if p := opts.Previous; p != nil && !p.meta.Meta.CreatedAt.IsZero() {
		meta.CreatedAt = p.meta.Meta.CreatedAt
	}
	e.report.Enabled = redacting
	e.countRules()
	ms := metaSegment{
		Layout: LayoutRawOnly, Meta: meta, Raw: e.man, Redacted: redacting, Redact: e.report,
		Pending: &PendingModel{Importer: ro.Importer, Version: d.version, Root: root, Resumable: !redacting || opts.RedactFingerprint != "",
			FileContents: ro.FileContents, ExcludePatterns: ro.ExcludePatterns, MaxFileContent: ro.MaxFileContent},
	}
	if e.full != nil {
		ms.Pending.Chunks = e.full
	}
	if redacting {
		ms.RedactFP = opts.RedactFingerprint
	}
	b, err := marshal(&ms)
	if err != nil {
		return *e.stats, fmt.Errorf("archive: encoding %s: %w", ctxfmt.TypeMetadata, err)
	}
	if err := e.w.AddWith(ctxfmt.TypeMetadata, b, e.modelOptions(ctxfmt.TypeMetadata)); err != nil {
		return *e.stats, fmt.Errorf("archive: %w", err)
	}
	if redacting {
		rb, err := marshal(&e.report)
		if err != nil {
			return *e.stats, fmt.Errorf("archive: encoding redaction report: %w", err)
		}
		if err := e.w.Add(ctxfmt.TypeRedactionReport, rb); err != nil {
			return *e.stats, fmt.Errorf("archive: %w", err)
		}
	}
	// The metadata of a raw-only archive holds no SHA-256 of the raw
	// files: the tag covers them itself.
	if err := e.addTag(meta, b, nil, e.stored); err != nil {
		return *e.stats, err
	}
	if err := e.writeRaw(); err != nil {
		return *e.stats, err
	}
	if err := e.w.Close(); err != nil {
		return *e.stats, fmt.Errorf("archive: %w", err)
	}
	return *e.stats, nil
}

// RawOnly reports whether the archive is raw-only (see EncodeRawOnly):
// its model is built from the raw transcript when first asked for, by the
// importer pending names (which must be registered in this process).
func (a *Archive) RawOnly() (pending PendingModel, ok bool) {
	if a.meta.Pending == nil {
		return PendingModel{}, false
	}
	return *a.meta.Pending, true
}

// StoredMeta returns the Metadata as the metadata segment stores it,
// without building a raw-only archive's model (whose stored Metadata
// holds the harness, session id and times only). For any other archive
// it is Meta.
func (a *Archive) StoredMeta() Metadata { return a.meta.Meta }

// rawOnlyModel is a raw-only archive's model, built once.
type rawOnlyModel struct {
	once   sync.Once
	st     *State
	recall Recall
	meta   metaSegment // the metadata a complete archive would hold
	err    error

	sumOnce sync.Once // rawOnlySums
	sums    []string
}

// rawOnlySums returns the SHA-256 of each raw file of a raw-only archive
// (whose manifest leaves them to the completion), computed once; nil for
// another archive or when the raw files cannot be read.
func (a *Archive) rawOnlySums() []string {
	if a.meta.Pending == nil {
		return nil
	}
	a.pend.sumOnce.Do(func() {
		raw, _, err := a.rawAll()
		if err != nil {
			return
		}
		a.pend.sums = make([]string, len(raw))
		for i, b := range raw {
			h := sha256.Sum256(b)
			a.pend.sums[i] = hex.EncodeToString(h[:])
		}
	})
	return a.pend.sums
}

// redactedMaps turns the manifest's redacted lines into the sets an
// importer is given (nil when the archive is not redacted).
func (a *Archive) redactedMaps() []map[int]bool {
	if !a.meta.Redacted {
		return nil
	}
	out := make([]map[int]bool, len(a.meta.Raw))
	for i, m := range a.meta.Raw {
		out[i] = make(map[int]bool, len(m.RedactedLines))
		for _, l := range m.RedactedLines {
			out[i][l] = true
		}
	}
	return out
}

// deriveState runs the pending importer on the stored raw files (with
// capture, capturing project files as PendingModel says).
func (a *Archive) deriveState(resumable, lazy, capture bool) (*State, error) {
	p := a.meta.Pending
	d, ok := modelDeriverFor(p.Importer)
	if !ok {
		return nil, fmt.Errorf("%w: %q (import its package)", ErrNoDeriver, p.Importer)
	}
	raw, err := a.RawFiles()
	if err != nil {
		return nil, err
	}
	o := DeriveOptions{Root: p.Root, Redacted: a.redactedMaps(), RedactFingerprint: a.meta.RedactFP, Resumable: resumable, Lazy: lazy}
	if capture && p.FileContents {
		o.Capture, o.ExcludePatterns, o.MaxFileContent = true, p.ExcludePatterns, p.MaxFileContent
	}
	st, err := d.fn(raw, o)
	if err != nil {
		return nil, fmt.Errorf("archive: building the model of a raw-only archive from its raw transcript: %w", err)
	}
	if len(st.FileContents) > 0 && !o.Capture {
		return nil, corrupt("raw-only archive: the importer captured %d file contents", len(st.FileContents))
	}
	// As Encode finishes Meta (model): the times are the raw-only
	// archive's own.
	m := &st.Meta
	m.SchemaVersion = SchemaVersion
	m.UpdatedAt = a.meta.Meta.UpdatedAt
	if m.CreatedAt.IsZero() {
		m.CreatedAt = a.meta.Meta.CreatedAt
	}
	return st, nil
}

// pendingModel builds (once) a raw-only archive's model for reading: the
// State, its recall, and the metadata a complete archive would store.
func (a *Archive) pendingModel() (*rawOnlyModel, error) {
	pm := &a.pend
	pm.once.Do(func() {
		st, err := a.deriveState(false, true, false)
		if err != nil {
			pm.err = err
			return
		}
		if pm.recall, err = DecodeRecall(recallPayload(st)); err != nil {
			pm.err = err
			return
		}
		meta := st.Meta
		if !st.Source.Partial {
			meta.MessageCount, meta.ToolCount = len(st.Messages), len(st.Tools)
		}
		meta.FileCount = len(st.Files)
		pm.meta = a.meta
		pm.meta.Meta, pm.meta.Import = meta, st.Import
		pm.meta.Counts = counts{
			Compactions: len(st.Compactions), Preferences: len(st.Preferences),
			Active: len(st.Tasks.Active), Pending: len(st.Tasks.Pending), Completed: len(st.Tasks.Completed),
		}
		pm.st = st
	})
	return pm, pm.err
}

// checkRawOnly checks that a raw-only archive says so consistently and
// makes its conversation read as a derived one's (see ModelSource): the
// importer rebuilds it from the raw transcript.
func (a *Archive) checkRawOnly() error {
	p := a.meta.Pending
	switch {
	case p == nil && a.meta.Layout == LayoutRawOnly:
		return corrupt("layout %d without a pending model", a.meta.Layout)
	case p == nil:
		return nil
	case a.meta.Layout != LayoutRawOnly:
		return corrupt("a pending model in layout %d", a.meta.Layout)
	case a.meta.Derived != nil:
		return corrupt("a raw-only archive with a derived model")
	case p.Importer == "":
		return corrupt("a raw-only archive names no importer")
	case len(a.meta.Contents) > 0:
		return corrupt("a raw-only archive with file contents")
	}
	a.meta.Derived = &ModelSource{Importer: p.Importer, Version: p.Version, Root: p.Root}
	return nil
}

// pendingMeta is the metadata segment as read, or for a raw-only archive
// whose model can be built, as a complete archive would hold it.
func (a *Archive) pendingMeta() *metaSegment {
	if a.meta.Pending == nil {
		return &a.meta
	}
	if pm, err := a.pendingModel(); err == nil {
		return &pm.meta
	}
	return &a.meta
}

// completeRawOnly is Reencode of a raw-only archive: the importer builds
// the model from the stored raw transcript (as a direct save builds it
// from the same stored lines, resume state included where that save
// keeps one), and the archive is written complete, laid out as Encode
// lays it out at opts.Level, raw manifest and redaction report kept.
func (a *Archive) completeRawOnly(w io.Writer, opts ReencodeOptions) (EncodeStats, error) {
	var stats EncodeStats
	if a.meta.Redacted && a.meta.Pending.FileContents && opts.RedactText == nil {
		return stats, fmt.Errorf("%w: a redacted archive's completion captures project files and needs ReencodeOptions.RedactText", ErrRawOnly)
	}
	st, err := a.deriveState(a.meta.Pending.Resumable, true, true)
	if err != nil {
		return stats, err
	}
	raw := st.Raw
	cw, err := ctxfmt.NewWriter(w, ctxfmt.WriterOptions{
		Codec: opts.Codec, Level: opts.Level, Concurrency: opts.Concurrency, Encryption: opts.Encryption,
	})
	if err != nil {
		return stats, fmt.Errorf("archive: %w", err)
	}
	n := len(raw)
	updated := a.meta.Meta.UpdatedAt
	e := &encoder{
		opts: EncodeOptions{
			Codec: opts.Codec, Level: opts.Level, Concurrency: opts.Concurrency, Encryption: opts.Encryption,
			RedactFingerprint: a.meta.RedactFP, Now: func() time.Time { return updated },
			Auth: a.retag(opts.Auth),
		},
		w:           cw,
		stats:       &stats,
		files:       raw,
		storedFiles: raw,
		stored:      make([][]byte, n),
		starts:      make([][]int, n),
		changed:     make([]map[int]bool, n),
		man:         make([]rawManifest, n),
		reuse:       make([]int, n),
		fromStored:  true,
		s:           st,
	}
	if a.meta.Redacted {
		e.redactContent = opts.RedactText
	}
	full := a.meta.Pending.Chunks
	if full != nil && len(full) != n {
		return stats, corrupt("raw-only archive: complete chunks of %d raw files, %d stored", len(full), n)
	}
	for i, f := range raw {
		m := a.meta.Raw[i]
		if full != nil && full[i] != nil {
			if err := sameCut(m.Chunks, full[i]); err != nil {
				return stats, corrupt("raw file %s: %v", m.Name, err)
			}
			m.Chunks = full[i]
		}
		m.Chunks = append([]rawChunk(nil), m.Chunks...)
		for k := range m.Chunks {
			m.Chunks[k].Mid, m.Chunks[k].Packed = nil, false
		}
		// The manifest of a raw-only archive leaves the SHA-256 (and the
		// states at the chunk ends) to this completion.
		got := hashChunks(sha256.New(), f.Data, m.Chunks)
		if m.SHA256 != "" && got != m.SHA256 {
			return stats, corrupt("raw file %s: SHA-256 mismatch", m.Name)
		}
		m.SHA256 = got
		e.man[i], e.stored[i] = m, f.Data
		e.changed[i] = map[int]bool{}
		for _, l := range m.RedactedLines {
			e.changed[i][l] = true
		}
	}
	// The raw segments are compressed while the model is encoded.
	rawErr := make(chan error, 1)
	go func() { rawErr <- e.prepareRaw() }()
	m, err := e.model()
	if rerr := <-rawErr; rerr != nil {
		return stats, rerr
	}
	if err != nil {
		return stats, err
	}
	// model counts no redaction (nothing is redacted again); the stored
	// lines' redaction is the raw-only archive's.
	contents := e.report.ContentsChanged
	e.report = a.meta.Redact
	e.report.ContentsChanged = contents
	m.ms.Redacted = a.meta.Redacted
	m.ms.RedactFP = a.meta.RedactFP
	if err := e.write(m); err != nil {
		return stats, err
	}
	if err := cw.Close(); err != nil {
		return stats, fmt.Errorf("archive: %w", err)
	}
	return stats, nil
}

// tasks, compactions and recallCopy return copies of the built model's
// parts (callers may modify what they get).
func (pm *rawOnlyModel) tasks() TaskState {
	t := pm.st.Tasks
	t.Active, t.Pending, t.Completed = slices.Clone(t.Active), slices.Clone(t.Pending), slices.Clone(t.Completed)
	return t
}

// compactions returns the compactions as a complete archive stores them
// (see encoder.text): a summary read from a line redaction changed is
// inline (no spans); elsewhere the spans are kept, and with boundaries
// only (CompactionBoundaries) the text is left out.
func (pm *rawOnlyModel) compactions(a *Archive, boundaries bool) []Compaction {
	cs := slices.Clone(pm.st.Compactions)
	for i := range cs {
		c := &cs[i]
		if len(c.SummarySpans) == 0 {
			continue
		}
		f := c.SummaryRef.File
		if f >= 0 && f < len(a.meta.Raw) && slices.Contains(a.meta.Raw[f].RedactedLines, c.SummaryRef.Line) {
			c.SummarySpans = nil
			continue
		}
		c.SummarySpans = slices.Clone(c.SummarySpans)
		if boundaries {
			c.Summary = ""
		}
	}
	return cs
}

func (pm *rawOnlyModel) recallCopy() Recall {
	b := appendRecall(nil, &pm.recall)
	r, _ := DecodeRecall(b)
	return r
}

// sameCut checks that full, the chunks a raw-only archive's completion
// lists for a file, cover the bytes and lines its stored chunks cover.
func sameCut(stored, full []rawChunk) error {
	var n, lines int64
	for _, c := range stored {
		n += c.StoredLen
		lines += int64(c.Lines)
	}
	for _, c := range full {
		if c.StoredLen <= 0 || c.StoredLen > maxChunk || c.Lines < 0 {
			return fmt.Errorf("a complete chunk of %d bytes, %d lines", c.StoredLen, c.Lines)
		}
		n -= c.StoredLen
		lines -= int64(c.Lines)
	}
	if n != 0 || lines != 0 {
		return errors.New("the complete chunks do not cover the stored ones")
	}
	return nil
}
