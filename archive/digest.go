package archive

import "github.com/ben10ctx/ben10/internal/recall"

// Digest budgets, in characters (see DigestLen).
const (
	// DefaultDigestBudget is the budget of periodic checkpoint digests and
	// of the startup/clear injection.
	DefaultDigestBudget = recall.DefaultDigestBudget
	// RecoveryDigestBudget is the budget of the digest injected after a
	// compaction. Claude Code replaces any additionalContext over 10,000
	// characters with a short preview.
	RecoveryDigestBudget = recall.RecoveryDigestBudget
	// MaxDigestBudget is the hard cap: larger budgets are lowered to it.
	MaxDigestBudget = recall.MaxDigestBudget
)

// DigestOptions tune Digest: the budget, the compaction summary whose
// files and commands are left out, and the time that dates the header.
type DigestOptions = recall.DigestOptions

// DigestLen is the length Digest budgets: UTF-16 code units, the way
// Claude Code (JavaScript) counts characters. It is never less than the
// number of runes.
func DigestLen(s string) int { return recall.DigestLen(s) }

// Digest renders r as a deterministic recovery text of at most
// opts.Budget characters: a header, then the sections Task, Latest
// requests, Files, Commands, Errors and Decisions, always in that order,
// each holding its most relevant items first. Every section gets a share
// of the budget (a few items each, then the rest round-robin, weighted
// towards files and commands), cut at line boundaries; a section that could
// not show everything ends with a "… N more" line, and sections left out
// entirely are named on a last "[not shown …]" line. The renderer lives in
// internal/recall, which links the standard library only.
func Digest(r Recall, opts DigestOptions) string { return recall.Digest(recall.Recall(r), opts) }
