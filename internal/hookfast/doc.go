// Package hookfast is the part of Ben10's Claude Code hooks that both the
// full `ben10 hook` (package hook) and the small `ben10-hook` shim
// (cmd/ben10-hook) run: the per-session prompt counter that is
// UserPromptSubmit's fast path, the checkpoint pacing decision, the
// identity of a file (FileID), the project-directory and home-directory rules, and
// the hooks' error log.
//
// It is a leaf: it imports the standard library only, so the shim that
// links it starts almost as fast as an empty Go program. Everything here
// has exactly one implementation; package hook and package store call it.
package hookfast
