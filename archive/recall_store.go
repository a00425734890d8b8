package archive

// recallPayload is the one place the recall (see BuildRecall) is made for
// the summaries segment: built from the full State at encode time, so
// that Digest on a large archive reads one small segment. It is stored in
// the compact positional form (recall_codec.go).
func recallPayload(s *State) []byte {
	r := BuildRecall(s)
	return appendRecall(make([]byte, 0, 4096), &r)
}
