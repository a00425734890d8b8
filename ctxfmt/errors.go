package ctxfmt

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns about file contents is
// a *FormatError wrapping exactly one of them, so errors.Is works.
var (
	// ErrBadMagic: the leading or trailing magic bytes are wrong; this is
	// not a .ctx file (or its end was overwritten).
	ErrBadMagic = errors.New("not a .ctx file (bad magic)")
	// ErrChecksum: stored bytes do not match their xxhash64 checksum.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrTruncated: the file is shorter than it says it is.
	ErrTruncated = errors.New("truncated")
	// ErrUnsupported: a newer format version, an unknown must-understand
	// flag, a required segment of an unknown type or codec, or crypto
	// parameters outside the reader's caps.
	ErrUnsupported = errors.New("unsupported")
	// ErrCorrupt: the structure is inconsistent (overlapping or misplaced
	// segments, impossible lengths, undecodable compressed data) although
	// checksums matched.
	ErrCorrupt = errors.New("corrupt")
	// ErrWrongKey: the passphrase or key does not open this file.
	ErrWrongKey = errors.New("wrong passphrase or key")
	// ErrKeyRequired: the file is encrypted and no passphrase or key was
	// given.
	ErrKeyRequired = errors.New("encrypted: a passphrase or key is required")
	// ErrAuth: the key is right but authentication of a segment failed:
	// the file was tampered with (segments altered, swapped, reordered,
	// duplicated or dropped).
	ErrAuth = errors.New("authentication failed (tampered)")
	// ErrTooLarge: a segment decodes to more than the configured cap.
	ErrTooLarge = errors.New("too large")
)

// FormatError reports a problem in one region of a file: "header",
// "index", "index entry 3", "segment 3 (conversation)", "footer" or "file".
type FormatError struct {
	Region string // where in the file
	Err    error  // one of the sentinel errors
	Detail string // what exactly, may be empty
}

func (e *FormatError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("ctxfmt: %s: %v", e.Region, e.Err)
	}
	return fmt.Sprintf("ctxfmt: %s: %v: %s", e.Region, e.Err, e.Detail)
}

func (e *FormatError) Unwrap() error { return e.Err }

func ferr(region string, err error, format string, args ...any) *FormatError {
	return &FormatError{Region: region, Err: err, Detail: fmt.Sprintf(format, args...)}
}

func entryRegion(i int) string { return fmt.Sprintf("index entry %d", i) }

func segRegion(i int, t SegmentType) string { return fmt.Sprintf("segment %d (%s)", i, t) }
