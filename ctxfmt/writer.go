package ctxfmt

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// WriterOptions are a Writer's defaults. The zero value writes an
// unencrypted file with uncompressed segments.
type WriterOptions struct {
	Codec       Codec       // default codec of Add
	Level       Level       // default level of Add (zero = LevelDefault)
	Concurrency int         // segments compressed at once; 0 = GOMAXPROCS
	Encryption  *Encryption // nil = plain file
}

// SegmentOptions control one segment written with AddWith.
type SegmentOptions struct {
	// UseDefaults takes the codec and level from WriterOptions and ignores
	// Codec and Level below.
	UseDefaults bool
	Codec       Codec
	Level       Level
	// Optional clears FlagRequired: a reader that does not know the
	// segment's type (or codec) may skip it instead of refusing the file.
	Optional bool
	// Dict, when not 0 and the codec is CodecZstd, names the type of the
	// segment whose payload this one is also compressed against (the
	// file's first segment of that type, added with Add or AddWith and
	// itself without Dict): at Close the payload is compressed both ways
	// and stored as CodecZstdDict when that is smaller. Reading the
	// segment then decodes the dictionary segment too. Without such a
	// segment (or with an empty one, or one over MaxDictLen) the payload
	// is compressed as without Dict.
	Dict SegmentType
}

// Writer assembles a .ctx file. Segments are kept in memory until Close,
// which compresses them concurrently and writes the whole file. For the
// same segments and options the bytes are always the same, except that an
// encrypted file gets a fresh random salt (and so different ciphertext).
//
// The payload slices given to Add and AddWith are retained, not copied:
// they must not be modified until Close returns. A Writer is not safe for
// concurrent use.
type Writer struct {
	w      io.Writer
	opts   WriterOptions
	segs   []*pending
	closed bool
}

type pending struct {
	typ   SegmentType
	flags SegmentFlags
	codec Codec // requested codec (Add) or the stored codec (CopyRaw)
	level Level
	raw   []byte // payload to compress (Add)
	// dict is SegmentOptions.Dict or PrepareDict's type; for a prepared
	// segment, dictSum and dictLen identify the payload it was compressed
	// against (checked at Close).
	dict    SegmentType
	dictSum uint64
	dictLen int
	// Set by CopyRaw, or by compression at Close:
	ready    bool
	comp     []byte // compressed bytes, before encryption
	rawLen   uint64
	stored   []byte // final stored bytes
	checksum uint64
}

// NewWriter returns a Writer that writes one complete file to w on Close.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	if !opts.Codec.writable() {
		return nil, fmt.Errorf("ctxfmt: cannot write codec %s as a default", opts.Codec)
	}
	if opts.Concurrency < 0 {
		return nil, errors.New("ctxfmt: negative concurrency")
	}
	if e := opts.Encryption; e != nil {
		if (e.Passphrase == nil) == (e.Key == nil) {
			return nil, errors.New("ctxfmt: encryption needs exactly one of Passphrase and Key")
		}
		if e.Key != nil && len(e.Key) != 32 {
			return nil, errKeyLen
		}
		if e.Passphrase != nil {
			if len(e.Passphrase) == 0 {
				return nil, errors.New("ctxfmt: empty passphrase")
			}
			if err := e.Argon2.withDefaults().check(); err != nil {
				return nil, fmt.Errorf("ctxfmt: %w", err)
			}
		}
	}
	return &Writer{w: w, opts: opts}, nil
}

// Add appends a required segment compressed with the writer's defaults.
func (w *Writer) Add(t SegmentType, payload []byte) error {
	return w.AddWith(t, payload, SegmentOptions{UseDefaults: true})
}

// AddWith appends a segment with its own codec, level and flags.
func (w *Writer) AddWith(t SegmentType, payload []byte, o SegmentOptions) error {
	if err := w.checkAdd(t); err != nil {
		return err
	}
	c, l := o.Codec, o.Level
	if o.UseDefaults {
		c, l = w.opts.Codec, w.opts.Level
	}
	if !c.writable() {
		return fmt.Errorf("ctxfmt: cannot write codec %s (a dictionary is asked for with SegmentOptions.Dict)", c)
	}
	flags := FlagRequired
	if o.Optional {
		flags = 0
	}
	if o.Dict != 0 && (o.Dict == t || c != CodecZstd) {
		o.Dict = 0 // a segment is not its own dictionary; only zstd has one
	}
	w.segs = append(w.segs, &pending{typ: t, flags: flags, codec: c, level: l, raw: payload, rawLen: uint64(len(payload)), dict: o.Dict})
	return nil
}

func (w *Writer) checkAdd(t SegmentType) error {
	switch {
	case w.closed:
		return errors.New("ctxfmt: writer is closed")
	case t == 0:
		return errors.New("ctxfmt: segment type 0 is invalid")
	case t == TypeCryptoParams:
		return errors.New("ctxfmt: the crypto-params segment is written by the writer itself")
	case uint64(len(w.segs))+2 > maxSegmentsCap:
		return errors.New("ctxfmt: too many segments")
	}
	return nil
}

// CopyRaw appends segment i of r without recompressing it: the stored
// bytes are checked against their checksum (and, if r is encrypted,
// authenticated and decrypted) and then stored as they are, or
// re-encrypted under this writer's key. Copying from an encrypted file
// into a plain one is refused, as is copying a crypto-params segment. The
// bytes are read immediately; r may be closed afterwards. It is
// r.ReadStored followed by AddStored.
func (w *Writer) CopyRaw(r *Reader, i int) error {
	if i >= 0 && i < len(r.ents) {
		// Refused before anything is read.
		if err := w.checkAdd(r.ents[i].typ); err != nil {
			return fmt.Errorf("%w (CopyRaw of segment %d)", err, i)
		}
		if r.hdr.Encrypted() && w.opts.Encryption == nil {
			return fmt.Errorf("ctxfmt: CopyRaw: segment %d of an encrypted file cannot be copied into an unencrypted one", i)
		}
	}
	s, err := r.ReadStored(i)
	if err != nil {
		return err
	}
	return w.AddStored(s)
}

// StoredSegment is a segment's stored bytes as Reader.ReadStored read and
// checked them, to be appended to a Writer by AddStored (CopyRaw in two
// steps, so that the reading can be done ahead).
type StoredSegment struct {
	index     int
	typ       SegmentType
	flags     SegmentFlags
	codec     Codec
	rawLen    uint64
	comp      []byte // compressed bytes, decrypted
	checksum  uint64 // of the stored bytes, when not encrypted
	encrypted bool   // the source file is encrypted
}

// ReadStored reads segment i's stored bytes and checks them against their
// checksum (authenticating and decrypting them when the file is
// encrypted), for Writer.AddStored.
func (r *Reader) ReadStored(i int) (*StoredSegment, error) {
	if i < 0 || i >= len(r.ents) {
		return nil, fmt.Errorf("ctxfmt: CopyRaw: no segment %d (file has %d)", i, len(r.ents))
	}
	e := r.ents[i]
	if e.codec == CodecZstdDict {
		return nil, fmt.Errorf("ctxfmt: CopyRaw: segment %d is compressed against another segment of its file (codec %s) and cannot be copied alone", i, e.codec)
	}
	comp, err := r.storedPlain(i)
	if err != nil {
		return nil, err
	}
	return &StoredSegment{index: i, typ: e.typ, flags: e.flags &^ FlagEncrypted, codec: e.codec, rawLen: e.rawLen,
		comp: comp, checksum: e.checksum, encrypted: r.hdr.Encrypted()}, nil
}

// AddStored appends a segment ReadStored read, without recompressing it
// (see CopyRaw).
func (w *Writer) AddStored(s *StoredSegment) error {
	if err := w.checkAdd(s.typ); err != nil {
		return fmt.Errorf("%w (CopyRaw of segment %d)", err, s.index)
	}
	if s.encrypted && w.opts.Encryption == nil {
		return fmt.Errorf("ctxfmt: CopyRaw: segment %d of an encrypted file cannot be copied into an unencrypted one", s.index)
	}
	p := &pending{
		typ:    s.typ,
		flags:  s.flags,
		codec:  s.codec,
		ready:  true,
		comp:   s.comp,
		rawLen: s.rawLen,
	}
	if !s.encrypted && w.opts.Encryption == nil {
		p.stored, p.checksum = s.comp, s.checksum
	}
	w.segs = append(w.segs, p)
	return nil
}

// Close compresses (and encrypts) every segment and writes the file. It
// does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("ctxfmt: writer is closed")
	}
	w.closed = true
	segs := w.segs
	var aead cipher.AEAD
	if w.opts.Encryption != nil {
		cp, a, err := newCryptoParams(w.opts.Encryption)
		if err != nil {
			return err
		}
		aead = a
		b := cp.marshal()
		segs = append([]*pending{{
			typ: TypeCryptoParams, flags: FlagRequired, codec: CodecNone,
			ready: true, comp: b, rawLen: uint64(len(b)), stored: b, checksum: xxhash.Sum64(b),
		}}, segs...)
	}

	dictAt, err := resolveDicts(segs)
	if err != nil {
		return err
	}

	isDict := make([]bool, len(segs))
	for _, j := range dictAt {
		if j >= 0 {
			isDict[j] = true
		}
	}

	// Phase 1: compress.
	if err := w.parallel(len(segs), func(i int) error {
		p := segs[i]
		if p.ready {
			if p.codec == CodecZstdDict {
				// Prepared against a dictionary: prefix its index.
				p.comp = append(binary.AppendUvarint(make([]byte, 0, len(p.comp)+binary.MaxVarintLen64), uint64(dictAt[i])), p.comp...)
			}
			return nil
		}
		c, out, err := compress(p.codec, p.level, p.raw)
		if err != nil {
			return fmt.Errorf("%s: %w", segRegion(i, p.typ), err)
		}
		if j := dictAt[i]; j >= 0 && p.codec == CodecZstd && len(p.raw) > 0 {
			d, err := compressDict(p.level, p.raw, segs[j].raw)
			if err != nil {
				return fmt.Errorf("%s: %w", segRegion(i, p.typ), err)
			}
			if hdr := binary.AppendUvarint(nil, uint64(j)); len(hdr)+len(d) < len(out) {
				c, out = CodecZstdDict, append(hdr, d...)
			}
		}
		p.codec, p.comp, p.ready = c, out, true
		if !isDict[i] {
			p.raw = nil // compressed: the payload is not needed any more
		}
		return nil
	}); err != nil {
		return err
	}

	// Layout: every length is known now (GCM adds TagSize bytes).
	n := uint64(len(segs))
	entries := make([]entry, n)
	off := dataStart(n)
	for i, p := range segs {
		e := &entries[i]
		e.offset, e.typ, e.flags, e.codec, e.rawLen = off, p.typ, p.flags, p.codec, p.rawLen
		e.storedLen = uint64(len(p.comp))
		if aead != nil && i > 0 {
			e.flags |= FlagEncrypted
			e.storedLen += TagSize
		}
		off += e.storedLen
	}
	hdr := Header{Version: Version, SegmentCount: uint32(n), TotalSize: off + FooterSize}
	if aead != nil {
		hdr.Flags |= HeaderEncrypted
	}
	hb := hdr.marshal()
	index := make([]byte, HeaderSize+n*EntrySize+IndexSumSize)
	copy(index, hb[:])

	// Phase 2: encrypt and checksum.
	if err := w.parallel(len(segs), func(i int) error {
		p, e := segs[i], &entries[i]
		if e.flags&FlagEncrypted != 0 {
			eb := index[HeaderSize+uint64(i)*EntrySize:][:EntrySize]
			e.marshal(eb) // checksum still zero; the AAD skips it
			p.stored = aead.Seal(make([]byte, 0, e.storedLen), segmentNonce(i), p.comp, segmentAAD(hb[:], eb, i))
			p.checksum = xxhash.Sum64(p.stored)
		} else if p.stored == nil {
			p.stored, p.checksum = p.comp, xxhash.Sum64(p.comp)
		}
		e.checksum = p.checksum
		return nil
	}); err != nil {
		return err
	}
	for i := range entries {
		entries[i].marshal(index[HeaderSize+uint64(i)*EntrySize:])
	}
	isum := HeaderSize + n*EntrySize
	le.PutUint64(index[isum:], xxhash.Sum64(index[:isum]))

	d := xxhash.New()
	out := io.MultiWriter(w.w, d)
	if _, err := out.Write(index); err != nil {
		return err
	}
	w.segs = nil
	for i, p := range segs {
		if _, err := out.Write(p.stored); err != nil {
			return err
		}
		// Written: the bytes are the caller's buffer's now (an archive
		// built in memory then holds one copy, not two).
		segs[i] = nil
	}
	var foot [FooterSize]byte
	le.PutUint64(foot[:], d.Sum64())
	copy(foot[8:], TrailerMagic[:])
	_, err = w.w.Write(foot[:])
	return err
}

// resolveDicts returns, for every segment, the index of the segment whose
// payload it is compressed against (-1: none), checking that each such
// segment carries its payload and has no dictionary itself, and that a
// prepared segment was compressed against that very payload (and that its
// dictionary segment exists; a segment added with SegmentOptions.Dict
// whose dictionary segment is missing, empty or over MaxDictLen is
// compressed without one).
func resolveDicts(segs []*pending) ([]int, error) {
	at := make([]int, len(segs))
	for i, p := range segs {
		at[i] = -1
		if p.dict == 0 || (p.ready && p.codec != CodecZstdDict) {
			continue
		}
		j := slices.IndexFunc(segs, func(q *pending) bool { return q.typ == p.dict })
		switch {
		case j < 0 && !p.ready:
			continue // no such segment: plain compression
		case j < 0:
			return nil, fmt.Errorf("ctxfmt: %s: no %s segment to use as its dictionary", segRegion(i, p.typ), p.dict)
		case segs[j].ready || segs[j].dict != 0:
			return nil, fmt.Errorf("ctxfmt: %s: its dictionary %s must be added with Add or AddWith, without a dictionary of its own", segRegion(i, p.typ), segRegion(j, p.dict))
		case p.ready && (len(segs[j].raw) != p.dictLen || xxhash.Sum64(segs[j].raw) != p.dictSum):
			return nil, fmt.Errorf("ctxfmt: %s: prepared against another payload than %s's", segRegion(i, p.typ), segRegion(j, p.dict))
		case !p.ready && (len(segs[j].raw) == 0 || len(segs[j].raw) > MaxDictLen):
			continue // an empty or too large dictionary: plain compression
		}
		at[i] = j
	}
	return at, nil
}

// parallel runs f(0..n-1) on up to Concurrency goroutines and returns the
// error of the lowest failing index (so failures are deterministic too).
func (w *Writer) parallel(n int, f func(i int) error) error {
	workers := w.opts.Concurrency
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	errs := make([]error, n)
	if workers <= 1 {
		for i := range n {
			errs[i] = f(i)
		}
	} else {
		next := make(chan int)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := range next {
					errs[i] = f(i)
				}
			})
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	return firstErr(errs)
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Prepared is a payload compressed ahead of time by Prepare, to be added
// to a Writer with AddPrepared. It lets a caller compress large segments
// while it still computes the ones that come before them in the file.
type Prepared struct {
	codec  Codec
	comp   []byte
	rawLen uint64
	// PrepareDict: the dictionary segment's type and payload identity.
	dict    SegmentType
	dictSum uint64
	dictLen int
}

// Prepare compresses payload with codec c at level l, exactly as Add would
// at Close (same bytes). It is safe for concurrent use. payload is
// retained when it is stored uncompressed.
func Prepare(c Codec, l Level, payload []byte) (*Prepared, error) {
	if !c.writable() {
		return nil, fmt.Errorf("ctxfmt: cannot write codec %s (see PrepareDict)", c)
	}
	codec, out, err := compress(c, l, payload)
	if err != nil {
		return nil, err
	}
	return &Prepared{codec: codec, comp: out, rawLen: uint64(len(payload))}, nil
}

// PrepareDict compresses payload with Zstandard at level l against dict,
// the payload of the file's first segment of type dictType (which must be
// added with Add or AddWith, without a dictionary of its own; Close checks
// that it is the same payload). The segment is stored as CodecZstdDict,
// or as Prepare would store it when dict is empty or longer than
// MaxDictLen, and as CodecNone when
// compression does not make it smaller. Unlike SegmentOptions.Dict it
// does not also try without the dictionary: it is meant for large
// payloads, where a dictionary of model text never costs more than a few
// bytes. It is safe for concurrent use.
func PrepareDict(l Level, payload []byte, dictType SegmentType, dict []byte) (*Prepared, error) {
	if dictType == 0 {
		return nil, errors.New("ctxfmt: PrepareDict: no dictionary segment type")
	}
	if len(dict) == 0 || len(dict) > MaxDictLen || len(payload) == 0 {
		return Prepare(CodecZstd, l, payload)
	}
	out, err := compressDict(l, payload, dict)
	if err != nil {
		return nil, err
	}
	if len(out)+binary.MaxVarintLen64 >= len(payload) {
		return &Prepared{codec: CodecNone, comp: payload, rawLen: uint64(len(payload))}, nil
	}
	return &Prepared{codec: CodecZstdDict, comp: out, rawLen: uint64(len(payload)), dict: dictType, dictSum: xxhash.Sum64(dict), dictLen: len(dict)}, nil
}

// StoredLen is the prepared segment's compressed size (before any
// encryption; without the dictionary's index a CodecZstdDict segment
// starts with).
func (p *Prepared) StoredLen() int { return len(p.comp) }

// AddPrepared appends a required segment whose payload was compressed by
// Prepare; the file holds the same bytes as if the payload had been given
// to AddWith with the same codec and level.
func (w *Writer) AddPrepared(t SegmentType, p *Prepared) error {
	return w.AddPreparedWith(t, p, SegmentOptions{})
}

// AddPreparedWith is AddPrepared for a segment that is optional when
// o.Optional (see SegmentOptions); o's other fields are ignored: the codec
// and level are those the payload was prepared with.
func (w *Writer) AddPreparedWith(t SegmentType, p *Prepared, o SegmentOptions) error {
	if p == nil {
		return errors.New("ctxfmt: AddPrepared: nil segment")
	}
	if err := w.checkAdd(t); err != nil {
		return err
	}
	flags := FlagRequired
	if o.Optional {
		flags = 0
	}
	w.segs = append(w.segs, &pending{typ: t, flags: flags, codec: p.codec, ready: true, comp: p.comp, rawLen: p.rawLen, dict: p.dict, dictSum: p.dictSum, dictLen: p.dictLen})
	return nil
}
