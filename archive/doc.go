// Package archive is Ben10's context model (State) and its mapping onto
// .ctx segments (package ctxfmt): encode, lazy open, per-component
// accessors, raw transcript export and restore as a resumable Claude Code
// session.
//
// Layout (LayoutVersion 1): a metadata segment (Metadata, import report,
// redaction report, small counts and the manifest mapping raw files to
// their segments), small task-state, compactions, summaries (the Recall the
// digest is built from), preferences and file-registry segments, the
// conversation and tool-history segments, then the raw transcript files cut
// at line boundaries into segments of about DefaultChunkSize, then one
// segment per captured file content. Model payloads are msgpack with sorted
// map keys.
//
// Texts are stored once: a Message, ToolExec input or output that carries
// Span pointers is written without its text when the stored raw line still
// resolves to exactly that text (checked at encode time); otherwise the
// text is stored inline. Accessors resolve pointers from the raw
// transcript. Meta, Summary, Tasks, Compactions, Preferences, Files and
// Recall never decompress the conversation or the raw transcript.
//
// Saving fast: NewEncoder, StartRaw and Finish split Encode so that the
// raw transcript is redacted, cut and compressed in the background while
// the caller builds the model from the same bytes (transcript/claude.Save
// does this); the bytes written are those of Encode.
//
// Incremental save: EncodeOptions.Previous names the archive being
// updated; the leading raw segments whose original bytes (xxhash64) are a
// prefix of the new file are copied without recompression.
package archive
