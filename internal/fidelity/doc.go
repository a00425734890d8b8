// Package fidelity is the measure behind docs/FIDELITY.md, shared by the
// archive's digest test and the hook's end-to-end corpus test: the share of
// the distinct file paths and shell commands a Claude Code session used
// before its compaction that a text (the compaction summary, Ben10's
// recovery digest, or both) still names.
//
// What counts:
//   - paths: the file_path, notebook_path and path inputs of every tool call
//     of the main chain (not sidechains) before the compact_boundary, and
//     Glob's pattern; the project root itself is left out;
//   - commands: the Bash commands' first lines, whitespace-normalised;
//   - present: the term occurs as a whole word of the whitespace-normalised
//     text (see Appears); a path inside the project may also appear relative
//     to the project root.
package fidelity
