package claude

// SubReplays returns how many subagent files were resumed from their
// recorded contribution so far (resume_sub.go).
func SubReplays() int64 { return subReplays.Load() }
