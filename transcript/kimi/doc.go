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
package kimi
