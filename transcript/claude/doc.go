// Package claude imports Claude Code transcripts (`<session>.jsonl` plus
// `<session>/subagents/*.jsonl`) into an archive.State.
//
// The raw files are kept byte for byte (State.Raw). The model is built
// from each line with an offset-reporting JSON walker (internal/jscan), so
// message texts, tool inputs and outputs carry archive.Span pointers into
// their raw line and the archive stores them once. Claude Code 2.x and
// 1.0.x lines are understood; unknown line types are counted in the import
// report and kept raw; blank lines, CRLF endings, invalid UTF-8, lines that
// are not JSON and a truncated last line never abort an import — each is
// counted (ImportReport) and kept in the raw transcript.
//
// Token accounting: one API response is written as several assistant lines
// sharing message.id and requestId with the same usage; it is counted once.
// Metadata.TotalTokens sums input, output, cache-creation and cache-read
// tokens over distinct responses; Metadata.ContextTokens is input +
// cache_creation + cache_read of the last non-sidechain assistant line with
// a usage.
//
// Claude Code 2.1.1xx–2.1.2xx lines (lines.go): ai-title gives the
// session's title (a custom-title wins); a prompt typed while Claude was
// busy, stored only as an attachment of type queued_command with origin
// kind "human", is a user request (queued task notifications are not);
// pasted images are "[image]" lines of their message; a signature-only
// thinking block makes no message; a subagent's own file opened by itself
// (every line isSidechain) is read as a main chain. mode, permission-mode,
// bridge-session, last-prompt, file-history-delta and the other
// attachments are known and kept raw only.
//
// Preferences and corrections use the fixed heuristic documented in
// prefs.go.
//
// Incremental saves (Save with archive.EncodeOptions.Previous): the model
// is built from the whole transcript; the raw segments the previous
// archive holds unchanged are copied (see archive.EncodeOptions).
package claude
