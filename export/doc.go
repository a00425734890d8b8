// Package export writes an archive.State in interchange formats:
//
//   - CUSF: the CODITECT Universal Session Format of the unified-watcher
//     seed, normalized JSONL — a "_meta" line, "session_start", one line per
//     "message", "tool_use" and "tool_result", and "session_end" with the
//     totals — the same for every harness;
//   - Markdown: a readable transcript;
//   - JSON: the model itself (State without raw files), indented.
//
// Every writer walks the conversation in the same order (see Walk):
// messages in order; a message's tool calls right after it, each call's
// result right after the call unless a later tool_result message carries
// it; compaction boundaries before the message they precede; tools no
// message references at the end.
package export
