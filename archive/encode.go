package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// layoutWritten is the layout Encode writes: every raw chunk in a
// segment of its own, in file order (the only one Open reads).
const layoutWritten = 1

// DefaultChunkSize is the target size of one raw transcript segment. Raw
// files are cut at line boundaries into segments of about this size; a
// line longer than maxChunk is cut inside the line. (The measurements
// behind the value are in the git history of docs/PERFORMANCE.md.)
const DefaultChunkSize = 4 << 20

// typeResumeState and typeRecallFold are the extension segment types of
// caches pre-release versions wrote for the next incremental save (an
// importer's resume state, the recall's tool pass). New archives do not
// hold them; readers skip a resume state and refuse a
// recall fold (checkForm).
const (
	typeResumeState = ctxfmt.ExtensionTypeMin + 0x0b10
	typeRecallFold  = typeResumeState + 1
)

// maxChunk is the hard cap of one raw segment.
const maxChunk = 256 << 20

// EncodeOptions tune Encode. The zero value writes uncompressed segments
// (ctxfmt.CodecNone; set Codec to ctxfmt.CodecZstd for the CLI's
// default), unencrypted, unredacted, without a previous archive.
type EncodeOptions struct {
	Codec       ctxfmt.Codec
	Level       ctxfmt.Level
	Concurrency int
	Encryption  *ctxfmt.Encryption
	// ChunkSize is the raw segment target size (default DefaultChunkSize).
	ChunkSize int
	// RedactLine, when set, is applied to every raw transcript line
	// (without its line ending) before it is stored; it returns the line
	// itself when nothing is to be hidden. RedactText is applied to every
	// model text stored inline. Both must be deterministic. A record whose
	// raw line was changed keeps its text inline (redacted by RedactText)
	// instead of a pointer into the line. RedactLine is called from
	// several goroutines at once (up to Concurrency) and must be safe for
	// concurrent use; the archive does not depend on the call order.
	RedactLine func(line []byte) []byte
	RedactText func(s string) string
	// RedactFingerprint identifies the redaction configuration behind
	// RedactLine and RedactText (rule set, extra rules, allowlist,
	// replacement). It is stored in the archive; raw segments of a
	// previous redacted archive are reused only when the fingerprints are
	// equal. It must not reveal the
	// configuration (use a hash).
	RedactFingerprint string
	// RedactCount, when set beside RedactLine, returns the number of
	// secrets RedactLine replaces in an original line, per rule (it must
	// agree with RedactLine). The archive then records its per-rule
	// totals, RedactionReport.Rules (see redactcount.go).
	RedactCount func(line []byte) map[string]int
	// KeepContents, when set beside RedactText, names the captured
	// project files stored unredacted (the user's redaction.allow_paths):
	// RedactText is not applied to the contents of a file whose path it
	// accepts.
	KeepContents func(path string) bool
	// Previous is the archive this one updates. When a raw file of the
	// previous archive is a prefix of the new one, its unchanged segments
	// are copied without recompression and only the tail is encoded.
	Previous *Archive
	// Now is the time stamped as UpdatedAt (default time.Now).
	Now func() time.Time
	// Auth, when set, authenticates the archive as the key holder's: a
	// TypeAuthTag segment is written (see Archive.Authenticate), and
	// Previous is used only when Auth authenticates it. Every save of
	// the user's own sessions sets it; archives made from someone else's
	// content (a pulled export) must not.
	Auth *AuthKey
	// Progress, when set, is told how much of the raw transcript has been
	// redacted and compressed (see Progress).
	Progress Progress
}

// metaSegment is the payload of the metadata segment: the metadata proper
// and the manifest that maps the other segments.
type metaSegment struct {
	Layout   int             `msgpack:"layout"`
	Meta     Metadata        `msgpack:"meta"`
	Import   ImportReport    `msgpack:"import"`
	Raw      []rawManifest   `msgpack:"raw"`
	Contents []contentEntry  `msgpack:"contents"`
	Redacted bool            `msgpack:"redacted"`
	Redact   RedactionReport `msgpack:"redaction"`
	// RedactFP is EncodeOptions.RedactFingerprint of a redacted archive.
	RedactFP string `msgpack:"redact_fp,omitempty"`
	Counts   counts `msgpack:"counts"`
	// Derived and Pending mark pre-release forms Open refuses (ErrSchema):
	// a conversation left out to be rebuilt from the raw transcript by an
	// importer, and a raw-only archive (layout 4) whose whole model was.
	Derived msgpack.RawMessage `msgpack:"derived,omitempty"`
	Pending msgpack.RawMessage `msgpack:"pending,omitempty"`
}

// counts are small figures status reads show without decoding segments.
type counts struct {
	Compactions int `msgpack:"compactions"`
	Preferences int `msgpack:"preferences"`
	Active      int `msgpack:"active"`
	Pending     int `msgpack:"pending"`
	Completed   int `msgpack:"completed"`
}

// rawManifest describes one raw transcript file and its segments (the
// TypeRawTranscript segments, in order, belong to the files in order).
type rawManifest struct {
	Name   string     `msgpack:"name"`
	Size   int64      `msgpack:"size"`   // stored bytes
	SHA256 string     `msgpack:"sha256"` // of the stored bytes
	Chunks []rawChunk `msgpack:"chunks"`
	// RedactedLines lists the lines the redactor changed.
	RedactedLines []int `msgpack:"redacted_lines,omitempty"`
}

// rawChunk is one raw segment: StoredLen bytes of the stored file; it came
// from OrigLen bytes of the original file with xxhash64 OrigHash (OrigLen
// is -1 when the chunk cannot be matched against a new file).
type rawChunk struct {
	StoredLen int64  `msgpack:"n"`
	OrigLen   int64  `msgpack:"on"`
	OrigHash  uint64 `msgpack:"oh"`
	Lines     int    `msgpack:"lines"` // line starts in the chunk
	// Mid is the SHA-256 state (encoding.BinaryMarshaler form) after the
	// stored bytes of the file up to the end of this chunk, so that an
	// incremental save hashes only the bytes it adds. It holds at most 63
	// stored bytes (already in the archive) besides the chaining state.
	Mid []byte `msgpack:"mid,omitempty"`
	// Packed marks a chunk stored in a segment shared with other chunks
	// (layouts 2 and 3, which only pre-release versions wrote): Open
	// refuses such an archive (ErrSchema); it is never written.
	Packed bool `msgpack:"pk,omitempty"`
}

type contentEntry struct {
	Path   string `msgpack:"path"`
	Size   int64  `msgpack:"size"`
	SHA256 string `msgpack:"sha256"`
}

// RedactionReport counts what the redaction hooks changed.
type RedactionReport struct {
	Enabled      bool `msgpack:"enabled" json:"enabled"`
	LinesChanged int  `msgpack:"lines_changed" json:"lines_changed"`
	TextsChanged int  `msgpack:"texts_changed" json:"texts_changed"`
	// ContentsChanged counts the captured project files redaction changed.
	ContentsChanged int `msgpack:"contents_changed,omitempty" json:"contents_changed,omitempty"`
	// Rules counts the secrets replaced in the raw transcript lines the
	// archive holds, per rule: all of them, those copied from a previous
	// archive included (see EncodeOptions.RedactCount). Absent in older
	// archives: with LinesChanged > 0 the total is then unknown, at least
	// LinesChanged (see RedactionReport.Total).
	Rules map[string]int `msgpack:"rules,omitempty" json:"rules,omitempty"`
}

// EncodeStats tells what an Encode did (returned by EncodeWithStats).
type EncodeStats struct {
	RawBytes       int64 // raw transcript bytes stored
	CopiedSegments int   // raw segments copied from the previous archive
	CopiedBytes    int64 // raw bytes those segments hold
	EncodedBytes   int64 // raw bytes compressed by this call
	InlineTexts    int   // model texts stored inline (no usable pointer)
	PointerTexts   int   // model texts stored as pointers into raw lines
	// Redaction is the archive's redaction report (with its per-rule
	// totals when EncodeOptions.RedactCount was set).
	Redaction RedactionReport
}

// Encode writes s as a .ctx archive to w. Cancelling ctx stops the work
// (redaction, cutting, compression) and returns ctx's error; what was
// written to w is then incomplete.
func Encode(ctx context.Context, w io.Writer, s *State, opts EncodeOptions) error {
	_, err := EncodeWithStats(ctx, w, s, opts)
	return err
}

// EncodeWithStats is Encode that also reports what it did.
func EncodeWithStats(ctx context.Context, w io.Writer, s *State, opts EncodeOptions) (EncodeStats, error) {
	if s == nil {
		return EncodeStats{}, errors.New("archive: Encode: nil State")
	}
	enc, err := NewEncoder(ctx, w, opts)
	if err != nil {
		return EncodeStats{}, err
	}
	return enc.Finish(s)
}

// EncodeOwned is EncodeWithStats for a State the caller gives up, built
// from its raw files as they were read (an importer's State): with
// redaction, the files' bytes are overwritten with the redacted ones where
// these fit (see Encoder.StartRaw) rather than copied, so that the encode
// holds the transcript once, and s.Raw is set to the stored files. The
// bytes written are EncodeWithStats's. Texts the State leaves to be read
// from their raw lines (spans without a text) must not be in lines that
// redaction changes: those are rewritten.
func EncodeOwned(ctx context.Context, w io.Writer, s *State, opts EncodeOptions) (EncodeStats, error) {
	if s == nil {
		return EncodeStats{}, errors.New("archive: Encode: nil State")
	}
	enc, err := NewEncoder(ctx, w, opts)
	if err != nil {
		return EncodeStats{}, err
	}
	enc.StartRaw(s.Raw)
	stored, _, err := enc.Stored()
	if err != nil {
		enc.Discard()
		return EncodeStats{}, err
	}
	s.Raw, enc.asRead = stored, true
	return enc.Finish(s)
}

// Encoder writes one archive in two steps, so that the raw transcript can
// be redacted and compressed (StartRaw) while the caller still builds the
// model from it, then the model is added (Finish). Encode is NewEncoder,
// StartRaw(s.Raw) and Finish(s); the bytes written are the same.
type Encoder struct {
	e       *encoder
	started bool
	planned chan struct{} // closed when the raw files are redacted and cut
	done    chan struct{} // closed when the raw segments are compressed
	planErr error
	rawErr  error
	used    bool
	// asRead: the State given to Finish was built from the files given
	// to StartRaw as they were before redaction (EncodeOwned).
	asRead bool
}

// NewEncoder returns an Encoder writing to w on Finish; cancelling ctx
// stops its work as for Encode.
func NewEncoder(ctx context.Context, w io.Writer, opts EncodeOptions) (*Encoder, error) {
	cw, err := ctxfmt.NewWriter(w, ctxfmt.WriterOptions{
		Codec: opts.Codec, Level: opts.Level, Concurrency: opts.Concurrency, Encryption: opts.Encryption,
	})
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	opts.Previous = trustedPrevious(opts.Previous, opts.Auth)
	return &Encoder{e: &encoder{ctx: ctx, opts: opts, w: cw, stats: &EncodeStats{}}}, nil
}

// StartRaw starts redacting, cutting and compressing the raw transcript
// files in the background. It takes the files: with redaction on, their
// bytes are overwritten with the redacted ones where these fit in the
// slices' capacity (Stored returns them), so that a save holds the
// transcript once; the caller must not use them otherwise until Finish
// returns. Finish must be given the files Stored returns, or, without
// redaction, these files. Calling it is optional: Finish, given a State
// whose Raw it was not, leaves the State's files as they are.
func (enc *Encoder) StartRaw(files []RawFile) {
	enc.start(files, true)
}

// start is StartRaw; owned says whether the files are the encoder's to
// overwrite.
func (enc *Encoder) start(files []RawFile, owned bool) {
	if enc.started {
		return
	}
	enc.started = true
	enc.e.owned = owned
	enc.e.files = files
	enc.e.progress = newProgressCounter(enc.e.opts.Progress, files, enc.e.opts.RedactLine != nil)
	enc.e.opts.RedactLine = countingRedactLine(enc.e.opts.RedactLine, enc.e.progress)
	enc.planned = make(chan struct{})
	enc.done = make(chan struct{})
	go func() {
		defer close(enc.done)
		enc.planErr = enc.e.planRaw()
		close(enc.planned)
		if enc.planErr != nil {
			enc.rawErr = enc.planErr
			return
		}
		enc.rawErr = enc.e.prepareRaw()
	}()
}

// Stored waits until StartRaw's files are redacted (when EncodeOptions
// asks for it) and cut into segments, and returns them as they will be
// stored, each with the set of its line numbers that redaction changed.
// Without redaction they are the files given to StartRaw. A State built
// from the stored files (the same slices) and given to Finish is the model
// of what the archive holds: with redaction on, its conversation can then
// be rebuilt from the stored raw transcript like an unredacted one's (see
// ModelSource), and its texts need no second redaction pass. The caller
// must not modify them. They are the files given to StartRaw, rewritten
// in place where the redacted bytes fit (a new slice where they do not):
// a redacted copy does not live beside the original while the model is
// built. Finish must then be given the stored files.
func (enc *Encoder) Stored() ([]RawFile, []map[int]bool, error) {
	if !enc.started {
		return nil, nil, errors.New("archive: Stored before StartRaw")
	}
	<-enc.planned
	if enc.planErr != nil {
		return nil, nil, enc.planErr
	}
	enc.e.files = enc.e.storedFiles
	return enc.e.storedFiles, enc.e.changed, nil
}

// Discard ends an Encoder without writing anything: it waits for the
// work StartRaw started. The Encoder cannot be finished afterwards.
func (enc *Encoder) Discard() {
	enc.used = true
	if enc.started {
		<-enc.done
	}
}

// Finish builds the model segments from s, adds them and the raw segments
// and writes the archive. An Encoder writes one archive: a second Finish
// fails.
func (enc *Encoder) Finish(s *State) (EncodeStats, error) {
	if enc.used {
		return EncodeStats{}, errors.New("archive: Encoder already finished")
	}
	enc.used = true
	if s == nil {
		return EncodeStats{}, errors.New("archive: Encode: nil State")
	}
	if !enc.started {
		enc.start(s.Raw, false)
	}
	e := enc.e
	// The model segments are built while the raw files are still being
	// compressed and hashed (they need the stored files only); the
	// metadata, which holds the raw manifest, and the writing wait for
	// that work.
	<-enc.planned
	if enc.planErr != nil {
		<-enc.done
		return *e.stats, enc.rawErr
	}
	switch {
	case e.opts.RedactLine != nil && sameFiles(e.storedFiles, s.Raw):
		// (Also when redaction changed nothing: the files are then the
		// stored bytes themselves.)
		e.fromStored = !enc.asRead
	case sameFiles(e.files, s.Raw) && !(e.owned && e.opts.RedactLine != nil):
		e.fromStored = e.opts.RedactLine == nil && e.opts.RedactText == nil
	default:
		<-enc.done
		return *e.stats, errors.New("archive: Finish: State.Raw is neither the file list given to StartRaw nor the one Stored returned (with redaction, StartRaw's files are rewritten: only the latter)")
	}
	e.s = s
	m, err := e.model()
	<-enc.done
	if enc.rawErr != nil {
		return *e.stats, enc.rawErr
	}
	if err != nil {
		return *e.stats, err
	}
	if err := e.ctx.Err(); err != nil {
		return *e.stats, err
	}
	if err := e.write(m); err != nil {
		return *e.stats, err
	}
	if err := e.w.Close(); err != nil {
		return *e.stats, fmt.Errorf("archive: %w", err)
	}
	e.progress.finish()
	return *e.stats, nil
}

// sameFiles reports whether a and b name the same byte slices.
func sameFiles(a, b []RawFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || len(a[i].Data) != len(b[i].Data) {
			return false
		}
		if len(a[i].Data) > 0 && &a[i].Data[0] != &b[i].Data[0] {
			return false
		}
	}
	return true
}

type encoder struct {
	ctx      context.Context
	progress *progressCounter // EncodeOptions.Progress's (nil without it)
	s        *State
	files    []RawFile
	opts     EncodeOptions
	w        *ctxfmt.Writer
	stats    *EncodeStats
	// per raw file: stored bytes, line starts of the stored bytes, and
	// whether each line was changed by redaction.
	stored      [][]byte
	starts      [][]int // computed on first use (lineStartsOf)
	origStarts  [][]int // of the files as given, on first use (origLine)
	changed     []map[int]bool
	storedFiles []RawFile
	// edits[i] make stored file i from file i until planRaw applies them
	// (stored[i] is nil until then); owned: the files given to StartRaw
	// are the encoder's to overwrite (applyEdits in place).
	edits [][]edit
	owned bool
	// fromStored: the State was built from the stored (redacted) files,
	// so its texts are what the archive holds.
	fromStored bool
	// contents are the file contents as stored (redacted), set by model.
	contents []FileContent
	man      []rawManifest
	report   RedactionReport
	// reuse[i] leading chunks of file i are copied from the previous
	// archive's segments prevSegs[i].
	reuse    []int
	prevSegs [][]int
	// groups are the raw segments to write, in order.
	groups  []rawGroup
	scratch []byte // spanTextEqual's buffer
	// hashes compute each file's SHA-256 (and the chunks' Mid states):
	// planRaw leaves them to prepareRaw, which runs them beside the
	// compression, after the stored files are handed to the importer.
	hashes []func()
}

// rawGroup is one raw segment: a chunk copied from the previous archive,
// or a chunk compressed now.
type rawGroup struct {
	reused bool
	file   int // the chunk's file and index
	chunk  int
	data   []byte
	prep   *ctxfmt.Prepared
}

// planGroups lists the raw segments to write: one per chunk, in file
// order.
func (e *encoder) planGroups() {
	e.groups = e.groups[:0]
	for i := range e.man {
		off := int64(0)
		for k, c := range e.man[i].Chunks {
			b := e.stored[i][off : off+c.StoredLen]
			off += c.StoredLen
			e.groups = append(e.groups, rawGroup{reused: k < e.reuse[i], file: i, chunk: k, data: b})
		}
	}
}

// prepareRaw plans the raw segments and compresses the new ones, beside
// the files' hashes, on up to Concurrency goroutines.
func (e *encoder) prepareRaw() error {
	e.planGroups()
	errs := make([]error, len(e.groups))
	work := e.hashes
	for g := range e.groups {
		if gr := &e.groups[g]; !gr.reused {
			work = append(work, func() {
				gr.prep, errs[g] = ctxfmt.Prepare(e.opts.Codec, e.opts.Level, gr.data)
				e.progress.add(len(gr.data))
			})
		}
	}
	workers := e.opts.Concurrency
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan func())
	var wg sync.WaitGroup
	for range max(1, min(workers, len(work))) {
		wg.Go(func() {
			for f := range next {
				if e.ctx.Err() == nil { // (else drains next)
					f()
				}
			}
		})
	}
	for _, f := range work {
		next <- f
	}
	close(next)
	wg.Wait()
	e.hashes = nil
	if err := e.ctx.Err(); err != nil {
		return err
	}
	for g, err := range errs {
		if err != nil {
			return fmt.Errorf("archive: raw segment of %s: %w", e.man[e.groups[g].file].Name, err)
		}
	}
	return nil
}

// modelSegs is what model builds for write: the model segments, encoded
// and compressed, and the metadata without the raw manifest.
type modelSegs struct {
	ms     metaSegment
	recall []byte
	segs   []modelSeg
}

type modelSeg struct {
	t     ctxfmt.SegmentType
	prep  *ctxfmt.Prepared
	empty bool // no segment (an empty list)
}

// model builds the model segments from e.s. It needs the stored raw files
// (planRaw), not their compression or hashes: Finish runs it while
// prepareRaw still works.
func (e *encoder) model() (*modelSegs, error) {
	s := e.s
	redacting := e.opts.RedactLine != nil || e.opts.RedactText != nil
	e.report.Enabled = redacting
	// The recall is built while the other segments are prepared (it only
	// reads the State).
	var recall []byte
	recalled := make(chan struct{})
	go func() {
		defer close(recalled)
		view := e.s
		if !e.fromStored {
			view = e.redactedView()
		}
		recall = recallPayload(view)
	}()
	defer func() { <-recalled }()
	// The conversation and the tool history, the two long lists, are
	// encoded element by element as they are stored (marshal), not copied
	// whole beside the State first.
	msgs := list{len(s.Messages), func(i int) any {
		m := s.Messages[i]
		m.Text, m.TextSpans = e.text(m.Ref, m.Text, m.TextSpans)
		return &m
	}}
	tools := list{len(s.Tools), func(i int) any {
		t := s.Tools[i]
		t.Input, t.InputSpans = e.text(t.Ref, t.Input, t.InputSpans)
		t.Output, t.OutputSpans = e.text(t.ResultRef, t.Output, t.OutputSpans)
		t.Command = e.redactText(t.Command)
		return &t
	}}
	comps := make([]Compaction, len(s.Compactions))
	for i, c := range s.Compactions {
		// A summary is a pointer into its isCompactSummary line when the
		// stored line holds it (not stored twice); the boundary facts stay
		// here, so status reads still never touch the raw transcript.
		c.Summary, c.SummarySpans = e.text(c.SummaryRef, c.Summary, c.SummarySpans)
		comps[i] = c
	}
	prefs := make([]Preference, len(s.Preferences))
	for i, p := range s.Preferences {
		p.Text = e.redactText(p.Text)
		prefs[i] = p
	}
	tasks := s.Tasks
	tasks.Active, tasks.Pending, tasks.Completed = e.redactTasks(tasks.Active), e.redactTasks(tasks.Pending), e.redactTasks(tasks.Completed)

	meta := s.Meta
	meta.SchemaVersion = SchemaVersion
	// The title (Claude Code's ai-title, a summary's text) is a text
	// of the session like any other.
	meta.Title = e.redactText(meta.Title)
	now := time.Now
	if e.opts.Now != nil {
		now = e.opts.Now
	}
	meta.UpdatedAt = now().UTC()
	if meta.CreatedAt.IsZero() {
		meta.CreatedAt = meta.UpdatedAt
		if p := e.opts.Previous; p != nil && !p.meta.Meta.CreatedAt.IsZero() {
			meta.CreatedAt = p.meta.Meta.CreatedAt
		}
	}
	meta.MessageCount, meta.ToolCount = len(s.Messages), len(s.Tools)
	meta.FileCount = len(s.Files)
	m := &modelSegs{}
	m.ms = metaSegment{
		Meta: meta, Import: s.Import,
		Redacted: redacting,
		Counts: counts{
			Compactions: len(s.Compactions), Preferences: len(s.Preferences),
			Active: len(s.Tasks.Active), Pending: len(s.Tasks.Pending), Completed: len(s.Tasks.Completed),
		},
	}
	if redacting {
		m.ms.RedactFP = e.opts.RedactFingerprint
	}
	e.contents = e.redactContents(s.FileContents)
	for _, fc := range e.contents {
		h := sha256.Sum256(fc.Data)
		m.ms.Contents = append(m.ms.Contents, contentEntry{Path: fc.Path, Size: int64(len(fc.Data)), SHA256: hex.EncodeToString(h[:])})
	}
	<-recalled
	m.recall = recall
	// Small segments first, so a reader of the metadata touches the
	// beginning of the file only (the metadata, first, is encoded by
	// write).
	segs := []struct {
		t ctxfmt.SegmentType
		v any
	}{
		{ctxfmt.TypeTaskState, &tasks},
		{ctxfmt.TypeCompactions, comps},
		{ctxfmt.TypePreferences, prefs},
		{ctxfmt.TypeFileRegistry, fileRegistry(s.Files)},
		{ctxfmt.TypeConversation, msgs},
		{ctxfmt.TypeToolHistory, tools},
	}
	for _, sg := range segs {
		// No compactions or preferences: no segment (an index entry costs
		// 40 bytes; readers take a missing segment as an empty list).
		if (sg.t == ctxfmt.TypeCompactions && len(comps) == 0) || (sg.t == ctxfmt.TypePreferences && len(prefs) == 0) {
			m.segs = append(m.segs, modelSeg{t: sg.t, empty: true})
			continue
		}
		// Compressed at once (the same bytes as at the writer's Close):
		// the encoded lists are held one at a time, not all together
		// beside the transcript.
		b, err := marshal(sg.v)
		if err != nil {
			return nil, fmt.Errorf("archive: encoding %s: %w", sg.t, err)
		}
		p, err := ctxfmt.Prepare(e.opts.Codec, e.opts.Level, b)
		if err != nil {
			return nil, fmt.Errorf("archive: %s: %w", sg.t, err)
		}
		m.segs = append(m.segs, modelSeg{t: sg.t, prep: p})
	}
	return m, nil
}

// write adds the metadata (with the raw manifest, once prepareRaw is
// done), the model segments m, the raw segments and the file contents.
func (e *encoder) write(m *modelSegs) error {
	ms := m.ms
	e.stats.Redaction = e.report
	ms.Layout, ms.Raw, ms.Redact = layoutWritten, e.man, e.report
	b, err := marshal(&ms)
	if err != nil {
		return fmt.Errorf("archive: encoding %s: %w", ctxfmt.TypeMetadata, err)
	}
	if err := e.w.Add(ctxfmt.TypeMetadata, b); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	var recall []byte // the summaries payload, once written
	for _, sg := range m.segs {
		if !sg.empty {
			if err := e.w.AddPrepared(sg.t, sg.prep); err != nil {
				return fmt.Errorf("archive: %w", err)
			}
		}
		if sg.t == ctxfmt.TypeCompactions {
			if err := e.w.Add(ctxfmt.TypeSummaries, m.recall); err != nil {
				return fmt.Errorf("archive: %w", err)
			}
			recall = m.recall
			if recall == nil {
				recall = []byte{}
			}
		}
	}
	if err := e.addTag(ms.Meta, b, recall); err != nil {
		return err
	}
	if ms.Redacted {
		b, err := marshal(&e.report)
		if err != nil {
			return fmt.Errorf("archive: encoding redaction report: %w", err)
		}
		if err := e.w.Add(ctxfmt.TypeRedactionReport, b); err != nil {
			return fmt.Errorf("archive: %w", err)
		}
	}
	if err := e.writeRaw(); err != nil {
		return err
	}
	e.groups = nil // the writer's now, freed once written
	for _, fc := range e.contents {
		if err := e.w.Add(ctxfmt.TypeFileContents, fc.Data); err != nil {
			return fmt.Errorf("archive: file content %s: %w", fc.Path, err)
		}
	}
	return nil
}

// marshal encodes v as msgpack with sorted map keys (deterministic). A
// list is encoded as the slice of its elements would be.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	l, ok := v.(list)
	if !ok {
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if err := enc.EncodeArrayLen(l.n); err != nil {
		return nil, err
	}
	for i := range l.n {
		if err := enc.Encode(l.at(i)); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// list is a list of n elements made one at a time by at, for marshal.
type list struct {
	n  int
	at func(i int) any
}

func (e *encoder) redactText(s string) string {
	if e.opts.RedactText == nil || s == "" {
		return s
	}
	r := e.opts.RedactText(s)
	if r != s {
		e.report.TextsChanged++
	}
	return r
}

// redactContents returns the captured project files as they are stored:
// redacted like every other text when redaction is on (a file the
// session read holds the same secrets as the tool output that showed
// it), counted in RedactionReport.ContentsChanged, except the files
// EncodeOptions.KeepContents names.
func (e *encoder) redactContents(fcs []FileContent) []FileContent {
	f := e.opts.RedactText
	if f == nil || len(fcs) == 0 {
		return fcs
	}
	out := make([]FileContent, len(fcs))
	for i, fc := range fcs {
		if e.opts.KeepContents != nil && e.opts.KeepContents(fc.Path) {
			out[i] = fc
			continue
		}
		if r := f(string(fc.Data)); r != string(fc.Data) {
			fc.Data = []byte(r)
			e.report.ContentsChanged++
		}
		out[i] = fc
	}
	return out
}

func (e *encoder) redactTasks(ts []Task) []Task {
	if e.opts.RedactText == nil || len(ts) == 0 {
		return ts
	}
	out := make([]Task, len(ts))
	for i, t := range ts {
		t.Content, t.ActiveForm = e.redactText(t.Content), e.redactText(t.ActiveForm)
		out[i] = t
	}
	return out
}

// text decides how one model text is stored: as its spans (text empty)
// when the stored raw line still resolves to exactly the text, otherwise
// inline (redacted) without spans. A text given as spans only (text
// empty: an importer that left it undecoded) is the spans' text in the
// line the importer read.
func (e *encoder) text(ref RawRef, text string, spans []Span) (string, []Span) {
	if text == "" && len(spans) > 0 {
		if ref.File < 0 || ref.File >= len(e.stored) {
			return "", nil
		}
		// The importer read the stored line unless redaction changed it
		// and the State was built from the files as read.
		same := e.fromStored || !e.changed[ref.File][ref.Line]
		if same && e.opts.RedactText == nil {
			// A pointer is stored only when it resolves (a reader
			// decodes it with SpanText; a hostile line can hold a
			// string encoding/json refuses). Otherwise the text the
			// importer left undecoded stays unknown, as in the State.
			if line, ok := e.lineAt(ref.File, ref.Line); ok {
				if _, ok := SpanText(line, spans); ok {
					e.stats.PointerTexts++
					return "", spans
				}
			}
			return "", nil
		}
		line, ok := e.lineAt(ref.File, ref.Line)
		if !same {
			line, ok = e.origLine(ref)
		}
		if !ok {
			return "", nil
		}
		if text, ok = SpanText(line, spans); !ok {
			return "", nil
		}
	}
	if len(spans) > 0 && ref.File >= 0 && ref.File < len(e.stored) && !e.changed[ref.File][ref.Line] {
		if line, ok := e.lineAt(ref.File, ref.Line); ok {
			if spanTextEqual(line, spans, text, &e.scratch) {
				if e.opts.RedactText == nil || e.opts.RedactText(text) == text {
					e.stats.PointerTexts++
					return "", spans
				}
			}
		}
	}
	if text != "" {
		e.stats.InlineTexts++
	}
	return e.redactText(text), nil
}

// planRaw redacts the raw files (when asked), cuts them into chunks and
// works out which chunks the previous archive already holds. A file that
// only grew since the previous archive (whose manifest carries the SHA-256
// state at its chunk ends) is handled by planAppend: only the new tail is
// redacted, cut and hashed. It ends with the per-rule redaction counts
// (countRules), which read the original lines, and only then makes the
// stored bytes (applyEdits): over the files given to StartRaw, which are
// then gone, so that the original and its redacted copy are never held
// together.
func (e *encoder) planRaw() error {
	n := len(e.files)
	e.stored, e.starts, e.changed = make([][]byte, n), make([][]int, n), make([]map[int]bool, n)
	e.edits = make([][]edit, n)
	e.man = make([]rawManifest, n)
	e.reuse, e.prevSegs = make([]int, n), make([][]int, n)
	e.storedFiles = make([]RawFile, n)
	// First every file's stored bytes, then the cutting of the files not
	// planned by planAppend.
	full := make([]bool, n)
	origStarts := make([][]int, n)
	sizes := make([]int, n) // of the stored bytes
	var fullData [][]byte
	for i, f := range e.files {
		e.man[i].Name = f.Name
		if !e.planAppend(i) {
			full[i] = true
			e.stored[i], e.changed[i], sizes[i] = f.Data, map[int]bool{}, len(f.Data)
			fullData = append(fullData, f.Data)
		}
	}
	if err := e.ctx.Err(); err != nil {
		return err
	}
	if e.opts.RedactLine != nil && len(fullData) > 0 {
		// All files' lines in one pool of workers; of a file the previous
		// archive holds the beginning of, only the rest (knownprefix.go).
		known := make([]knownLines, len(fullData))
		k := 0
		for i := range e.files {
			if full[i] {
				if known[k] = e.knownPrefix(i); known[k].off > 0 {
					fullData[k] = fullData[k][known[k].off:]
				}
				k++
			}
		}
		rs := redactFiles(e.ctx, fullData, e.opts.RedactLine, e.redactWorkers())
		if err := e.ctx.Err(); err != nil {
			return err
		}
		k = 0
		for i := range e.files {
			if !full[i] {
				continue
			}
			r := rs[k]
			if known[k].off > 0 {
				r = known[k].join(e.files[i].Data, r, e.opts.RedactLine)
			}
			k++
			e.changed[i], e.edits[i], sizes[i], origStarts[i] = r.changed, r.edits, r.size, r.starts
			e.starts[i] = r.storedStarts()
			if len(r.edits) > 0 {
				e.stored[i] = nil // made by applyEdits below
			}
		}
	}
	changedLines := make([][]int, n)
	for i := range e.files {
		var lines []int
		for l := range e.changed[i] {
			lines = append(lines, l)
		}
		sort.Ints(lines)
		changedLines[i] = lines
		e.report.LinesChanged += len(e.changed[i])
	}
	hashes := e.hashes // planAppend's, in file order
	e.hashes = nil
	k := 0
	for i, f := range e.files {
		if !full[i] {
			e.hashes = append(e.hashes, hashes[k])
			k++
		} else {
			starts := e.lineStartsOf(i)
			orig := origStarts[i]
			if orig == nil {
				orig = starts
			}
			e.man[i] = rawManifest{Name: f.Name, Size: int64(sizes[i]),
				Chunks: chunkLines(f.Data, sizes[i], orig, starts, e.changed[i], e.chunkSize())}
			e.planReuse(i)
			e.hashes = append(e.hashes, func() {
				e.man[i].SHA256 = hashChunks(sha256.New(), e.stored[i], e.man[i].Chunks)
			})
		}
		e.man[i].RedactedLines = changedLines[i]
	}
	e.countRules()
	for i, f := range e.files {
		if e.edits[i] != nil {
			e.stored[i] = applyEdits(f.Data, e.edits[i], e.owned)
			e.edits[i] = nil
		}
		e.storedFiles[i] = RawFile{Name: f.Name, Data: e.stored[i]}
	}
	return nil
}

// hashChunks hashes data chunk by chunk with h, recording the state after
// each chunk as its Mid, and returns the hex digest.
func hashChunks(h hash.Hash, data []byte, chunks []rawChunk) string {
	off := int64(0)
	for k := range chunks {
		c := &chunks[k]
		h.Write(data[off : off+c.StoredLen])
		off += c.StoredLen
		if c.Mid == nil {
			if bm, ok := h.(encoding.BinaryMarshaler); ok {
				c.Mid, _ = bm.MarshalBinary()
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// origLine returns the line ref names in the raw file as given to the
// encoder (before redaction).
func (e *encoder) origLine(ref RawRef) ([]byte, bool) {
	if e.origStarts == nil {
		e.origStarts = make([][]int, len(e.files))
	}
	if e.origStarts[ref.File] == nil {
		e.origStarts[ref.File] = lineStarts(e.files[ref.File].Data)
	}
	return lineAt(e.files[ref.File].Data, e.origStarts[ref.File], ref.Line)
}

// lineAt returns line n of stored file i (see lineAt).
func (e *encoder) lineAt(i, n int) ([]byte, bool) {
	return lineAt(e.stored[i], e.lineStartsOf(i), n)
}

// lineStartsOf returns the line starts of stored file i.
func (e *encoder) lineStartsOf(i int) []int {
	if e.starts[i] == nil {
		e.starts[i] = lineStarts(e.stored[i])
	}
	return e.starts[i]
}

// planAppend plans file i as the previous archive's reusable chunks plus
// the rest of the file, touching only that rest: it is redacted, cut and
// hashed from the SHA-256 state stored with the last reused chunk. The
// stored bytes of the reused part are the previous archive's: when
// redaction changed lines of it, the edits that make them from the
// file's own bytes are read back from its segments (the same
// configuration redacts the same lines the same way, which
// RedactFingerprint vouches for). It reports false when the previous
// archive cannot be built on this way.
func (e *encoder) planAppend(i int) bool {
	reuse, segs := e.reusable(i)
	if reuse == 0 {
		return false
	}
	prev := e.opts.Previous
	pm := prev.meta.Raw[prevFile(prev, e.files[i].Name)]
	mid := pm.Chunks[reuse-1].Mid
	if len(mid) == 0 {
		return false
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(mid); err != nil {
		return false
	}
	var origOff, storedOff int64
	skip := 0
	for k := 0; k < reuse; k++ {
		origOff += pm.Chunks[k].OrigLen
		storedOff += pm.Chunks[k].StoredLen
		skip += pm.Chunks[k].Lines
	}
	data := e.files[i].Data
	if origOff > int64(len(data)) {
		return false
	}
	rest := data[origOff:]
	r := redacted{changed: map[int]bool{}, size: len(rest)}
	var restStarts []int
	changed := map[int]bool{}
	var edits []edit
	if e.opts.RedactLine != nil {
		r = redactLines(e.ctx, rest, e.opts.RedactLine, e.redactWorkers())
		if e.ctx.Err() != nil {
			return false // (planRaw returns the error)
		}
		if storedOff != origOff || slices.ContainsFunc(pm.RedactedLines, func(l int) bool { return l < skip }) {
			// (Otherwise redaction changed no line of the reused part,
			// whose original bytes reusable matched: its stored bytes
			// are the file's own, and need not be decompressed.)
			var ok bool
			if edits, ok = prev.prefixEdits(pm, segs[:reuse], data[:origOff]); !ok {
				return false
			}
		}
		for _, l := range pm.RedactedLines {
			if l < skip {
				changed[l] = true
			}
		}
		for l := range r.changed {
			changed[l+skip] = true
		}
		for _, ed := range r.edits {
			ed.off += int(origOff)
			edits = append(edits, ed)
		}
		restStarts = r.storedStarts()
	} else if storedOff != origOff {
		return false
	} else {
		r.starts = lineStarts(rest)
		restStarts = r.starts
	}
	tail := chunkLines(rest, r.size, r.starts, restStarts, r.changed, e.chunkSize())
	m := rawManifest{Name: e.files[i].Name, Size: storedOff + int64(r.size)}
	m.Chunks = append(append([]rawChunk(nil), pm.Chunks[:reuse]...), tail...)
	e.man[i] = m
	e.hashes = append(e.hashes, func() {
		e.man[i].SHA256 = hashChunks(h, e.stored[i][storedOff:], e.man[i].Chunks[reuse:])
	})
	e.stored[i], e.changed[i] = data, changed
	if len(edits) > 0 {
		e.stored[i], e.edits[i] = nil, edits // made by planRaw (applyEdits)
	}
	e.reuse[i], e.prevSegs[i] = reuse, segs
	return true
}

// prefixEdits returns the edits that make the stored bytes of raw file
// m's leading chunks, in segments segs, from orig, the original bytes
// they were made from: one per line that differs. The segments are read
// one at a time, so that the stored bytes are never held whole beside
// the original. It reports false when they do not line up (a segment
// that does not hold what the manifest says, chunks not of whole lines).
func (a *Archive) prefixEdits(m rawManifest, segs []int, orig []byte) ([]edit, bool) {
	var edits []edit
	off := 0 // of the chunk in orig
	for k, si := range segs {
		c := m.Chunks[k]
		if c.OrigLen < 0 || c.OrigLen > int64(len(orig)-off) {
			return nil, false
		}
		b, err := a.r.ReadSegment(si)
		if err != nil || int64(len(b)) != c.StoredLen {
			return nil, false
		}
		o := orig[off : off+int(c.OrigLen)]
		pos := off
		for len(o) > 0 && len(b) > 0 {
			lo, lb := o, b
			i, j := bytes.IndexByte(o, '\n'), bytes.IndexByte(b, '\n')
			if (i < 0) != (j < 0) {
				return nil, false
			}
			if i >= 0 {
				lo, lb = o[:i+1], b[:j+1]
			}
			if !bytes.Equal(lo, lb) {
				edits = append(edits, lineEdit(pos, lo, lb))
			}
			o, b, pos = o[len(lo):], b[len(lb):], pos+len(lo)
		}
		if len(o) > 0 || len(b) > 0 {
			return nil, false
		}
		off += int(c.OrigLen)
	}
	return edits, true
}

func (e *encoder) chunkSize() int {
	if e.opts.ChunkSize > 0 {
		return min(e.opts.ChunkSize, maxChunk)
	}
	return DefaultChunkSize
}

// redactBlock is how many input bytes (whole lines) one redaction worker
// takes at a time.
const redactBlock = 64 << 10

// minRedactBlock is the smallest block of lines a worker takes when there
// is little to redact.
const minRedactBlock = 8 << 10

// redactWorkers is how many goroutines redact one file's lines at once.
func (e *encoder) redactWorkers() int {
	if e.opts.Concurrency > 0 {
		return e.opts.Concurrency
	}
	return runtime.GOMAXPROCS(0)
}

// redactLines applies fn to every line of data, on up to workers
// goroutines (fn must then be safe for concurrent use), and returns the
// edits that make the redacted bytes from data (see redacted). The result
// depends only on what fn returns for each line, not on the number of
// workers. Once ctx is done the blocks left are skipped (the result is
// then incomplete: the caller checks ctx).
func redactLines(ctx context.Context, data []byte, fn func([]byte) []byte, workers int) redacted {
	return redactFiles(ctx, [][]byte{data}, fn, workers)[0]
}

// redacted is one file's redaction: the line starts of the original, the
// numbers of the lines redaction changed, and the edits that turn the
// original into the stored bytes, size bytes long. The stored bytes are
// made only once everything that reads the original is done (applyEdits),
// so that a save need not hold the original and a redacted copy at once.
type redacted struct {
	starts  []int
	changed map[int]bool
	edits   []edit
	size    int
}

// edit replaces the n bytes at off by repl.
type edit struct {
	off, n int
	repl   []byte
}

// lineEdit returns the edit that turns the line body at off into r: the
// part between their common prefix and suffix (so that it keeps little
// beside the line, whose other bytes stay where they are).
func lineEdit(off int, body, r []byte) edit {
	p := 0
	for p < len(body) && p < len(r) && body[p] == r[p] {
		p++
	}
	q := 0
	for q < len(body)-p && q < len(r)-p && body[len(body)-1-q] == r[len(r)-1-q] {
		q++
	}
	return edit{off: off + p, n: len(body) - p - q, repl: bytes.Clone(r[p : len(r)-q])}
}

// storedStarts returns the line starts of the stored bytes: the original
// ones moved by the edits before them.
func (r *redacted) storedStarts() []int {
	if len(r.edits) == 0 {
		return r.starts
	}
	out := make([]int, len(r.starts))
	shift, k := 0, 0
	for i, st := range r.starts {
		for ; k < len(r.edits) && r.edits[k].off < st; k++ {
			shift += len(r.edits[k].repl) - r.edits[k].n
		}
		out[i] = st + shift
	}
	return out
}

// applyEdits returns data with edits (sorted, not overlapping) applied.
// With inPlace, the caller gives data up: when the result fits in its
// capacity it is written over data (the bytes past the result cleared),
// so that no copy of the file is made; otherwise, or without inPlace, the
// result is a new slice and data is left as it is.
func applyEdits(data []byte, edits []edit, inPlace bool) []byte {
	if len(edits) == 0 {
		return data
	}
	size := len(data)
	for _, e := range edits {
		size += len(e.repl) - e.n
	}
	if !inPlace || size > cap(data) {
		out := make([]byte, 0, size)
		prev := 0 // data[prev:] is not copied yet
		for _, e := range edits {
			out = append(append(out, data[prev:e.off]...), e.repl...)
			prev = e.off + e.n
		}
		return append(out, data[prev:]...)
	}
	// In place: first the runs the edits keep, moved left next to each
	// other (none moves right, so none overwrites one not moved yet);
	// then, from the last, each moved right to where it ends up, the
	// replacement before it written in front of it (none lands on a run
	// still to move, which all lie further left).
	kept := 0
	prev := 0
	for _, e := range edits {
		kept += copy(data[kept:], data[prev:e.off])
		prev = e.off + e.n
	}
	last := copy(data[kept:], data[prev:])
	kept += last
	buf := data[:max(size, len(data))]
	end := size // the end of the run being placed
	for j := len(edits); j >= 0; j-- {
		n := last
		if j < len(edits) {
			n = edits[j].off
			if j > 0 {
				n -= edits[j-1].off + edits[j-1].n
			}
		}
		kept -= n
		end -= n
		copy(buf[end:end+n], buf[kept:kept+n])
		if j > 0 {
			r := edits[j-1].repl
			end -= len(r)
			copy(buf[end:], r)
		}
	}
	clear(buf[size:])
	return buf[:size]
}

// redactFiles is redactLines for several files at once: their lines are
// cut into blocks of about redactBlock bytes, fewer when there is little
// to redact (the lines starting in [k*block, (k+1)*block) of a file),
// that the workers take in
// turn across the files, so that no worker waits at the end of one file
// while another finishes it. Each block finds its own lines: no pass over
// the files precedes the workers.
func redactFiles(ctx context.Context, files [][]byte, fn func([]byte) []byte, workers int) []redacted {
	type job struct {
		f, lo, hi int // the lines of file f starting in [lo, hi)
	}
	type result struct {
		starts  []int
		changed []int  // indices in starts of the lines fn changed
		edits   []edit // theirs, in order
	}
	total := 0
	for _, data := range files {
		total += len(data)
	}
	// Blocks of about redactBlock bytes; smaller ones (down to
	// minRedactBlock) for less, so that the new lines of an incremental
	// save are redacted on every worker too.
	block := redactBlock
	if workers > 1 {
		block = max(min(redactBlock, total/(2*workers)), minRedactBlock)
	}
	var jobs []job
	for f, data := range files {
		for lo := 0; lo < len(data); lo += block {
			jobs = append(jobs, job{f, lo, min(lo+block, len(data))})
		}
	}
	results := make([]result, len(jobs))
	run := func(k int) {
		if ctx.Err() != nil {
			return
		}
		j := jobs[k]
		data := files[j.f]
		st := j.lo
		if st > 0 {
			// The first line starting at or after lo.
			p := bytes.IndexByte(data[st-1:], '\n')
			if p < 0 {
				return
			}
			st += p
		}
		res := &results[k]
		res.starts = make([]int, 0, (j.hi-j.lo)/1024+16)
		for st < j.hi {
			res.starts = append(res.starts, st)
			end := bytes.IndexByte(data[st:], '\n')
			next := len(data)
			if end < 0 {
				end = len(data)
			} else {
				end += st
				next = end + 1
			}
			b := data[st:end]
			if len(b) > 0 && b[len(b)-1] == '\r' {
				b = b[:len(b)-1]
			}
			if r := fn(b); !bytes.Equal(r, b) {
				res.changed = append(res.changed, len(res.starts)-1)
				res.edits = append(res.edits, lineEdit(st, b, r))
			}
			st = next
		}
	}
	if workers <= 1 || total < 2*block {
		for k := range jobs {
			run(k)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(workers, len(jobs)) {
			wg.Go(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= len(jobs) {
						return
					}
					run(k)
					// Go lets a goroutine that does not block keep its
					// processor for up to 10 ms while others wait, longer
					// than a whole save: the save's goroutines (these and
					// the caller's import) take turns instead.
					runtime.Gosched()
				}
			})
		}
		wg.Wait()
	}
	out := make([]redacted, len(files))
	for f, data := range files {
		out[f].changed, out[f].size = map[int]bool{}, len(data)
	}
	for k, j := range jobs {
		res, o := &results[k], &out[j.f]
		for _, ln := range res.changed {
			o.changed[len(o.starts)+ln] = true
		}
		for _, e := range res.edits {
			o.size += len(e.repl) - e.n
		}
		o.edits = append(o.edits, res.edits...)
		if o.starts == nil {
			o.starts = res.starts
		} else {
			o.starts = append(o.starts, res.starts...)
		}
	}
	for f := range out {
		if out[f].starts == nil {
			out[f].starts = []int{}
		}
	}
	return out
}

// chunkLines cuts the stored bytes (storedLen of them, with line starts
// storedStarts) at line boundaries into chunks of about size bytes,
// recording each chunk's original extent for incremental matching.
func chunkLines(orig []byte, storedLen int, origStarts, storedStarts []int, changed map[int]bool, size int) []rawChunk {
	var chunks []rawChunk
	line, origOff, storedOff := 0, 0, 0
	nlines := len(storedStarts)
	for storedOff < storedLen {
		// Take lines until the chunk reaches size.
		end := line
		for end < nlines && storedStarts[end]-storedOff < size {
			end++
		}
		if end == line {
			end = line + 1
		}
		storedEnd, origEnd := storedLen, len(orig)
		if end < nlines {
			storedEnd, origEnd = storedStarts[end], origStarts[end]
		}
		if storedEnd-storedOff > maxChunk {
			// One huge line: cut inside it.
			storedEnd = storedOff + maxChunk
			c := rawChunk{StoredLen: maxChunk, OrigLen: -1}
			if !changed[line] {
				origEnd = origOff + maxChunk
				c.OrigLen = maxChunk
				c.OrigHash = xxhash.Sum64(orig[origOff:origEnd])
			}
			if storedStarts[line] >= storedOff {
				c.Lines = 1
			}
			chunks = append(chunks, c)
			storedOff = storedEnd
			if c.OrigLen >= 0 {
				origOff = origEnd
			} else {
				origOff = -1 << 62
			}
			continue
		}
		c := rawChunk{StoredLen: int64(storedEnd - storedOff), OrigLen: -1}
		if origOff >= 0 {
			c.OrigLen = int64(origEnd - origOff)
			c.OrigHash = xxhash.Sum64(orig[origOff:origEnd])
		}
		for l := line; l < end; l++ {
			if storedStarts[l] >= storedOff {
				c.Lines++
			}
		}
		chunks = append(chunks, c)
		storedOff, origOff, line = storedEnd, origEnd, end
	}
	return chunks
}

// writeRaw writes the raw segments, copying those the previous archive
// holds unchanged (as planned by planRaw and planGroups).
func (e *encoder) writeRaw() error {
	for _, g := range e.groups {
		m := &e.man[g.file]
		if g.reused {
			c := m.Chunks[g.chunk]
			if err := e.w.CopyRaw(e.opts.Previous.r, e.prevSegs[g.file][g.chunk]); err != nil {
				return fmt.Errorf("archive: copying raw segment of %s: %w", m.Name, err)
			}
			e.stats.RawBytes += c.StoredLen
			e.stats.CopiedSegments++
			e.stats.CopiedBytes += c.StoredLen
			continue
		}
		n := int64(len(g.data))
		e.stats.RawBytes += n
		e.stats.EncodedBytes += n
		if err := e.w.AddPrepared(ctxfmt.TypeRawTranscript, g.prep); err != nil {
			return fmt.Errorf("archive: raw segment of %s: %w", m.Name, err)
		}
	}
	return nil
}

// planReuse replaces file i's chunk plan by the previous archive's
// reusable chunks followed by the rest of the file, re-cut.
func (e *encoder) planReuse(i int) {
	reuse, segs := e.reusable(i)
	if reuse == 0 {
		return
	}
	prev := e.opts.Previous
	pm := prev.meta.Raw[prevFile(prev, e.man[i].Name)]
	var origOff, storedOff int64
	for k := 0; k < reuse; k++ {
		origOff += pm.Chunks[k].OrigLen
		storedOff += pm.Chunks[k].StoredLen
	}
	size := int(e.man[i].Size)
	if storedOff > int64(size) {
		return
	}
	rest := e.files[i].Data[origOff:]
	// The stored bytes may not be made yet (planRaw): the line starts of
	// their rest are taken from those of the whole (storedOff ends a
	// line when redacting), or from the file itself when they are its
	// bytes.
	var restStarts []int
	if e.stored[i] != nil {
		restStarts = lineStarts(e.stored[i][storedOff:])
	} else {
		starts := e.lineStartsOf(i)
		for _, st := range starts[sort.SearchInts(starts, int(storedOff)):] {
			restStarts = append(restStarts, st-int(storedOff))
		}
	}
	ch := chunkLines(rest, size-int(storedOff), lineStarts(rest), restStarts, shiftChanged(e.changed[i], pm.Chunks[:reuse]), e.chunkSize())
	e.man[i].Chunks = append(append([]rawChunk(nil), pm.Chunks[:reuse]...), ch...)
	e.reuse[i], e.prevSegs[i] = reuse, segs
}

// shiftChanged renumbers the changed-line set for the part of a file after
// the reused chunks.
func shiftChanged(changed map[int]bool, reused []rawChunk) map[int]bool {
	skip := 0
	for _, c := range reused {
		skip += c.Lines
	}
	out := map[int]bool{}
	for l := range changed {
		if l >= skip {
			out[l-skip] = true
		}
	}
	return out
}

func prevFile(p *Archive, name string) int {
	for i, m := range p.meta.Raw {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// reusable returns how many leading chunks of raw file i the previous
// archive holds unchanged, and the previous archive's segment indices of
// that file's chunks.
func (e *encoder) reusable(i int) (int, []int) {
	prev := e.opts.Previous
	redacting := e.opts.RedactLine != nil || e.opts.RedactText != nil
	if prev == nil || prev.meta.Redacted != redacting || (redacting && prev.meta.RedactFP != e.opts.RedactFingerprint) {
		return 0, nil
	}
	pf := prevFile(prev, e.man[i].Name)
	if pf < 0 {
		return 0, nil
	}
	segs := prev.rawSegments(pf)
	data := e.files[i].Data
	var endsLine func(off int64) bool
	if e.opts.RedactLine != nil {
		endsLine = func(off int64) bool { return off > 0 && data[off-1] == '\n' }
	}
	return reuseCount(prev.meta.Raw[pf].Chunks, len(segs), prev.matchedOriginal(pf, data), int64(len(data)), e.chunkSize(), endsLine), segs
}

// reuseCount is how many leading chunks of a previous archive's raw file
// (chunks, the first nsegs of them in segments of their own) an
// incremental save copies, when the first matched original bytes of the
// file (size bytes now) are known to be the previous ones: the matched
// chunks, but not a short last one (merged with the new tail rather than
// kept, so repeated incremental saves do not pile up tiny segments). With
// endsLine (redacting), only chunks ending a line are copied.
func reuseCount(chunks []rawChunk, nsegs int, matched, size int64, chunkSize int, endsLine func(off int64) bool) int {
	var off int64
	n := 0
	for k, c := range chunks {
		if c.OrigLen < 0 || off+c.OrigLen > matched || k >= nsegs {
			break
		}
		if endsLine != nil && (c.OrigLen == 0 || !endsLine(off+c.OrigLen)) {
			break
		}
		off += c.OrigLen
		n = k + 1
	}
	if n > 0 && off < size && chunks[n-1].StoredLen < int64(chunkSize/4) {
		n--
	}
	return n
}

// redactedView is the State the recall is built from: s itself, or with
// RedactText applied to every text when redacting.
func (e *encoder) redactedView() *State {
	f := e.opts.RedactText
	if f == nil {
		return e.s
	}
	v := *e.s
	v.Meta.Title = f(v.Meta.Title)
	v.Messages = make([]Message, len(e.s.Messages))
	for i, m := range e.s.Messages {
		m.Text = f(m.Text)
		v.Messages[i] = m
	}
	v.Tools = make([]ToolExec, len(e.s.Tools))
	for i, t := range e.s.Tools {
		t.Input, t.Output, t.Command = f(t.Input), f(t.Output), f(t.Command)
		v.Tools[i] = t
	}
	v.Compactions = make([]Compaction, len(e.s.Compactions))
	for i, c := range e.s.Compactions {
		c.Summary = f(c.Summary)
		v.Compactions[i] = c
	}
	v.Preferences = make([]Preference, len(e.s.Preferences))
	for i, p := range e.s.Preferences {
		p.Text = f(p.Text)
		v.Preferences[i] = p
	}
	v.Tasks.Active, v.Tasks.Pending, v.Tasks.Completed = e.redactTasksQuiet(v.Tasks.Active), e.redactTasksQuiet(v.Tasks.Pending), e.redactTasksQuiet(v.Tasks.Completed)
	return &v
}

func (e *encoder) redactTasksQuiet(ts []Task) []Task {
	out := make([]Task, len(ts))
	for i, t := range ts {
		t.Content, t.ActiveForm = e.opts.RedactText(t.Content), e.opts.RedactText(t.ActiveForm)
		out[i] = t
	}
	return out
}
