package archive

import (
	"errors"
	"fmt"
)

// Sentinel errors, usable with errors.Is.
var (
	// ErrNotArchive: the container holds no Ben10 metadata segment.
	ErrNotArchive = errors.New("archive: not a Ben10 context archive (no metadata segment)")
	// ErrSchema: the archive was written by a newer Ben10 (layout or schema
	// version this build does not know).
	ErrSchema = errors.New("archive: unsupported archive version")
	// ErrCorrupt: the segments decode but do not agree with each other
	// (sizes, hashes, counts).
	ErrCorrupt = errors.New("archive: corrupt archive")
	// ErrExists: restore or export would overwrite an existing file.
	ErrExists = errors.New("archive: file exists")
	// ErrNoRaw: the archive holds no raw transcript to export or restore.
	ErrNoRaw = errors.New("archive: no raw transcript in archive")
	// ErrTooLarge: what the archive declares (counts, sizes) would take
	// more memory than this reader allows: OpenOptions.MaxDecodedSize
	// for raw files, a budget proportional to the segment for the values
	// a segment decodes to.
	ErrTooLarge = errors.New("archive: declared sizes exceed the reader's limits")
	// ErrPlaintext: the archive is not encrypted although the reader
	// requires encryption (OpenOptions.RequireEncryption): the user
	// configured a passphrase or key, so an archive in clear was not
	// written by them with that configuration.
	ErrPlaintext = errors.New("archive: not encrypted, but encryption is configured")
)

// SegmentError names the segment a read or decode failed on.
type SegmentError struct {
	Segment string // e.g. "conversation", "raw transcript chunk 3"
	Err     error
}

func (e *SegmentError) Error() string { return fmt.Sprintf("archive: %s: %v", e.Segment, e.Err) }
func (e *SegmentError) Unwrap() error { return e.Err }

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}
