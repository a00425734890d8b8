package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive/internal/mpguard"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// OpenOptions tune Open.
type OpenOptions struct {
	// Passphrase or Key open an encrypted archive.
	Passphrase []byte
	Key        []byte
	// MaxSegmentSize bounds one segment's decoded size (0: ctxfmt default).
	MaxSegmentSize int64
	// RequireEncryption refuses a plaintext archive (ErrPlaintext). Set
	// it where the user configured encryption: a Passphrase or Key alone
	// still opens a plaintext archive, which is how archives saved before
	// encryption was turned on are read when the user asks for them.
	RequireEncryption bool
	// MaxDecodedSize bounds the raw transcript bytes the archive may
	// materialise in all (0: 4 GiB); an archive declaring more is
	// refused (ErrTooLarge) before anything is decompressed.
	MaxDecodedSize int64
	// Keys, when set, reuses a passphrase's derived key (see
	// ctxfmt.KeyCache).
	Keys *ctxfmt.KeyCache
}

// defaultMaxDecodedSize is OpenOptions.MaxDecodedSize's default: 4 GiB of
// raw transcript, some twenty times the largest sessions seen.
const defaultMaxDecodedSize = 4 << 30

// maxLines is the most lines a raw file of n bytes may hold for its
// line index to be built: 4 Mi lines plus one per 32 bytes (a transcript's
// JSONL lines are hundreds of bytes long), some 32 MiB plus a quarter of
// the file.
func maxLines(n int) int { return 4<<20 + n/32 }

// presizeRatio bounds the compression ratio a raw file's declared size
// is trusted at for allocating it whole before its segments are read;
// beyond it (or past presizeFree) the buffer grows with the bytes that
// actually arrive, so a size lie costs at most presizeRatio times the
// stored bytes.
const (
	presizeRatio = 16
	presizeFree  = 8 << 20
)

// Archive is an opened .ctx archive. Open reads only the container index
// and the metadata segment; every accessor decodes just the segments it
// needs, once (results are cached). An Archive is safe for concurrent use.
type Archive struct {
	r          *ctxfmt.Reader
	closer     io.Closer
	meta       metaSegment
	metaSum    [32]byte // SHA-256 of the metadata segment's payload
	maxDecoded int64

	// chunkSegs[f][k] is the container index of the segment holding
	// chunk k of raw file f.
	chunkSegs [][]int

	mu    sync.Mutex
	raw   [][]byte // stored raw files, once read
	lines [][]int
}

// Open opens an archive from ra.
func Open(ra io.ReaderAt, size int64, opts OpenOptions) (*Archive, error) {
	r, err := ctxfmt.NewReader(ra, size, ctxfmt.ReaderOptions{Passphrase: opts.Passphrase, Key: opts.Key, MaxSegmentSize: opts.MaxSegmentSize, Keys: opts.Keys})
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if opts.RequireEncryption && !r.Encrypted() {
		return nil, ErrPlaintext
	}
	a := &Archive{r: r, maxDecoded: opts.MaxDecodedSize}
	idx := r.Find(ctxfmt.TypeMetadata)
	if len(idx) == 0 {
		return nil, ErrNotArchive
	}
	b, err := r.ReadSegment(idx[0])
	if err != nil {
		return nil, &SegmentError{Segment: "metadata", Err: err}
	}
	if len(b) == 0 || !(b[0]&0xf0 == 0x80 || b[0] == 0xde || b[0] == 0xdf) {
		// Not the msgpack map every Ben10 version writes: a container
		// someone packed with a metadata segment of their own.
		return nil, fmt.Errorf("%w (the metadata segment is not a msgpack map)", ErrNotArchive)
	}
	a.metaSum = sha256.Sum256(b)
	if err := unmarshal(b, &a.meta); err != nil {
		return nil, &SegmentError{Segment: "metadata", Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
	}
	if err := a.checkForm(); err != nil {
		return nil, err
	}
	if err := a.locateChunks(); err != nil {
		return nil, err
	}
	if got := len(r.Find(ctxfmt.TypeFileContents)); got != len(a.meta.Contents) {
		return nil, corrupt("manifest lists %d file contents, container holds %d", len(a.meta.Contents), got)
	}
	return a, nil
}

// checkForm refuses what this build does not read: a layout other than
// 1, a newer schema, and the forms only pre-release builds wrote (a
// derived conversation, packed raw chunks in layouts 2 and 3, raw-only
// layout 4, the recall-fold segment), each named in the error
// (ErrSchema).
func (a *Archive) checkForm() error {
	switch {
	case a.meta.Derived != nil:
		return fmt.Errorf("%w: a pre-release form whose conversation is rebuilt from the raw transcript by an importer (save the session again)", ErrSchema)
	case a.meta.Pending != nil:
		return fmt.Errorf("%w: layout 4 (a pre-release raw-only archive, no longer read)", ErrSchema)
	}
	switch l := a.meta.Layout; l {
	case 1:
	case 2, 3:
		return fmt.Errorf("%w: layout %d (raw chunks packed into shared segments by a pre-release build, no longer read)", ErrSchema, l)
	case 4:
		return fmt.Errorf("%w: layout 4 (a pre-release raw-only archive, no longer read)", ErrSchema)
	default:
		return fmt.Errorf("%w: layout %d (this build reads layout 1)", ErrSchema, l)
	}
	if v := a.meta.Meta.SchemaVersion; v > SchemaVersion {
		return fmt.Errorf("%w: schema %d (this build reads up to %d)", ErrSchema, v, SchemaVersion)
	}
	if len(a.r.Find(typeRecallFold)) > 0 {
		return fmt.Errorf("%w: a recall-fold segment (type %#x, written by pre-release builds, no longer read)", ErrSchema, uint32(typeRecallFold))
	}
	return nil
}

// OpenFile opens the archive at path; Close releases the file.
func OpenFile(path string, opts OpenOptions) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("archive: %w", err)
	}
	a, err := Open(f, fi.Size(), opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.closer = f
	return a, nil
}

// Close releases the file OpenFile opened (no-op for Open).
func (a *Archive) Close() error {
	if a.closer == nil {
		return nil
	}
	return a.closer.Close()
}

// unmarshal decodes msgpack bytes from disk into v. Hostile bytes give an
// error, never a panic nor an unbounded allocation: msgpack v5.4.1
// allocates an array's elements from its header before reading them, so
// the value is first checked to be complete (mpguard.WellFormed; msgpack
// fails on an incomplete one anyway), and msgpack panics when a nil
// stands where a struct such as time.Time is expected, so decoding runs
// under recover.
//
// What the decoded values would take is then checked against the
// segment's budget (mpguard.CheckCost; ErrTooLarge beyond it), since
// msgpack allocates a slice's elements from the array header before it
// reads them.
func unmarshal(b []byte, v any) error {
	if ok, _, _ := mpguard.WellFormed(b); !ok {
		return mpguard.ErrMalformed
	}
	if _, err := mpguard.CheckCost(b, v); err != nil {
		if errors.Is(err, mpguard.ErrOverBudget) {
			return fmt.Errorf("%w: %w", ErrTooLarge, err)
		}
		return err
	}
	return msgpackUnmarshal(b, v)
}

// msgpackUnmarshal is msgpack.Unmarshal under recover (the tests'
// reference: no completeness check).
func msgpackUnmarshal(b []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed msgpack: %v", p)
		}
	}()
	return msgpack.Unmarshal(b, v)
}

// decodeType decodes the first segment of type t into a T; a missing
// segment gives the zero T.
func decodeType[T any](a *Archive, t ctxfmt.SegmentType) (T, error) {
	var v T
	idx := a.r.Find(t)
	if len(idx) == 0 {
		return v, nil
	}
	b, err := a.r.ReadSegment(idx[0])
	if err != nil {
		return v, &SegmentError{Segment: t.String(), Err: err}
	}
	if err := unmarshal(b, &v); err != nil {
		if !errors.Is(err, ErrSchema) {
			err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return v, &SegmentError{Segment: t.String(), Err: err}
	}
	return v, nil
}

// Meta returns the metadata (no segment read: decoded at Open).
func (a *Archive) Meta() Metadata { return a.meta.Meta }

// ImportReport returns what the importer could not take in whole.
func (a *Archive) ImportReport() ImportReport { return a.meta.Import }

// Redaction reports whether and how much the archive was redacted.
func (a *Archive) Redaction() RedactionReport { return a.meta.Redact }

// decodedLimit is OpenOptions.MaxDecodedSize or its default.
func (a *Archive) decodedLimit() int64 {
	if a.maxDecoded <= 0 {
		return defaultMaxDecodedSize
	}
	return a.maxDecoded
}

// Container gives access to the underlying ctxfmt reader (segment sizes).
func (a *Archive) Container() *ctxfmt.Reader { return a.r }

// RawFileInfo describes one stored raw transcript file.
type RawFileInfo struct {
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	Segments int    `json:"segments"` // chunks the file is cut into, one segment each
}

// RawFileInfos lists the stored raw files (no segment read).
func (a *Archive) RawFileInfos() []RawFileInfo {
	out := make([]RawFileInfo, len(a.meta.Raw))
	for i, m := range a.meta.Raw {
		out[i] = RawFileInfo{Name: m.Name, Size: m.Size, SHA256: m.SHA256, Segments: len(m.Chunks)}
	}
	return out
}

// Tasks decodes the task state segment.
func (a *Archive) Tasks() (TaskState, error) {
	return decodeType[TaskState](a, ctxfmt.TypeTaskState)
}

// Compactions decodes the compactions segment and fills each summary.
// A summary stored as a pointer into its isCompactSummary line (archives
// written by this version on) is read from the raw transcript, which this
// decompresses; CompactionBoundaries gives the boundary facts without it.
func (a *Archive) Compactions() ([]Compaction, error) {
	cs, err := a.CompactionBoundaries()
	if err != nil {
		return nil, err
	}
	for i := range cs {
		c := &cs[i]
		if err := a.fill(&c.Summary, c.SummaryRef, c.SummarySpans, "compaction %d (%s) summary", i, c.UUID); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// CompactionBoundaries decodes the compactions segment only: trigger,
// token counts, time and parent of every compaction, read without the raw
// transcript. Summary is filled only where the archive stores it inline
// (older archives, and summaries the redaction changed); elsewhere
// SummarySpans is set and Compactions reads the text.
func (a *Archive) CompactionBoundaries() ([]Compaction, error) {
	return decodeType[[]Compaction](a, ctxfmt.TypeCompactions)
}

// Preferences decodes the preferences segment.
func (a *Archive) Preferences() ([]Preference, error) {
	return decodeType[[]Preference](a, ctxfmt.TypePreferences)
}

// Files decodes the file registry segment.
func (a *Archive) Files() ([]FileRecord, error) {
	return decodeType[fileRegistry](a, ctxfmt.TypeFileRegistry)
}

// Recall decodes the stored recall (the digest's input) from the
// summaries segment; ok is false when the archive holds none.
func (a *Archive) Recall() (Recall, bool, error) {
	r, err := decodeType[Recall](a, ctxfmt.TypeSummaries) // ErrCorrupt or ErrSchema
	if err != nil {
		return Recall{}, false, err
	}
	return r, len(a.r.Find(ctxfmt.TypeSummaries)) > 0, nil
}

// Messages decodes the conversation and fills each message's text from the
// raw transcript where it is stored as a pointer.
func (a *Archive) Messages() ([]Message, error) {
	ms, err := decodeType[[]Message](a, ctxfmt.TypeConversation)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		m := &ms[i]
		if err := a.fill(&m.Text, m.Ref, m.TextSpans, "message %d (%s)", i, m.ID); err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// Tools decodes the tool history and fills inputs and outputs from the
// raw transcript.
func (a *Archive) Tools() ([]ToolExec, error) {
	ts, err := decodeType[[]ToolExec](a, ctxfmt.TypeToolHistory)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		t := &ts[i]
		if err := a.fill(&t.Input, t.Ref, t.InputSpans, "tool %d (%s) input", i, t.ID); err != nil {
			return nil, err
		}
		if err := a.fill(&t.Output, t.ResultRef, t.OutputSpans, "tool %d (%s) output", i, t.ID); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// fill sets *text to what spans point to in line ref of the raw
// transcript, when the archive stores the text as spans; an error names
// the text (format and args).
func (a *Archive) fill(text *string, ref RawRef, spans []Span, format string, args ...any) error {
	if len(spans) == 0 {
		return nil
	}
	t, err := a.resolve(ref, spans)
	if err != nil {
		return fmt.Errorf("archive: %s: %w", fmt.Sprintf(format, args...), err)
	}
	*text = t
	return nil
}

func (a *Archive) resolve(ref RawRef, spans []Span) (string, error) {
	raw, starts, err := a.rawAll()
	if err != nil {
		return "", err
	}
	if ref.File < 0 || ref.File >= len(raw) {
		return "", corrupt("reference to raw file %d of %d", ref.File, len(raw))
	}
	line, ok := lineAt(raw[ref.File], starts[ref.File], ref.Line)
	if !ok {
		return "", corrupt("reference to line %d of raw file %s", ref.Line+1, a.meta.Raw[ref.File].Name)
	}
	s, ok := SpanText(line, spans)
	if !ok {
		return "", corrupt("text pointer outside line %d of raw file %s", ref.Line+1, a.meta.Raw[ref.File].Name)
	}
	return s, nil
}

// locateChunks maps every raw chunk onto its raw segment: one segment
// per chunk, in file order (layout 1; checkForm refused the packed
// layouts).
func (a *Archive) locateChunks() error {
	segs := a.r.Find(ctxfmt.TypeRawTranscript)
	n := 0
	for _, m := range a.meta.Raw {
		for k, c := range m.Chunks {
			if c.StoredLen < 0 || c.StoredLen > maxChunk {
				return corrupt("raw file %s chunk %d: %d bytes", m.Name, k, c.StoredLen)
			}
			if c.Packed {
				return fmt.Errorf("%w: raw file %s chunk %d is packed into a shared segment (a pre-release form, no longer read)", ErrSchema, m.Name, k)
			}
		}
		n += len(m.Chunks)
	}
	if n != len(segs) {
		return corrupt("manifest lists %d raw segments, container holds %d", n, len(segs))
	}
	a.chunkSegs = make([][]int, len(a.meta.Raw))
	for f, m := range a.meta.Raw {
		k := len(m.Chunks)
		a.chunkSegs[f], segs = segs[:k:k], segs[k:]
	}
	return nil
}

// rawSegments returns the container indices of raw file f's leading
// chunks that each have a segment of their own (the chunks an incremental
// save can copy), in order; it stops at the first segment compressed
// against another one.
func (a *Archive) rawSegments(f int) []int {
	var out []int
	infos := a.r.Segments()
	for _, si := range a.chunkSegs[f] {
		// A segment compressed against another one (codec 3, which
		// pre-release builds wrote at LevelMax) is not copied.
		if infos[si].Codec == ctxfmt.CodecZstdDict {
			break
		}
		out = append(out, si)
	}
	return out
}

// readChunks reads raw file m's leading chunks from their segments segs
// and joins them; they must hold n bytes. Every segment must decode to
// what the manifest says its chunk stores. The result is allocated up
// front only as far as the stored bytes make n plausible (see
// presizeRatio), the rest growing as it is really decoded. A file of one
// chunk is its segment's bytes.
func (a *Archive) readChunks(m rawManifest, segs []int, n int64) ([]byte, error) {
	infos := a.r.Segments()
	var total, plausible int64
	for k, si := range segs {
		c, info := m.Chunks[k], infos[si]
		if info.RawLen != c.StoredLen {
			return nil, corrupt("raw file %s chunk %d: segment holds %d bytes, manifest says %d", m.Name, k, info.RawLen, c.StoredLen)
		}
		total += c.StoredLen
		plausible += min(c.StoredLen, info.StoredLen*presizeRatio)
	}
	if total != n {
		return nil, corrupt("raw file %s: chunks hold %d bytes, manifest says %d", m.Name, total, n)
	}
	var out []byte
	if len(segs) > 1 {
		out = make([]byte, 0, min(n, max(plausible, presizeFree)))
	}
	for k, si := range segs {
		b, err := a.r.ReadSegment(si)
		if err != nil {
			return nil, &SegmentError{Segment: fmt.Sprintf("raw transcript %s chunk %d", m.Name, k), Err: err}
		}
		if int64(len(b)) != m.Chunks[k].StoredLen {
			return nil, corrupt("raw file %s chunk %d: segment holds %d bytes, manifest says %d", m.Name, k, len(b), m.Chunks[k].StoredLen)
		}
		if out == nil {
			return b, nil // one chunk
		}
		out = append(out, b...)
	}
	return out, nil
}

// matchedOriginal returns how many leading bytes of data are known to
// equal raw file f's original bytes: the sum of the leading chunks whose
// original bytes data holds with the same xxhash64 (every chunk, shared or
// not).
func (a *Archive) matchedOriginal(f int, data []byte) int64 {
	if len(data) == 0 || f < 0 || f >= len(a.meta.Raw) {
		return 0
	}
	var off int64
	for _, c := range a.meta.Raw[f].Chunks {
		if c.OrigLen < 0 || off+c.OrigLen > int64(len(data)) || xxhash.Sum64(data[off:off+c.OrigLen]) != c.OrigHash {
			break
		}
		off += c.OrigLen
	}
	return off
}

// RedactionFingerprint returns the EncodeOptions.RedactFingerprint the
// archive was written with ("" when not redacted or not given).
func (a *Archive) RedactionFingerprint() string { return a.meta.RedactFP }

// rawFile reads one stored raw file and checks it against the
// manifest's SHA-256.
func (a *Archive) rawFile(f int) ([]byte, error) {
	m := a.meta.Raw[f]
	if m.Size < 0 || m.Size > 1<<40 {
		return nil, corrupt("raw file %s: size %d", m.Name, m.Size)
	}
	out, err := a.readChunks(m, a.chunkSegs[f], m.Size)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(out)
	if hex.EncodeToString(h[:]) != m.SHA256 {
		return nil, corrupt("raw file %s: SHA-256 mismatch", m.Name)
	}
	return out, nil
}

func (a *Archive) rawAll() ([][]byte, [][]int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.raw != nil {
		return a.raw, a.lines, nil
	}
	var declared int64
	limit := a.decodedLimit()
	for _, m := range a.meta.Raw {
		if m.Size > limit-declared {
			return nil, nil, fmt.Errorf("%w: raw files declare over %d bytes (raw file %s: %d)", ErrTooLarge, limit, m.Name, m.Size)
		}
		if m.Size < 0 {
			break // rawFile names the problem
		}
		declared += m.Size
	}
	raw := make([][]byte, len(a.meta.Raw))
	lines := make([][]int, len(a.meta.Raw))
	for i := range a.meta.Raw {
		b, err := a.rawFile(i)
		if err != nil {
			return nil, nil, err
		}
		// Each line start takes 8 bytes: a file of empty lines would
		// index to eight times its size.
		if n := bytes.Count(b, []byte{'\n'}); n > maxLines(len(b)) {
			return nil, nil, fmt.Errorf("%w: raw file %s: %d lines in %d bytes", ErrTooLarge, a.meta.Raw[i].Name, n, len(b))
		}
		raw[i], lines[i] = b, lineStarts(b)
	}
	a.raw, a.lines = raw, lines
	return raw, lines, nil
}

// RawFiles returns the stored raw transcript files (the original bytes
// when the archive was saved without redaction), each checked against its
// SHA-256.
func (a *Archive) RawFiles() ([]RawFile, error) {
	raw, _, err := a.rawAll()
	if err != nil {
		return nil, err
	}
	out := make([]RawFile, len(raw))
	for i, b := range raw {
		out[i] = RawFile{Name: a.meta.Raw[i].Name, Data: b}
	}
	return out, nil
}

// FileContents returns the project files captured at save time.
func (a *Archive) FileContents() ([]FileContent, error) {
	idx := a.r.Find(ctxfmt.TypeFileContents)
	out := make([]FileContent, 0, len(idx))
	for k, si := range idx {
		c := a.meta.Contents[k]
		b, err := a.r.ReadSegment(si)
		if err != nil {
			return nil, &SegmentError{Segment: "file content " + c.Path, Err: err}
		}
		h := sha256.Sum256(b)
		if hex.EncodeToString(h[:]) != c.SHA256 {
			return nil, corrupt("file content %s: SHA-256 mismatch", c.Path)
		}
		out = append(out, FileContent{Path: c.Path, Data: b})
	}
	return out, nil
}

// Load decodes the whole State, texts resolved, raw files and file
// contents included.
func (a *Archive) Load() (*State, error) {
	s := &State{Meta: a.meta.Meta, Import: a.meta.Import}
	var err error
	if s.Messages, err = a.Messages(); err != nil {
		return nil, err
	}
	if s.Tools, err = a.Tools(); err != nil {
		return nil, err
	}
	if s.Files, err = a.Files(); err != nil {
		return nil, err
	}
	if s.Tasks, err = a.Tasks(); err != nil {
		return nil, err
	}
	if s.Compactions, err = a.Compactions(); err != nil {
		return nil, err
	}
	if s.Preferences, err = a.Preferences(); err != nil {
		return nil, err
	}
	if s.Raw, err = a.RawFiles(); err != nil {
		return nil, err
	}
	if s.FileContents, err = a.FileContents(); err != nil {
		return nil, err
	}
	return s, nil
}

// Summary is what a status read shows: metadata and small counts, read
// from the metadata segment alone.
type Summary struct {
	Meta        Metadata        `json:"meta"`
	Import      ImportReport    `json:"import"`
	Redaction   RedactionReport `json:"redaction"`
	RawFiles    []RawFileInfo   `json:"raw_files"`
	Compactions int             `json:"compactions"`
	Preferences int             `json:"preferences"`
	TasksActive int             `json:"tasks_active"`
	TasksPend   int             `json:"tasks_pending"`
	TasksDone   int             `json:"tasks_completed"`
	Contents    int             `json:"file_contents"`
}

// Summary returns the status summary (no segment read).
func (a *Archive) Summary() Summary {
	ms := &a.meta
	c := ms.Counts
	return Summary{
		Meta: ms.Meta, Import: ms.Import, Redaction: a.meta.Redact, RawFiles: a.RawFileInfos(),
		Compactions: c.Compactions, Preferences: c.Preferences,
		TasksActive: c.Active, TasksPend: c.Pending, TasksDone: c.Completed, Contents: len(a.meta.Contents),
	}
}
