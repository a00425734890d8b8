package ctxfmt

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"runtime"
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
	// Set by CopyRaw or AddPrepared, or by compression at Close:
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
		if err := e.check(); err != nil {
			return nil, err
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
		return fmt.Errorf("ctxfmt: cannot write codec %s", c)
	}
	flags := FlagRequired
	if o.Optional {
		flags = 0
	}
	w.segs = append(w.segs, &pending{typ: t, flags: flags, codec: c, level: l, raw: payload, rawLen: uint64(len(payload))})
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
// into a plain one is refused, as is copying a crypto-params segment or a
// segment compressed against another one (codec zstd-dict). The bytes are
// read immediately; r may be closed afterwards.
func (w *Writer) CopyRaw(r *Reader, i int) error {
	if i < 0 || i >= len(r.ents) {
		return fmt.Errorf("ctxfmt: CopyRaw: no segment %d (file has %d)", i, len(r.ents))
	}
	e := r.ents[i]
	// Refused before anything is read.
	if err := w.checkAdd(e.typ); err != nil {
		return fmt.Errorf("%w (CopyRaw of segment %d)", err, i)
	}
	if r.hdr.Encrypted() && w.opts.Encryption == nil {
		return fmt.Errorf("ctxfmt: CopyRaw: segment %d of an encrypted file cannot be copied into an unencrypted one", i)
	}
	if e.codec == CodecZstdDict {
		return fmt.Errorf("ctxfmt: CopyRaw: segment %d is compressed against another segment of its file (codec %s) and cannot be copied alone", i, e.codec)
	}
	comp, err := r.storedPlain(i)
	if err != nil {
		return err
	}
	p := &pending{typ: e.typ, flags: e.flags &^ FlagEncrypted, codec: e.codec, ready: true, comp: comp, rawLen: e.rawLen}
	if !r.hdr.Encrypted() && w.opts.Encryption == nil {
		p.stored, p.checksum = comp, e.checksum
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

	// Phase 1: compress.
	if err := w.parallel(len(segs), func(i int) error {
		p := segs[i]
		if p.ready {
			return nil
		}
		c, out, err := compress(p.codec, p.level, p.raw)
		if err != nil {
			return fmt.Errorf("%s: %w", segRegion(i, p.typ), err)
		}
		p.codec, p.comp, p.ready = c, out, true
		p.raw = nil // compressed: the payload is not needed any more
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
	_, err := w.w.Write(foot[:])
	return err
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
}

// Prepare compresses payload with codec c at level l, exactly as Add would
// at Close (same bytes). It is safe for concurrent use. payload is
// retained when it is stored uncompressed.
func Prepare(c Codec, l Level, payload []byte) (*Prepared, error) {
	if !c.writable() {
		return nil, fmt.Errorf("ctxfmt: cannot write codec %s", c)
	}
	codec, out, err := compress(c, l, payload)
	if err != nil {
		return nil, err
	}
	return &Prepared{codec: codec, comp: out, rawLen: uint64(len(payload))}, nil
}

// AddPrepared appends a required segment whose payload was compressed by
// Prepare; the file holds the same bytes as if the payload had been given
// to AddWith with the same codec and level.
func (w *Writer) AddPrepared(t SegmentType, p *Prepared) error {
	if p == nil {
		return errors.New("ctxfmt: AddPrepared: nil segment")
	}
	if err := w.checkAdd(t); err != nil {
		return err
	}
	w.segs = append(w.segs, &pending{typ: t, flags: FlagRequired, codec: p.codec, ready: true, comp: p.comp, rawLen: p.rawLen})
	return nil
}
