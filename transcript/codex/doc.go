// Package codex imports OpenAI Codex CLI rollout files
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/)
// into an archive.State.
//
// Mapping:
//   - session_meta gives SessionID, DirectoryPath (cwd), ClientVersion
//     (cli_version), GitBranch and CreatedAt; turn_context gives Model.
//   - response_item message, reasoning, function_call (JSON-string
//     arguments), function_call_output (string, old shell JSON or array),
//     custom_tool_call(+_output), local_shell_call and web_search_call
//     become Messages and Tools. Each tool call is attached to the
//     assistant message of its turn (an empty "tool_use" message when the
//     call comes first); each output becomes a "tool_result" message.
//   - event_msg user_message / agent_message / agent_reasoning duplicate
//     response items and are kept only when no response item carries the
//     same text. token_count gives TotalTokens (cumulative), ContextTokens
//     (last_token_usage.total_tokens) and ContextWindow
//     (model_context_window; task_started also carries it).
//     patch_apply_end and exec_command_end refine tool success and files.
//   - compacted is a compaction boundary: the local summary, or a note for
//     a remote compaction's opaque replacement_history.
//   - shell / exec_command tools fill ToolExec.Command; apply_patch and
//     update_plan fill the file registry and the task state.
//   - Code mode (0.14x): a custom_tool_call named "exec" is a JavaScript
//     cell; each tools.exec_command({cmd, workdir}) call in it is a
//     command, with the cell's output and outcome (codemode.go).
//   - Sub-agents: response_item agent_message and the rollout's
//     inter_agent_communication are kept once as "agent" messages
//     ("[author → recipient]"); sub_agent_activity events as meta lines;
//     thread_settings_applied gives the model.
//   - User messages' harness-injected blocks (environment context,
//     instructions, <recommended_plugins>, …) make a "meta" message, not a
//     request.
//
// The one raw file is named after the rollout file ("rollout-….jsonl").
// Records of unknown types are counted in ImportReport.UnknownTypes
// ("response_item/<type>", "event_msg/<type>", "<type>").
package codex
