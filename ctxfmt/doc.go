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
// for the same input, except for an encrypted file's random salt.
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
// allocate more than a small multiple of the file size, or the configured
// cap on one decoded segment.
package ctxfmt
