package archive

import "encoding/json"

// ToolInputDecodesAsJSON reports whether decodeToolInput gives for s what
// encoding/json gives (for the external corpus test).
func ToolInputDecodesAsJSON(s string) bool {
	var want, got toolInput
	_ = json.Unmarshal([]byte(s), &want)
	decodeToolInput(s, &got)
	return got == want
}

// RecallFromFold checkpoints the recall's tool fold of prev where an
// encoder would (before the first tool a later save may see differently),
// round-trips the checkpoint through its encoding, and builds the recall of
// s going on from it; applied reports whether the checkpoint applied to s.
func RecallFromFold(prev, s *State) (r Recall, applied bool, ckLen int) {
	var ck []byte
	buildRecall(prev, nil, foldPoint(prev.Tools), &ck)
	fold := resumeFold(ck, s)
	return buildRecall(s, fold, -1, nil), fold != nil, len(ck)
}

// DecodeRecallFold decodes a recall-fold checkpoint (for the fuzz-like
// robustness test); ok is false when b is malformed.
func DecodeRecallFold(b []byte) bool {
	_, _, err := decodeFold(b)
	return err == nil
}

// RecallFoldPoint is where an encoder checkpoints the fold of tools.
func RecallFoldPoint(tools []ToolExec) int { return foldPoint(tools) }

// RecallFoldBytes is the checkpoint an encoder would store for s.
func RecallFoldBytes(s *State) []byte {
	var ck []byte
	buildRecall(s, nil, foldPoint(s.Tools), &ck)
	return ck
}
