// Package gemini imports Gemini CLI sessions
// (~/.gemini/tmp/<project>/chats/session-*.json and session-*.jsonl) into
// an archive.State.
//
// Both on-disk formats are read:
//   - ≤ v0.38: one ConversationRecord JSON object, rewritten in full;
//   - ≥ v0.39: append-only JSONL — a metadata line, message lines that are
//     upserts by id (the last version wins but keeps its first position),
//     {"$set":{…}} metadata updates where $set.messages replaces the whole
//     list, and {"$rewindTo":id} which drops that message and all after it.
//
// A $set.messages replacement is chat compression: the messages it drops
// stay in State.Messages (before the boundary) and a Compaction records
// the boundary, with the <state_snapshot> summary when the new list has
// one. Rewound messages are dropped as the user asked (they stay in Raw).
//
// Gemini records no working directory. DirectoryHash is the session's
// projectHash (sha256 of the project root); DirectoryPath is resolved from
// the file's location by ProjectDir (.project_root, projects.json) or
// taken from ImportOptions.ProjectDir when its sha256 matches.
//
// Raw files: the session file under its own name; subagent sessions
// (chats/<sessionId>/<id>.jsonl, unless NoSubagents) as "<sessionId>/<id>.jsonl",
// imported as sidechain messages with AgentID <id>.
//
// Thoughts become "thinking" messages; toolCalls become Tools (result
// functionResponse output, status "success" → Success); run_shell_command
// fills Command; read_file / write_file / replace fill the file registry;
// write_todos fills the task state. ContextWindow comes from TokenLimit.
package gemini
