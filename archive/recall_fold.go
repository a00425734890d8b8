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
// meaning does.
const foldVersion = 1

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

// foldDigest is an xxhash64 of what the fold reads from a history's
// first tools: every field it looks at, texts only where RecallTexts says
// a partial State keeps them. It is written tool by tool (add), so that
// the digest of a longer prefix goes on from a shorter one's.
type foldDigest struct {
	d   *xxhash.Digest
	buf []byte
	n   int // tools added
}

func newFoldDigest(dir string) *foldDigest {
	fd := &foldDigest{d: xxhash.New(), buf: make([]byte, 0, 4096)}
	fd.str(dir)
	return fd
}

func (fd *foldDigest) str(s string) {
	fd.buf = binary.AppendUvarint(fd.buf, uint64(len(s)))
	if len(s) > 512 {
		// Big texts go to the hash directly.
		_, _ = fd.d.Write(fd.buf)
		fd.buf = fd.buf[:0]
		_, _ = fd.d.WriteString(s)
		return
	}
	fd.buf = append(fd.buf, s...)
}

// add adds tools, the ones after those added before.
func (fd *foldDigest) add(tools []ToolExec) {
	fd.n += len(tools)
	for i := range tools {
		t := &tools[i]
		if t.Sidechain {
			fd.buf = append(fd.buf, 's')
			continue
		}
		fd.buf = append(fd.buf, 't')
		fd.str(t.Name)
		fd.str(t.Command)
		fd.str(t.Input)
		if _, out := RecallTexts(t); out {
			fd.buf = append(fd.buf, 'o')
			fd.str(t.Output)
		}
		fd.buf = append(fd.buf, bit(t.Success), bit(len(t.OutputSpans) > 0))
		fd.buf = binary.AppendVarint(fd.buf, t.Timestamp.Unix())
		fd.buf = binary.AppendUvarint(fd.buf, uint64(t.Timestamp.Nanosecond()))
		fd.buf = binary.AppendUvarint(fd.buf, uint64(len(t.RelatedFiles)))
		for _, f := range t.RelatedFiles {
			fd.str(f)
		}
		if len(fd.buf) >= 4096 {
			_, _ = fd.d.Write(fd.buf)
			fd.buf = fd.buf[:0]
		}
	}
}

// sum is the digest of the tools added so far (more can be added after).
func (fd *foldDigest) sum() uint64 {
	_, _ = fd.d.Write(fd.buf)
	fd.buf = fd.buf[:0]
	return fd.d.Sum64()
}

func bit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// appendCheckpoint appends the fold's state to dst, with digest, the
// foldDigest of the fold's first fold.n tools.
func (fold *toolFold) appendCheckpoint(dst []byte, digest uint64) []byte {
	w := foldWriter{b: dst}
	w.uint(foldVersion)
	w.str(fold.dir)
	w.uint(uint64(fold.n))
	w.b = binary.LittleEndian.AppendUint64(w.b, digest)

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

// decodeFold decodes a checkpoint (appendCheckpoint) and its digest.
// Hostile bytes give an error, never a panic or an allocation larger
// than the input allows.
func decodeFold(b []byte) (*toolFold, uint64, error) {
	r := foldReader{b: b}
	if r.uint() != foldVersion {
		return nil, 0, errFold
	}
	fold := newToolFold(r.str())
	fold.n = r.count(math.MaxInt32)
	if r.err != nil || len(r.b) < 8 {
		return nil, 0, errFold
	}
	digest := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
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
		return nil, 0, r.err
	}
	if len(r.b) != 0 {
		return nil, 0, errFold
	}
	return fold, digest, nil
}

// decodedFold is a previous archive's recall fold, decoded (fold nil
// when there is none or it is malformed).
type decodedFold struct {
	fold   *toolFold
	digest uint64
}

func decodeFoldBytes(ck []byte) decodedFold {
	if len(ck) == 0 {
		return decodedFold{}
	}
	fold, digest, err := decodeFold(ck)
	if err != nil {
		return decodedFold{}
	}
	return decodedFold{fold: fold, digest: digest}
}

// resumeFold returns the fold prev recorded when it applies to s (the
// same session directory and, for its first tools, the same digest),
// else nil; fd is the digest of the tools it checked (of none when it did
// not get that far), for the next checkpoint to go on from.
func resumeFold(prev decodedFold, s *State) (fold *toolFold, fd *foldDigest) {
	dir := cleanDir(s.Meta.DirectoryPath)
	fd = newFoldDigest(dir)
	f := prev.fold
	if f == nil || f.n > len(s.Tools) || f.dir != dir {
		return nil, fd
	}
	fd.add(s.Tools[:f.n])
	if fd.sum() != prev.digest {
		return nil, fd
	}
	return f, fd
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
