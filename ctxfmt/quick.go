package ctxfmt

// QuickLevel is the Zstandard level this build writes fastest, for a
// writer in a hurry whose output is recompressed later: LevelDefault in a
// build that links libzstd (cgo), whose level 3 compresses a Claude Code
// transcript about twice as fast as the pure-Go encoder's fastest level,
// and smaller; LevelFastest otherwise.
func QuickLevel() Level {
	if libzstdBuilt && !pureGoZstd.Load() {
		return LevelDefault
	}
	return LevelFastest
}
