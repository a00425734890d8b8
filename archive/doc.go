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
// by this package alone, with one exception. A State whose conversation
// an importer can rebuild from the stored raw transcript (ModelSource,
// set by the importers) is stored without its conversation and tool
// history; Messages, Tools and Load of such an archive (Source reports
// it) run that importer's Deriver, which a program links in by importing
// the importer's package (transcript/claude registers "claude"); without
// it they return ErrNoDeriver. Meta, Summary, Tasks, Compactions,
// CompactionBoundaries, Preferences, Files, Recall, RawFiles and
// FileContents never need one (except in a raw-only archive, below).
//
// At LevelMax the importer's resume state (an optional extension
// segment, a cache for the next incremental save: TypeResumeState) is
// left out: such archives are
// written once and kept, and a save on top of one imports in full. Also
// at LevelMax, the raw segments (except the main file's chunks before its
// last, kept copyable) and the task-state,
// compactions, preferences and file-registry segments (where that is
// smaller) are compressed against the summaries segment's payload
// (ctxfmt.CodecZstdDict): the recall quotes commands, paths and errors of
// the transcript, which the raw segments then need not spell out again.
// The metadata and the recall stay independent, so the hooks' reads are
// unchanged; reading those other segments decodes the recall too. Below
// LevelBetter, the small bounded segments every save writes anew
// (metadata, task state, compactions, preferences, file registry, recall,
// resume state) are LZ4 blocks whatever the archive's codec
// (faster to write and to read on every save and hook, for a few KB); the
// conversation, tool history and raw transcript keep the archive's codec.
//
// Raw chunks and segments: in layout 1 every chunk is one segment, in file
// order. Layout 2 (written at LevelBest and LevelMax when a session has
// subagent files) packs the main file's last chunk and the subagent files'
// chunks into shared segments of up to 8 MiB, so that the compressor sees
// the repetitions between them (a compaction subagent repeats the
// conversation); a chunk marked packed in the manifest shares the segment
// of the chunk before it. In layout 2 a shared segment holds its chunks in
// that order; layout 3 (written since) stores the packed chunks first and
// the chunk that opens the segment (the main file's tail) last, which
// compresses smaller (the subagent files come before the conversation
// that quotes them). Each segment still decodes on its own; readers
// accept all three layouts, and an archive without packed chunks is
// written as layout 1.
//
// Raw-only archives (layout 4, LayoutRawOnly): EncodeRawOnly writes the
// metadata, the redaction report and the raw segments (as a full save of
// the same files stores them) without running the importer: what a hook
// in a hurry must leave before compaction proceeds. The metadata's
// PendingModel names the importer (registered with RegisterModelDeriver)
// that builds the model from the stored raw transcript; the accessors do
// so on first use (RawOnly tells such an archive, StoredMeta reads its
// identity without building), and Reencode writes the complete archive, as
// a direct save would have. Builds that read up to layout 3 refuse a
// raw-only archive (ErrSchema). docs/FORMAT.md states the rule.
//
// Texts are stored once: a Message, ToolExec input or output, or a
// compaction summary that carries Span pointers is written without its
// text when the stored raw line still resolves to exactly that text
// (checked at encode time); otherwise the text is stored inline. Accessors
// resolve pointers from the raw transcript. Meta, Summary, Tasks,
// CompactionBoundaries, Preferences, Files and Recall never decompress the
// conversation or the raw transcript (at LevelMax, Tasks,
// CompactionBoundaries, Preferences and Files decode the recall); Compactions does when a summary is a
// pointer (older archives keep every summary inline).
//
// Saving fast: NewEncoder, StartRaw and Finish split Encode so that the
// raw transcript is redacted, cut and compressed in the background while
// the caller builds the model from the same bytes (transcript/claude.Save
// does this); the bytes written are those of Encode. Finish builds the
// model segments and the recall while the raw files are still being
// compressed and hashed. A State whose importer left the tool outputs
// the recall does not read undecoded (ModelSource.Lazy, claude.Save's)
// is written that way too: its conversation is always derived from the
// raw transcript, and Encode refuses to store it otherwise.
//
// Incremental save: EncodeOptions.Previous names the archive being
// updated; the leading raw segments whose original bytes (xxhash64) are a
// prefix of the new file are copied without recompression. Shared (packed)
// segments and segments compressed against the recall are never copied: at LevelBest and LevelMax an incremental save
// compresses the main file's last chunk and the subagent files again.
// With redaction, the reused part's stored bytes are the previous
// archive's (the same configuration redacts the same lines the same way,
// which RedactFingerprint vouches for); only the new tail is redacted. A
// file not copied (a packed subagent file) is redacted only after its
// leading lines the previous archive holds unchanged. The recall is
// built from the whole State on every save; the recall-fold segment
// older versions wrote beside the resume state (TypeRecallFold) is no
// longer written, and readers skip it.
//
// Re-encoding: Archive.Reencode writes an opened archive again at another
// level, laid out as a direct save at that level (packing, resume state
// dropped at LevelMax, current compact forms), with the stored raw
// transcript and every model payload kept as they are: nothing is
// imported or redacted again. A snapshot written at the fastest level in
// a hook is recompressed this way (package snapshot).
package archive
