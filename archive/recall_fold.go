package archive

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"time"

	"github.com/cespare/xxhash/v2"
)

// An incremental recall. BuildRecall's tool pass is a fold over the tool
// history (toolFold); an archive that keeps a resume state also keeps the
// fold's state after a prefix of its tools (the recall-fold segment,
// TypeRecallFold), so that the recall of the grown session folds only the
// tools after that prefix. The checkpoint records an xxhash64 of what the
// fold read from the prefix's tools (foldDigest); it is used only when the
// new State's first tools give the same digest, i.e. when the fold over
// them is the one recorded: the recall is then the same as one built from
// scratch (TestRecallFoldMatchesFromScratch).

// TypeRecallFold is the extension segment type holding the recall's tool
// fold after a prefix of the tools (a cache beside the resume state:
// readers that do not know it skip it, and archival saves leave it out).
const TypeRecallFold = TypeResumeState + 1

// foldVersion changes whenever the checkpoint's encoding or the fold's
// meaning does. Version 2: additive digests, with the tools' skeletons.
const foldVersion = 2

// RecallFoldPoint returns how many of its first tools the recall fold an
// encoder checkpoints for tools covers (see TypeRecallFold): an importer
// writing a resume state can tell which texts the next save will not
// need.
func RecallFoldPoint(tools []ToolExec) int { return foldPoint(tools) }

// foldPoint is where the encoder checkpoints the fold of s's tools: before
// the first tool a later save may see differently. Those are the tools
// of files other than the main transcript (Raw[0]; the others can move,
// and a grown main file puts new tools before them) and the main-chain
// tools still waiting for their result.
func foldPoint(tools []ToolExec) int {
	for i := range tools {
		t := &tools[i]
		if t.Ref.File != 0 || t.ResultRef.File != 0 || (!t.Sidechain && noResult(t)) {
			return i
		}
	}
	return len(tools)
}

// foldDigest sums, over a history's first n tools, two xxhash64s of each
// tool (with its index): "text", of what the fold reads from it (every
// field it looks at, texts only where RecallTexts says a partial State
// keeps them), and "skel", of the tool without its input, output and
// command texts (but with the spans locating them and any text stored
// without spans). Sums compose: the digest of a longer prefix goes on
// from a shorter one's, whichever way it was reached. Equal skeletons of
// tools read from the same raw lines have the same texts, which is what
// an importer vouches for with ModelSource.FoldedTexts.
type foldDigest struct {
	text, skel uint64
	n          int // tools added
	buf        []byte
}

func newFoldDigest() *foldDigest { return &foldDigest{buf: make([]byte, 0, 512)} }

func (fd *foldDigest) str(d *xxhash.Digest, s string) {
	fd.buf = binary.AppendUvarint(fd.buf, uint64(len(s)))
	if len(s) > 256 {
		_, _ = d.Write(fd.buf)
		fd.buf = fd.buf[:0]
		_, _ = d.WriteString(s)
		return
	}
	fd.buf = append(fd.buf, s...)
}

func (fd *foldDigest) spans(sp []Span) {
	fd.buf = binary.AppendUvarint(fd.buf, uint64(len(sp)))
	for _, x := range sp {
		fd.buf = binary.AppendUvarint(fd.buf, uint64(x.Off))
		fd.buf = binary.AppendUvarint(fd.buf, uint64(x.Len))
		fd.buf = append(fd.buf, bit(x.Verbatim))
	}
}

// add adds tools, the ones after those added before (text: with the
// text hashes; a State whose texts are elided adds only skeletons).
func (fd *foldDigest) add(tools []ToolExec, text bool) {
	d := xxhash.New()
	for i := range tools {
		t := &tools[i]
		seq := uint64(fd.n + i)
		// The skeleton.
		d.Reset()
		fd.buf = binary.AppendUvarint(fd.buf[:0], seq)
		fd.buf = append(fd.buf, bit(t.Sidechain), bit(t.Success))
		fd.str(d, t.ID)
		fd.str(d, t.Name)
		fd.buf = binary.AppendVarint(fd.buf, t.Timestamp.Unix())
		fd.buf = binary.AppendUvarint(fd.buf, uint64(t.Timestamp.Nanosecond()))
		fd.buf = binary.AppendVarint(fd.buf, t.DurationMS)
		fd.buf = binary.AppendUvarint(fd.buf, uint64(len(t.RelatedFiles)))
		for _, f := range t.RelatedFiles {
			fd.str(d, f)
		}
		for _, r := range []RawRef{t.Ref, t.ResultRef} {
			fd.buf = binary.AppendVarint(fd.buf, int64(r.File))
			fd.buf = binary.AppendVarint(fd.buf, int64(r.Line))
		}
		fd.spans(t.InputSpans)
		fd.spans(t.OutputSpans)
		if len(t.InputSpans) == 0 {
			fd.str(d, t.Input)
		}
		if len(t.OutputSpans) == 0 {
			fd.str(d, t.Output)
		}
		_, _ = d.Write(fd.buf)
		fd.skel += d.Sum64()
		if !text {
			continue
		}
		// What the fold reads.
		d.Reset()
		fd.buf = binary.AppendUvarint(fd.buf[:0], seq)
		if t.Sidechain {
			fd.buf = append(fd.buf, 's')
		} else {
			fd.buf = append(fd.buf, 't')
			fd.str(d, t.Name)
			fd.str(d, t.Command)
			fd.str(d, t.Input)
			if _, out := RecallTexts(t); out {
				fd.buf = append(fd.buf, 'o')
				fd.str(d, t.Output)
			}
			fd.buf = append(fd.buf, bit(t.Success), bit(len(t.OutputSpans) > 0))
			fd.buf = binary.AppendVarint(fd.buf, t.Timestamp.Unix())
			fd.buf = binary.AppendUvarint(fd.buf, uint64(t.Timestamp.Nanosecond()))
			fd.buf = binary.AppendUvarint(fd.buf, uint64(len(t.RelatedFiles)))
			for _, f := range t.RelatedFiles {
				fd.str(d, f)
			}
		}
		_, _ = d.Write(fd.buf)
		fd.text += d.Sum64()
	}
	fd.n += len(tools)
}

func bit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendCheckpoint appends the fold's state to dst, with the foldDigest
// sums (text, skel) of the fold's first fold.n tools.
func (fold *toolFold) appendCheckpoint(dst []byte, text, skel uint64) []byte {
	w := foldWriter{b: dst}
	w.uint(foldVersion)
	w.str(fold.dir)
	w.uint(uint64(fold.n))
	w.b = binary.LittleEndian.AppendUint64(w.b, text)
	w.b = binary.LittleEndian.AppendUint64(w.b, skel)

	w.uint(uint64(len(fold.files)))
	for _, p := range sortedKeys(fold.files) {
		f := fold.files[p]
		w.str(p)
		w.uint(uint64(f.reads))
		w.uint(uint64(f.edits))
		w.uint(uint64(f.writes))
		w.uint(uint64(f.searches))
		w.uint(uint64(f.seq))
		w.time(f.last)
	}
	w.uint(uint64(len(fold.cmds)))
	for _, k := range sortedKeys(fold.cmds) {
		c := fold.cmds[k]
		w.str(k)
		w.uint(uint64(c.Lines))
		w.uint(uint64(c.Runs))
		w.uint(uint64(c.Failures))
		w.b = append(w.b, bit(c.OK)|bit(c.ExitKnown)<<1|bit(c.NoResult)<<2)
		w.int(int64(c.Exit))
		w.str(c.Error)
		w.time(c.Last)
		w.uint(uint64(c.Seq))
	}
	w.uint(uint64(len(fold.errs)))
	for _, id := range sortedKeys(fold.errs) {
		e := fold.errs[id]
		w.str(e.Tool)
		w.str(e.Subject)
		w.str(e.Message)
		w.uint(uint64(e.Count))
		w.time(e.Time)
		w.uint(uint64(e.Seq))
		w.str(e.key)
		w.b = append(w.b, bit(e.family))
	}
	for _, m := range []map[string]int{fold.okFamily, fold.okPath} {
		w.uint(uint64(len(m)))
		for _, k := range sortedKeys(m) {
			w.str(k)
			w.uint(uint64(m[k]))
		}
	}
	return w.b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type foldWriter struct{ b []byte }

func (w *foldWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *foldWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *foldWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// time writes t as Unix seconds and nanoseconds (the recall keeps
// instants, not locations; zero stays zero).
func (w *foldWriter) time(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	w.b = append(w.b, 1)
	w.int(t.Unix())
	w.uint(uint64(t.Nanosecond()))
}

var errFold = errors.New("malformed recall fold")

type foldReader struct {
	b   []byte
	err error
}

func (r *foldReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errFold
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a non-negative int no larger than max.
func (r *foldReader) count(max int) int {
	v := r.uint()
	if max < 0 || v > uint64(max) {
		r.err = errFold
		return 0
	}
	return int(v)
}

func (r *foldReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errFold
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *foldReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errFold
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *foldReader) str() string {
	v := r.uint()
	if r.err == nil && v > uint64(len(r.b)) {
		r.err = errFold
	}
	if r.err != nil {
		return ""
	}
	n := int(v)
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *foldReader) time() time.Time {
	switch r.byte() {
	case 0:
		return time.Time{}
	case 1:
		sec := r.int()
		nsec := r.uint()
		if nsec >= uint64(time.Second) {
			r.err = errFold
			return time.Time{}
		}
		return time.Unix(sec, int64(nsec)).UTC()
	}
	r.err = errFold
	return time.Time{}
}

// decodeFold decodes a checkpoint (appendCheckpoint) and its digests.
// Hostile bytes give an error, never a panic or an allocation larger
// than the input allows.
func decodeFold(b []byte) (fold *toolFold, text, skel uint64, err error) {
	r := foldReader{b: b}
	if r.uint() != foldVersion {
		return nil, 0, 0, errFold
	}
	fold = newToolFold(r.str())
	fold.n = r.count(math.MaxInt32)
	if r.err != nil || len(r.b) < 16 {
		return nil, 0, 0, errFold
	}
	text, skel = binary.LittleEndian.Uint64(r.b), binary.LittleEndian.Uint64(r.b[8:])
	r.b = r.b[16:]
	seq := func() int { return r.count(fold.n - 1) }
	// Every entry takes at least one byte per field: a count above the
	// bytes left is malformed.
	for n := r.count(len(r.b)); n > 0 && r.err == nil; n-- {
		p := r.str()
		f := &foldFile{reads: r.count(fold.n), edits: r.count(fold.n), writes: r.count(fold.n), searches: r.count(fold.n)}
		f.seq = seq()
		f.last = r.time()
		fold.files[p] = f
	}
	for n := r.count(len(r.b)); n > 0 && r.err == nil; n-- {
		k := r.str()
		c := &cmdAcc{RecallCommand: RecallCommand{Command: capBytes(k, RecallCommandBytes)}}
		c.Lines = r.count(math.MaxInt32)
		c.Runs = r.count(fold.n)
		c.Failures = r.count(fold.n)
		fl := r.byte()
		if fl > 7 {
			r.err = errFold
		}
		c.OK, c.ExitKnown, c.NoResult = fl&1 != 0, fl&2 != 0, fl&4 != 0
		x := r.int()
		if x < math.MinInt32 || x > math.MaxInt32 {
			r.err = errFold
		}
		c.Exit = int(x)
		c.Error = r.str()
		c.Last = r.time()
		c.Seq = seq()
		fold.cmds[k] = c
	}
	for n := r.count(len(r.b)); n > 0 && r.err == nil; n-- {
		e := &errAcc{}
		e.Tool, e.Subject, e.Message = r.str(), r.str(), r.str()
		e.Count = r.count(fold.n)
		e.Time = r.time()
		e.Seq = seq()
		e.key = r.str()
		switch r.byte() {
		case 0:
		case 1:
			e.family = true
		default:
			r.err = errFold
		}
		fold.errs[errID(e)] = e
	}
	for _, m := range []map[string]int{fold.okFamily, fold.okPath} {
		for n := r.count(len(r.b)); n > 0 && r.err == nil; n-- {
			k := r.str()
			m[k] = seq()
		}
	}
	if r.err != nil {
		return nil, 0, 0, r.err
	}
	if len(r.b) != 0 {
		return nil, 0, 0, errFold
	}
	return fold, text, skel, nil
}

// decodedFold is a previous archive's recall fold, decoded (fold nil
// when there is none or it is malformed).
type decodedFold struct {
	fold       *toolFold
	text, skel uint64
}

func decodeFoldBytes(ck []byte) decodedFold {
	if len(ck) == 0 {
		return decodedFold{}
	}
	fold, text, skel, err := decodeFold(ck)
	if err != nil {
		return decodedFold{}
	}
	return decodedFold{fold: fold, text: text, skel: skel}
}

// ErrFoldMismatch: a State whose first tools' texts were elided
// (ModelSource.FoldedTexts) was given to an encoder whose previous
// archive's recall fold does not cover exactly those tools, unchanged.
// Nothing was written; the caller saves the State with its texts.
var ErrFoldMismatch = errors.New("archive: the previous archive's recall fold does not apply to a State without its texts")

// resumeFold returns the fold prev recorded when it applies to s (the
// same session directory and, for its first tools, the same digest),
// else nil; fd is the digest of the tools it checked (of none when it did
// not get that far), for the next checkpoint to go on from. When s's
// first s.Source.FoldedTexts tools have no texts, the fold must cover
// exactly them and their skeletons must match (else ErrFoldMismatch).
func resumeFold(prev decodedFold, s *State) (fold *toolFold, fd *foldDigest, err error) {
	fd = newFoldDigest()
	f := prev.fold
	elided := s.Source.FoldedTexts
	if f == nil || f.n > len(s.Tools) || f.dir != cleanDir(s.Meta.DirectoryPath) || (elided > 0 && f.n != elided) {
		if elided > 0 {
			return nil, fd, ErrFoldMismatch
		}
		return nil, fd, nil
	}
	if elided > 0 {
		// The importer vouches that these tools are read from the same
		// raw lines as those the fold was made from: their skeletons
		// must be the ones it recorded.
		fd.add(s.Tools[:f.n], false)
		if fd.skel != prev.skel {
			return nil, fd, ErrFoldMismatch
		}
		fd.text = prev.text
		return f, fd, nil
	}
	fd.add(s.Tools[:f.n], true)
	if fd.text != prev.text || fd.skel != prev.skel {
		return nil, fd, nil
	}
	return f, fd, nil
}

// RecallFoldTools returns how many of its first tools the archive's
// recall fold covers (TypeRecallFold; 0 when it has none that decodes):
// an importer restoring those tools from the same raw lines may leave
// their texts out (see ModelSource.FoldedTexts).
func (a *Archive) RecallFoldTools() int {
	b, ok := a.recallFold()
	if !ok {
		return 0
	}
	r := foldReader{b: b}
	if r.uint() != foldVersion {
		return 0
	}
	r.str()
	n := r.count(math.MaxInt32)
	if r.err != nil {
		return 0
	}
	return n
}

// recallFold reads the recall fold stored with the archive
// (TypeRecallFold); ok is false when there is none.
func (a *Archive) recallFold() ([]byte, bool) {
	idx := a.r.Find(TypeRecallFold)
	if len(idx) == 0 || a.meta.Derived == nil {
		return nil, false
	}
	b, err := a.r.ReadSegment(idx[0])
	if err != nil {
		return nil, false
	}
	return b, true
}
