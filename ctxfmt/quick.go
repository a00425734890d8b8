package ctxfmt

// QuickLevel is the Zstandard level written fastest, for a writer in a
// hurry whose output is recompressed later: LevelFastest.
func QuickLevel() Level { return LevelFastest }
