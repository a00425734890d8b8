// Package kimi imports Moonshot Kimi CLI sessions
// ($KIMI_SHARE_DIR or ~/.kimi, sessions/<md5(workdir)>/<uuid>/) into an
// archive.State.
//
// A session directory holds context.jsonl (the model-visible history, no
// timestamps), its rotations context_1.jsonl, context_2.jsonl, … (the
// history before each compaction, /clear or revert), wire.jsonl (the event
// log with float-epoch timestamps, usage and StatusUpdate), state.json
// (title, todos) and subagents/<id>/{context.jsonl,wire.jsonl,meta.json}.
//
// Messages are read from context_1 … context_N and then context.jsonl; a
// rotation is a Compaction (its summary is the "<system>Previous context
// has been compacted…" message; a rotation without one is recorded as a
// manual clear), and messages kept verbatim across a rotation are not
// repeated. Timestamps come from wire.jsonl: a user prompt takes its
// TurnBegin's time, tools their ToolCall/ToolResult times, other messages
// the latest time known before them. ContextTokens and ContextWindow come
// from the last StatusUpdate (else the last _usage line and the
// ContextWindow table); TotalTokens sums StatusUpdate.token_usage.
//
// DirectoryPath is resolved through <share>/kimi.json (work_dirs paths
// whose md5 is the folder name, "<kaos>_<md5>" for remote backends);
// Model from default_model in <share>/config.toml (Kimi records none per
// session).
//
// Raw files are every file of the session directory, named
// "<uuid>/<path relative to the session directory>": "<uuid>/context.jsonl",
// "<uuid>/context_1.jsonl", "<uuid>/wire.jsonl", "<uuid>/state.json",
// "<uuid>/subagents/<id>/context.jsonl", ….
//
// # Other layouts
//
// The older flat layout keeps a session as sessions/<md5>/<uuid>.jsonl
// (context lines) with its subagents' contexts beside it as
// <uuid>_read_N.jsonl (subagent "read_N"); either file imports the
// session, and the raw files keep their own names (flat.go).
//
// Kimi Code (the successor) keeps only wire logs,
// ~/.kimi-code/sessions/wd_…/session_<uuid>/agents/<agent>/wire.jsonl, in
// protocol 1.4 records: context.append_message and the loop events of
// context.append_loop_event (content parts, tool calls and results) make
// the messages and tools, usage.record the tokens, llm.request the model
// and context.apply_compaction the compactions; the other agents' logs are
// subagents (code.go).
package kimi
