// Package hook implements Claude Code's hook protocol and Ben10's handlers
// for it.
package hook
