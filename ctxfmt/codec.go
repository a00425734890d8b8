package ctxfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// maxZstdWindow is the largest Zstandard window a reader accepts (128 MiB,
// as `zstd --long=27`). The writer uses klauspost's default 8 MiB window.
const maxZstdWindow = 1 << 27

// lz4MaxRatio bounds a valid LZ4 block's expansion: a block of n bytes
// never decodes to more than 255·n + 255 bytes... plus a little slack.
const lz4MaxRatio = 256

var (
	zstdEncOnce [LevelBest + 1]sync.Once
	zstdEnc     [LevelBest + 1]*zstd.Encoder
	zstdEncErr  [LevelBest + 1]error

	// zstdDecoders are the decoders DecodeAll runs on, one per
	// goroutine decoding at once.
	zstdDecoders sync.Pool

	lz4Fast = sync.Pool{New: func() any { return new(lz4.Compressor) }}
	lz4HC   = sync.Pool{New: func() any { return new(lz4.CompressorHC) }}
)

var zstdLevels = [LevelBest + 1]zstd.EncoderLevel{
	LevelFastest: zstd.SpeedFastest,
	LevelDefault: zstd.SpeedDefault,
	LevelBetter:  zstd.SpeedBetterCompression,
	LevelBest:    zstd.SpeedBestCompression,
}

// zstdWindow is the encoders' window. Each of an encoder's states keeps
// its history for the life of the process: klauspost's default 8 MiB
// window held 32 MiB on two cores, and 2 MiB holds 8 MiB for archives
// 0.4 % larger (a 100 MB transcript's 4 MiB raw segments at LevelBetter).
// With WithLowerEncoderMem the history is the window and one block
// instead of twice the window: 4 MiB less on two cores, the same bytes
// (checked on a 100 MB transcript's segments at every level) for no
// measurable CPU.
const zstdWindow = 2 << 20

// zstdEncoder returns the shared klauspost encoder of a level. EncodeAll
// is safe for concurrent use; the encoder keeps one internal state, which
// concurrent calls take in turn: a save's memory must not grow with the
// number of cores (a state of LevelBetter holds 6 MiB, LevelBest's
// 32 MiB), and a save compresses its raw segments on one core while it
// builds the model on another. LevelMax uses LevelBest's encoder.
func zstdEncoder(l Level) (*zstd.Encoder, error) {
	l = min(l.norm(), LevelBest)
	zstdEncOnce[l].Do(func() {
		zstdEnc[l], zstdEncErr[l] = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstdLevels[l]),
			zstd.WithWindowSize(zstdWindow),
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(true),
			zstd.WithZeroFrames(true),
			zstd.WithLowerEncoderMem(true),
		)
	})
	return zstdEnc[l], zstdEncErr[l]
}

// compress encodes src with codec c at level l. It returns CodecNone and
// src itself when compression does not make it smaller.
func compress(c Codec, l Level, src []byte) (Codec, []byte, error) {
	if len(src) == 0 || c == CodecNone {
		return CodecNone, src, nil
	}
	var out []byte
	switch c {
	case CodecLZ4:
		dst := make([]byte, lz4.CompressBlockBound(len(src)))
		var n int
		var err error
		switch l.norm() {
		case LevelFastest, LevelDefault:
			cp := lz4Fast.Get().(*lz4.Compressor)
			n, err = cp.CompressBlock(src, dst)
			lz4Fast.Put(cp)
		default:
			cp := lz4HC.Get().(*lz4.CompressorHC)
			cp.Level = lz4.Level4
			if l.norm() == LevelBest {
				cp.Level = lz4.Level9
			}
			n, err = cp.CompressBlock(src, dst)
			lz4HC.Put(cp)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("ctxfmt: lz4: %w", err)
		}
		if n == 0 { // incompressible
			return CodecNone, src, nil
		}
		out = dst[:n]
	case CodecZstd:
		enc, err := zstdEncoder(l)
		if err != nil {
			return 0, nil, fmt.Errorf("ctxfmt: zstd encoder: %w", err)
		}
		out = enc.EncodeAll(src, make([]byte, 0, len(src)/8+64))
		if cap(out) > 2*len(out)+4096 {
			// A transcript compresses to a tenth of its size (the
			// guess above; less compressible data grows it): a segment
			// waiting to be written (all the raw ones until the
			// writer's Close) keeps only its bytes, not the guess.
			out = slices.Clone(out)
		}
	default:
		return 0, nil, fmt.Errorf("ctxfmt: cannot write codec %s", c)
	}
	if len(out) >= len(src) {
		return CodecNone, src, nil
	}
	return c, out, nil
}

// decompressDict decodes a CodecZstdDict segment's stored plaintext b
// into exactly rawLen bytes; dictOf returns the decoded payload of the
// dictionary segment b names (its index, read here). Only pre-release
// archives hold such segments: they are decoded the careful way (see
// zstdStream) whatever their ratio.
func decompressDict(b []byte, rawLen int, dictOf func(j uint64) ([]byte, error)) ([]byte, error) {
	j, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, errors.New("no dictionary segment index")
	}
	dict, err := dictOf(j)
	if err != nil {
		return nil, err
	}
	return zstdStream(b[n:], rawLen, zstd.WithDecoderDictRaw(0, dict))
}

// decodeAllExact decodes src into exactly rawLen bytes, with a decoder
// made WithDecodeAllCapLimit, so it writes at most cap(dst) bytes (set to
// the segment's raw length: a frame can never make it allocate more than
// the index promised); one spare byte of capacity lets an over-long frame
// show itself. A klauspost decoder keeps a reference to the last output
// it wrote until it decodes its next frame: each is given an empty one
// before it goes back to zstdDecoders, so that an idle decoder does not
// keep a segment its caller dropped alive (the earlier archive's segments
// an incremental save reads were, beside the save's peak).
func decodeAllExact(src []byte, rawLen int) ([]byte, error) {
	dec, _ := zstdDecoders.Get().(*zstd.Decoder)
	if dec == nil {
		var err error
		dec, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecodeAllCapLimit(true),
		)
		if err != nil {
			return nil, fmt.Errorf("zstd decoder: %w", err)
		}
	}
	defer func() {
		_, _ = dec.DecodeAll(nil, nil)
		zstdDecoders.Put(dec)
	}()
	dst, err := dec.DecodeAll(src, make([]byte, 0, rawLen+1))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if len(dst) != rawLen {
		return nil, errLength
	}
	return dst, nil
}

// Above this compression ratio a zstd segment's claimed raw length is not
// trusted for an allocation: the frame is first decoded into nothing, and
// only when it really produces the claimed length is the output allocated
// (exactly) and the frame decoded again into it. A tiny hostile segment
// that claims a huge raw length then costs a decoder window, never the
// claim; a real expansion costs its output once (never a growing buffer's
// copies) and twice the decoding time.
const (
	zstdFastRatio = 64
	zstdFastSlack = 1 << 20
)

// zstdStream decodes src, whose claimed ratio is suspicious, into exactly
// rawLen bytes (see zstdFastRatio).
func zstdStream(src []byte, rawLen int, extra ...zstd.DOption) ([]byte, error) {
	if err := zstdCheck(src, rawLen, extra...); err != nil {
		return nil, err
	}
	d, err := zstdStreamDecoder(src, rawLen, extra...)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	out := make([]byte, rawLen+1)
	n, err := io.ReadFull(d, out)
	if err != io.ErrUnexpectedEOF && err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if n != rawLen {
		return nil, errLength
	}
	return out[:rawLen:rawLen], nil
}

// zstdCheck decodes src into nothing and checks that it gives exactly
// rawLen bytes: a decoder window's memory, whatever rawLen is.
func zstdCheck(src []byte, rawLen int, extra ...zstd.DOption) error {
	d, err := zstdStreamDecoder(src, rawLen, extra...)
	if err != nil {
		return err
	}
	defer d.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(d, int64(rawLen)+1))
	if err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	if n != int64(rawLen) {
		return errLength
	}
	return nil
}

func zstdStreamDecoder(src []byte, rawLen int, extra ...zstd.DOption) (*zstd.Decoder, error) {
	d, err := zstd.NewReader(bytes.NewReader(src), append([]zstd.DOption{
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow),
		zstd.WithDecoderMaxMemory(uint64(max(rawLen, zstd.MinWindowSize))),
	}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return d, nil
}

// lz4BlockLen returns the length an LZ4 block decodes to, walking its
// sequences without writing anything; ok is false when the block is
// malformed (a length runs past the end, an offset of zero). It lets a
// claimed raw length be checked before it is allocated.
func lz4BlockLen(src []byte) (n int, ok bool) {
	i := 0
	ext := func(l int) (int, bool) {
		for {
			if i >= len(src) {
				return 0, false
			}
			c := src[i]
			i++
			l += int(c)
			if l > 1<<40 {
				return 0, false
			}
			if c != 255 {
				return l, true
			}
		}
	}
	for i < len(src) {
		tok := src[i]
		i++
		lit := int(tok >> 4)
		if lit == 15 {
			if lit, ok = ext(lit); !ok {
				return 0, false
			}
		}
		if lit > len(src)-i {
			return 0, false
		}
		i += lit
		n += lit
		if i == len(src) { // the last sequence has literals only
			return n, true
		}
		if len(src)-i < 2 {
			return 0, false
		}
		off := int(src[i]) | int(src[i+1])<<8
		i += 2
		if off == 0 || off > n {
			return 0, false
		}
		ml := int(tok & 15)
		if ml == 15 {
			if ml, ok = ext(ml); !ok {
				return 0, false
			}
		}
		n += ml + 4
		if n > 1<<40 {
			return 0, false
		}
	}
	return n, true
}

var errLength = errors.New("decoded length differs from the index")

// decompress decodes src (codec c) into exactly rawLen bytes. rawLen has
// already been checked against the caller's cap.
func decompress(c Codec, src []byte, rawLen int) ([]byte, error) {
	switch c {
	case CodecNone:
		if len(src) != rawLen {
			return nil, errLength
		}
		return src, nil
	case CodecLZ4:
		if rawLen > lz4MaxRatio*len(src)+64 {
			return nil, fmt.Errorf("raw length %d impossible for a %d-byte LZ4 block", rawLen, len(src))
		}
		// The claim is checked against what the block's sequences add up
		// to before it is allocated.
		if n, ok := lz4BlockLen(src); !ok || n != rawLen {
			if !ok {
				return nil, errors.New("lz4: malformed block")
			}
			return nil, errLength
		}
		dst := make([]byte, rawLen)
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
		if n != rawLen {
			return nil, errLength
		}
		return dst, nil
	case CodecZstd:
		if rawLen > zstdFastRatio*len(src)+zstdFastSlack {
			return zstdStream(src, rawLen)
		}
		return decodeAllExact(src, rawLen)
	}
	return nil, fmt.Errorf("unknown codec %s", c)
}
