// Package transcript imports assistants' own session files into an
// archive.State, detecting the harness when not told, and finds and
// measures live sessions for the watcher.
//
// Importers (each `Import(path, archive.ImportOptions)`, plus a bytes
// entry point for fuzzing):
//
//	claude  transcript/claude  ~/.claude/projects/<project>/<session>.jsonl
//	codex   transcript/codex   ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl
//	gemini  transcript/gemini  ~/.gemini/tmp/<project>/chats/session-*.json[l]
//	kimi    transcript/kimi    ~/.kimi/sessions/<md5(workdir)>/<uuid>/
//
// Raw file names (archive.RawFile.Name) per harness:
//
//	codex   "rollout-<time>-<uuid>.jsonl" (the file's base name)
//	gemini  "session-<time>-<id>.jsonl" or ".json"; subagents "<sessionId>/<id>.jsonl"
//	kimi    "<uuid>/context.jsonl", "<uuid>/context_1.jsonl", "<uuid>/wire.jsonl",
//	        "<uuid>/state.json", "<uuid>/subagents/<id>/…" (every file of the directory)
//
// Every importer keeps each original file byte for byte, never fails on
// content (unknown records are counted in ImportReport.UnknownTypes, lines
// that are not JSON in Skipped, a cut last line sets Truncated, invalid
// UTF-8 is counted and replaced by U+FFFD in the decoded text), reads
// lines of any length, and accepts CRLF and blank lines.
//
// Import dispatches on the harness; Detect sniffs the first lines and
// falls back on the location. Dirs names each harness's data directories
// (with the environment overrides). ContextUsage returns a session's context size and window
// from the tail of its file; the window tables are ClaudeWindow,
// CodexWindow, gemini.TokenLimit and kimi.ContextWindow.
package transcript
