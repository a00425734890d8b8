// Package archive stores an AI coding session's context as a .ctx archive
// (the container of package ctxfmt) and reads it back: the context model
// (State), its segments, raw transcript export, and restore as a
// resumable Claude Code session.
//
// # Writing
//
// An importer (package transcript and its subpackages) builds a State
// from an assistant's own files; Encode writes it to an io.Writer. The
// zero EncodeOptions write uncompressed, unencrypted, unredacted segments;
// Codec, Level and Encryption choose the container's compression and
// encryption. Redaction is injected: RedactLine is applied to every raw
// transcript line and RedactText to every model text stored inline, and
// RedactFingerprint names the configuration, so that this package never
// depends on the redactor. Previous names the archive a save updates:
// the raw segments it holds unchanged are copied without recompression.
// Auth tags the archive as the key holder's (see Archive.Authenticate).
//
// # Reading
//
// Open and OpenFile read the container index and the metadata segment
// only; every accessor then decodes just the segments it needs. Meta and
// Summary read nothing more (a status read costs the same at any archive
// size); Recall, Tasks, CompactionBoundaries, Preferences and Files read
// one small segment each; Compactions, Messages, Tools, RawFiles, FileContents
// and Load read the conversation or the raw transcript. An Archive is
// safe for concurrent use.
//
// A message, tool input or output, or compaction summary is stored once:
// where the raw transcript line holds exactly its text, the model stores
// a pointer into the line (Span) instead, and the accessors resolve it.
// Every segment this package writes is read by this package alone: a
// program needs no importer to read an archive.
//
// # Layout
//
// An archive holds a metadata segment (Metadata, import and redaction
// reports, small counts, and the manifest mapping raw files to their
// segments); the task-state, compactions, preferences, file-registry and
// summaries (the Recall a digest is built from) segments; the
// conversation and tool-history segments; the raw transcript files, cut
// at line boundaries into chunks of about DefaultChunkSize; and one
// segment per captured file content. docs/FORMAT.md ("Archive payloads")
// specifies every payload.
//
// Every raw chunk has a segment of its own (layout 1), and every segment
// is compressed on its own with the archive's codec.
//
// # Refused forms
//
// Open refuses, with an error wrapping ErrSchema that names the form,
// what only pre-release builds wrote: a conversation left out to be
// rebuilt by an importer, layouts 2 and 3 (raw chunks packed into shared
// segments), layout 4 (raw-only archives, whose model a reader was to
// build from the raw transcript) and the recall-fold segment;
// Recall and Files refuse the map forms of the recall and the file
// registry. A layout or schema from a newer build is refused alike.
//
// # Hostile input
//
// An archive is untrusted input: a malformed one gives an error (wrapping
// ErrCorrupt, ErrTooLarge, ErrSchema or ErrNotArchive, or a SegmentError
// naming the segment), never a panic. Decoded sizes are bounded
// (OpenOptions.MaxSegmentSize, OpenOptions.MaxDecodedSize), and every
// msgpack payload is checked to be complete and affordable before it is
// decoded.
package archive
