package claude

// SubReplays returns how many subagent files were resumed from their
// recorded contribution so far (resume_sub.go).
func SubReplays() int64 { return subReplays.Load() }

// ResumeMain decodes a resume-state segment without its subagent records
// (whose encoding is not canonical), for comparing the main file's
// snapshot of an incremental save with a full save's.
func ResumeMain(b []byte) (any, error) {
	_, body, _ := parseResumeHeader(b)
	var rs resumeState
	if err := unmarshalSafe(body, &rs); err != nil {
		return nil, err
	}
	rs.Subs = nil
	return rs, nil
}
