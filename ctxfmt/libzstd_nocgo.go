//go:build !cgo

package ctxfmt

// libzstdBuilt reports that this build has no libzstd (no cgo): every
// Zstandard level is compressed by klauspost/compress, LevelMax as
// LevelBest.
const libzstdBuilt = false

// libzstdCompress never compresses in a build without cgo (ok is false).
func libzstdCompress(Level, []byte, func() (uint64, bool)) (out []byte, ok bool, err error) {
	return nil, false, nil
}

// libzstdCompressDict never compresses in a build without cgo (ok is false).
func libzstdCompressDict(Level, []byte, []byte) (out []byte, ok bool, err error) {
	return nil, false, nil
}
