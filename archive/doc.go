// Package archive is Ben10's context model (State) and its mapping onto
// .ctx segments (package ctxfmt): encode, lazy open, per-component
// accessors, raw transcript export and restore as a resumable Claude Code
// session.
//
// Layout: a metadata segment (Metadata, import report, redaction report,
// small counts and the manifest mapping raw files to their segments), small
// task-state, compactions, summaries (the Recall the digest is built from),
// preferences and file-registry segments, the conversation and tool-history
// segments, then the raw transcript files cut at line boundaries into
// chunks of about DefaultChunkSize, then one segment per captured file
// content. Model payloads are msgpack with sorted map keys, except the
// Recall and the file registry, which are written in compact positional
// forms (arrays of fields, times as millisecond offsets); docs/FORMAT.md
// ("Archive payloads") specifies every segment's payload.
//
// Reading without an importer: every segment this package writes is read
// by this package alone. The conversation and the tool history are always
// stored; their texts point into the stored raw lines (below), which the
// accessors resolve themselves. Pre-release forms that left the
// conversation out, to be rebuilt by an importer, or that held the raw
// transcript only (layout 4), are refused with ErrSchema.
//
// Raw chunks and segments: Encode writes layout 1, every chunk in a
// segment of its own, in file order, compressed with the archive's codec
// and level like every other segment. Readers also accept layouts 2 and 3
// of pre-release versions, where a chunk marked packed in the manifest
// shares the segment of the chunk before it (layout 3: the packed chunks
// first, the chunk that opens the segment last).
//
// Texts are stored once: a Message, ToolExec input or output, or a
// compaction summary that carries Span pointers is written without its
// text when the stored raw line still resolves to exactly that text
// (checked at encode time); otherwise the text is stored inline. Accessors
// resolve pointers from the raw transcript. Meta, Summary, Tasks,
// CompactionBoundaries, Preferences, Files and Recall never decompress the
// conversation or the raw transcript; Compactions does when a summary is a
// pointer.
//
// Saving: NewEncoder, StartRaw and Finish split Encode so that the raw
// transcript is redacted, cut and compressed in the background while the
// caller builds the model from the same bytes (transcript/claude.Save
// does this); the bytes written are those of Encode. A text given as
// spans only (empty, with its spans: an importer that left a tool output
// undecoded) is stored as that pointer.
//
// Incremental save: EncodeOptions.Previous names the archive being
// updated; the leading raw segments whose original bytes (xxhash64) are a
// prefix of the new file are copied without recompression. With
// redaction, the reused part's stored bytes are the previous archive's
// (the same configuration redacts the same lines the same way, which
// RedactFingerprint vouches for); only the new tail is redacted. The model
// and the recall are built from the whole State on every save.
//
// Re-encoding: Archive.Reencode writes an opened archive again at another
// level, laid out as a direct save (layout 1, current compact forms, the
// caches pre-release versions kept for the next save dropped), with the
// stored raw transcript and every model payload kept as they are: nothing is
// imported or redacted again. A snapshot written at the fastest level in
// a hook is recompressed this way (package snapshot).
package archive
