//go:build cgo

package ctxfmt

import (
	"runtime"
	"sync"

	ddzstd "github.com/DataDog/zstd"
)

// libzstdBuilt reports that this build links libzstd (cgo): LevelDefault
// and LevelMax are then compressed by libzstd itself, at levels 3 and 19.
const libzstdBuilt = true

// maxLevelContexts caps how many level-19 compressions run at once. A
// libzstd level-19 context sizes its window, hash and chain tables to the
// input: about 18 MB for a 1 MiB segment, about 50 MB up to 4 MiB and
// about 85 MB above (8 MiB window, measured as peak RSS), so two of them
// bound the extra memory near 170 MB whatever GOMAXPROCS is, while still
// using two cores for this slow level (about 2.5 MB/s per context).
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

var libzstdLevels = sync.OnceValue(func() map[Level]*libzstdLevel {
	procs := runtime.GOMAXPROCS(0)
	return map[Level]*libzstdLevel{
		LevelDefault: newLibzstdLevel(3, procs),
		LevelMax:     newLibzstdLevel(19, min(procs, maxLevelContexts)),
	}
})

// libzstdCompress compresses src (not empty) into one Zstandard frame
// with libzstd when this build has it and l is a libzstd level; ok is
// false otherwise and the caller uses klauspost. The frame carries the
// content size and, added by withContentChecksum, the XXH64 content
// checksum. The result is a fresh slice of exactly the frame's size.
func libzstdCompress(l Level, src []byte) (out []byte, ok bool, err error) {
	if pureGoZstd.Load() {
		return nil, false, nil
	}
	lz := libzstdLevels()[l.norm()]
	if lz == nil {
		return nil, false, nil
	}
	lz.sem <- struct{}{}
	defer func() { <-lz.sem }()
	c := lz.pool.Get().(*libzstdCtx)
	defer lz.pool.Put(c)
	if bound := ddzstd.CompressBound(len(src)); cap(c.buf) < bound {
		c.buf = make([]byte, bound)
	}
	frame, err := c.ctx.CompressLevel(c.buf, src, lz.level)
	if err != nil {
		return nil, true, err
	}
	out, err = withContentChecksum(frame, src)
	return out, true, err
}
