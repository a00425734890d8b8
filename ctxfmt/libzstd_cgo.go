//go:build cgo

package ctxfmt

import (
	"runtime"
	"sync"

	ddzstd "github.com/DataDog/zstd"
)

// libzstdBuilt reports that this build links libzstd (cgo): LevelDefault
// and LevelMax are then compressed by libzstd itself, at level 3 and at
// level 22 (19 for inputs over maxUltraInput).
const libzstdBuilt = true

// maxUltraInput is the largest input LevelMax compresses at libzstd's
// strongest level, 22 ("ultra"). One-shot compression with a known input
// size shrinks the window to the input, so up to 8 MiB the frame's window
// stays within the 8 MiB the reference writer promises (docs/FORMAT.md)
// and a decoder needs no more memory than at level 19; the context itself
// peaks near 145 MB for an 8 MiB input (level 19: 95 MB). Above it, level
// 22 would ask for windows up to 128 MiB and contexts of several hundred
// MB, so larger inputs are compressed at level 19 (8 MiB window).
const maxUltraInput = 8 << 20

// maxLevelContexts caps how many LevelMax compressions run at once. A
// libzstd level-19 or -22 context sizes its window, hash and chain tables
// to the input: at level 19 about 18 MB for a 1 MiB segment, about 50 MB
// up to 4 MiB and about 85 MB above (8 MiB window, measured as peak RSS);
// level 22 about 145 MB for an 8 MiB input. Two of them bound the extra
// memory near 300 MB whatever GOMAXPROCS is, while still using two cores
// for this slow level (about 2.5 MB/s per context at 19, 1.5 MB/s at 22).
const maxLevelContexts = 2

// libzstdCtx is one reusable libzstd compression context with its output
// scratch buffer (CompressBound of the largest input seen).
type libzstdCtx struct {
	ctx ddzstd.Ctx
	buf []byte
}

// libzstdLevel hands out contexts for one libzstd level. Idle contexts sit
// in a sync.Pool, so the collector frees them (and, through DataDog/zstd's
// finalizer, their C memory) when they stay unused; sem bounds how many
// are busy at once.
type libzstdLevel struct {
	level int
	// ultra, when not 0, is the level used for inputs of at most
	// maxUltraInput bytes (level then compresses the larger ones).
	ultra int
	sem   chan struct{}
	pool  sync.Pool
}

func newLibzstdLevel(level, limit int) *libzstdLevel {
	return &libzstdLevel{
		level: level,
		sem:   make(chan struct{}, limit),
		pool:  sync.Pool{New: func() any { return &libzstdCtx{ctx: ddzstd.NewCtx()} }},
	}
}

// levelFor is the libzstd level for an input of n bytes.
func (lz *libzstdLevel) levelFor(n int) int {
	if lz.ultra != 0 && n <= maxUltraInput {
		return lz.ultra
	}
	return lz.level
}

var libzstdLevels = sync.OnceValue(func() map[Level]*libzstdLevel {
	procs := runtime.GOMAXPROCS(0)
	m := map[Level]*libzstdLevel{
		LevelDefault: newLibzstdLevel(3, procs),
		LevelMax:     newLibzstdLevel(19, min(procs, maxLevelContexts)),
	}
	m[LevelMax].ultra = 22
	return m
})

// acquireLibzstd takes a busy slot of level l's libzstd contexts, or
// returns nil when this build or l has no libzstd (the caller then uses
// klauspost); release gives the slot back.
func acquireLibzstd(l Level) (lz *libzstdLevel, release func()) {
	if pureGoZstd.Load() {
		return nil, nil
	}
	if lz = libzstdLevels()[l.norm()]; lz == nil {
		return nil, nil
	}
	lz.sem <- struct{}{}
	return lz, func() { <-lz.sem }
}

// libzstdCompress compresses src (not empty) into one Zstandard frame
// with libzstd when this build has it and l is a libzstd level; ok is
// false otherwise and the caller uses klauspost. The frame carries the
// content size and, added by withContentChecksum, the XXH64 content
// checksum. The result is a fresh slice of exactly the frame's size.
func libzstdCompress(l Level, src []byte, sum func() (uint64, bool)) (out []byte, ok bool, err error) {
	lz, release := acquireLibzstd(l)
	if lz == nil {
		return nil, false, nil
	}
	defer release()
	c := lz.pool.Get().(*libzstdCtx)
	defer lz.pool.Put(c)
	if bound := ddzstd.CompressBound(len(src)); cap(c.buf) < bound {
		c.buf = make([]byte, bound)
	}
	frame, err := c.ctx.CompressLevel(c.buf, src, lz.levelFor(len(src)))
	if err != nil {
		return nil, true, err
	}
	if sum != nil {
		if x, known := sum(); known {
			out, err = withChecksum(frame, x)
			return out, true, err
		}
	}
	out, err = withContentChecksum(frame, src)
	return out, true, err
}

// libzstdCompressDict is libzstdCompress against a raw-content dictionary
// (see compressDict): libzstd's one-shot ZSTD_compress_usingCDict, at the
// level libzstdCompress would use for the dictionary and src together (so
// the frame's window stays within 8 MiB up to level 22's limit).
func libzstdCompressDict(l Level, src, dict []byte) (out []byte, ok bool, err error) {
	lz, release := acquireLibzstd(l)
	if lz == nil {
		return nil, false, nil
	}
	defer release()
	bp, err := ddzstd.NewBulkProcessor(dict, lz.levelFor(len(src)+len(dict)))
	if err != nil {
		return nil, true, err
	}
	frame, err := bp.Compress(nil, src)
	// The processor's finalizer frees its libzstd dictionary, and
	// BulkProcessor.Compress does not keep the processor alive during its
	// C call: without this, a garbage collection during the compression
	// frees the dictionary under libzstd (SIGSEGV, TestDictCompressGC).
	runtime.KeepAlive(bp)
	if err != nil {
		return nil, true, err
	}
	out, err = withContentChecksum(frame, src)
	return out, true, err
}
