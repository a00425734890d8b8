// Package watch is the watcher daemon behind `ben10 watch`: one process
// that preserves the sessions of every AI coding assistant — Claude Code,
// Codex CLI, Gemini CLI and Kimi CLI — before the assistant compacts them,
// whether or not the assistant has hooks (for Claude Code it backs up the
// hooks, sharing their cooldown).
//
// # Configuration
//
// LoadConfig reads ~/.claude-code/watch.yaml (seed 002's schema, in YAML):
//
//	global:
//	  poll_interval_seconds: 10   # rescan + re-evaluation period (fractions allowed)
//	  cooldown_minutes: 10        # per-session cooldown of assistants without their own
//	  active_minutes: 5           # a session modified this recently is active
//	llms:
//	  gemini:
//	    enabled: true
//	    session_paths: ["~/.gemini/tmp/*/chats/session-*.jsonl"]   # "**" = any depth
//	    thresholds: {warn_percent: 40, export_percent: 45, compaction_starts_at: 50}
//	    triggers: {context_percent: true, size_mb: null, time_minutes: null, turns: null}
//	    cooldown_minutes: 10
//	  codex: false                 # shorthand for enabled: false
//
// Every entry is validated on load. An invalid assistant entry (a
// threshold out of range or out of order, an unknown key, a bad glob, …)
// disables only that assistant; an invalid global key keeps its default;
// both are reported as Problems with file, line and key. Only an
// unreadable or unparsable file is an error (ErrConfig). The defaults
// (DefaultThresholds) are Appendix C's table, corrected by what the
// assistants really do: Gemini CLI compresses at 50% of the model's token
// limit, so its defaults are 40/45/50 rather than 80/85/90; Claude Code
// auto-compacts at about 83% of a 200k window, so its compaction point is
// 83 (warn and export stay at 75).
//
// # Discovery and context %
//
// The watcher expands each enabled assistant's globs every poll interval
// and watches the directories they walk with fsnotify, so new and growing
// files are seen within about 100 ms; polling alone still works when file
// notifications are unavailable. A session is active when one of its files
// changed within active_minutes. The context % comes from each format's
// own usage records via transcript.ContextUsage, which reads only the
// file's tail: Claude's latest non-sidechain usage, Codex's token_count
// against model_context_window, Gemini's tokens against the model's limit,
// Kimi's StatusUpdate (else context.jsonl's _usage). Turns are counted in
// the bytes appended since the last evaluation only.
//
// # Triggers, cooldowns and exports
//
// Decide applies the triggers: the context % reaching export_percent (the
// export band) asks for an archive and a pre-compaction snapshot; file
// growth (size_mb), time since the last export (time_minutes) and user
// turns (turns) ask for an archive. The archive is the project's
// current.ctx, written incrementally (unchanged raw segments are copied);
// the snapshot goes through snapshot.Manager.Create with Source "watcher"
// into the project store of the session's working directory
// (StorePreserver), which verifies it deeply before moving it into place.
//
// A session is never snapshotted twice within its cooldown, whoever took
// the snapshot: before creating one, the watcher reads the session's
// newest snapshot in the project's index (snapshot.Manager.LatestForSession)
// and skips when it is younger than the cooldown. Its own snapshots are
// created with HoldFor = the cooldown, so a PreCompact hook firing inside
// the cooldown replaces the watcher's snapshot with a fresher one instead
// of adding a second (snapshot.Index.Debounced honours HoldUntil); the
// snapshot manager's snapshot_debounce does the same for snapshots racing
// each other.
//
// # State
//
// Run records ~/.claude-code/watch-state.json (atomically, after every
// change): active sessions, per-session cooldowns (their end), last
// export, counts, last context % per assistant, and per session the
// offsets and times that let a restarted watcher carry on. Reload (SIGHUP
// in `ben10 watch`) re-reads the configuration; cancelling Run's context
// (SIGINT/SIGTERM) saves the state with running false and returns.
//
// Unit, Install and Uninstall write the systemd user unit or launchd agent
// that runs `ben10 watch`; ReadStatus and Status.Line are `ben10 statusline`.
package watch
