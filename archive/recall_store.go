package archive

// recallPayloadFold is the one place the recall (see BuildRecall) is made
// for the summaries segment: built from the full State at encode time, so
// that Digest on a large archive reads one small segment. It is stored in
// the compact positional form (recall_codec.go). The tool pass goes on
// from the previous archive's fold prevFold when it applies to s (see
// resumeFold); with checkpoint, the fold's checkpoint for the next save is
// returned too (nil when there is none to make), and the number of tools
// the previous fold covered (0 when it did not apply).
func recallPayloadFold(s *State, prevFold []byte, checkpoint bool) (payload, fold []byte, reused int) {
	at := -1
	if checkpoint {
		at = foldPoint(s.Tools)
	}
	prev := resumeFold(prevFold, s)
	if prev != nil {
		reused = prev.n
	}
	r := buildRecall(s, prev, at, &fold)
	return appendRecall(make([]byte, 0, 4096), &r), fold, reused
}
