// Package ctxfmt reads and writes the segmented .ctx container, format
// version 1 (specified in docs/FORMAT.md): a checksummed 32-byte header, a
// fixed-width segment index with its own checksum, independently
// compressed (none, LZ4 block, Zstandard) and optionally AES-256-GCM
// encrypted segments, and a footer checksum over every byte before it.
//
// It knows nothing of what the segments hold; the archive layer maps the
// context model onto segment types (SegmentType).
//
// Writing: NewWriter, Add/AddWith/CopyRaw, Close. Output is deterministic
// for the same input and build, except for an encrypted file's random salt.
//
// Compression levels (Level): fastest, default, better, best, max.
// Compression and decompression are pure Go (klauspost/compress and
// pierrec/lz4), so the bytes written do not depend on the build or on a C
// compiler. The Zstandard frames are standard: files whose frames another
// encoder wrote (libzstd, in releases built with cgo) read the same.
//
// Reading: NewReader or OpenFile read only the header and the index;
// ReadSegment checks, decrypts and decodes one segment on demand. Verify
// checks a whole file (cheap: structure and footer; deep: every segment).
//
// Every problem with file contents is a *FormatError naming the region
// ("header", "index entry 3", "segment 3 (conversation)", "footer") and
// wrapping a sentinel (ErrBadMagic, ErrChecksum, ErrTruncated,
// ErrUnsupported, ErrCorrupt, ErrWrongKey, ErrKeyRequired, ErrAuth,
// ErrTooLarge). Hostile input never panics and never makes the reader
// allocate more than the index of at most MaxSegments entries (a sparse
// file's size costs nothing) plus, per segment read, its stored bytes and
// what it really decodes to, within the configured cap: a claimed raw
// length is checked before it is allocated (an LZ4 block's sequences are
// added up; a Zstandard frame with a suspicious ratio is first decoded
// into nothing). A deep Verify keeps no decoded Zstandard output.
package ctxfmt
