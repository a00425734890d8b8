package archive

// recallPayloadFold is the one place the recall (see BuildRecall) is made
// for the summaries segment: built from the full State at encode time, so
// that Digest on a large archive reads one small segment. It is stored in
// the compact positional form (recall_codec.go). The tool pass goes on
// from the previous archive's fold prev when it applies to s (see
// resumeFold); with keep, the fold's checkpoint for the next save is
// returned too (nil when there is none to make), and the number of tools
// the previous fold covered (0 when it did not apply).
func recallPayloadFold(s *State, prev decodedFold, keep bool) (payload, fold []byte, reused int, err error) {
	f, fd, err := resumeFold(prev, s)
	if err != nil {
		return nil, nil, 0, err
	}
	var ck *checkpoint
	if keep {
		ck = &checkpoint{at: foldPoint(s.Tools), fd: fd}
		if f != nil && f.n > ck.at {
			// The checkpoint goes before the previous one (a tool it
			// covers came to depend on another file): fold from scratch.
			if s.Source.FoldedTexts > 0 {
				return nil, nil, 0, ErrFoldMismatch
			}
			f = nil
		}
	}
	if f != nil {
		reused = f.n
	}
	r := buildRecall(s, f, ck)
	if ck != nil {
		fold = ck.out
	}
	return appendRecall(make([]byte, 0, 4096), &r), fold, reused, nil
}
