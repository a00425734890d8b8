package archive

import (
	"encoding/json"
	"reflect"

	"github.com/ben10ctx/ben10/ctxfmt"
)

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
	ck := RecallFoldBytes(prev)
	fold, _, _ := resumeFold(decodeFoldBytes(ck), s)
	return buildRecall(s, fold, nil), fold != nil, len(ck)
}

// DecodeRecallFold decodes a recall-fold checkpoint (for the fuzz-like
// robustness test); ok is false when b is malformed.
func DecodeRecallFold(b []byte) bool {
	_, _, _, err := decodeFold(b)
	return err == nil
}

// RecallFoldBytes is the checkpoint an encoder would store for s.
func RecallFoldBytes(s *State) []byte {
	ck := &checkpoint{at: foldPoint(s.Tools)}
	buildRecall(s, nil, ck)
	return ck.out
}

// RecallPayloadFold is what an encoder keeping a resume state stores: the
// recall of s (decoded back) going on from the previous checkpoint prev,
// the new checkpoint and how many tools prev covered.
func RecallPayloadFold(s *State, prev []byte) (Recall, []byte, int, error) {
	payload, ck, reused, err := recallPayloadFold(s, decodeFoldBytes(prev), true)
	if err != nil {
		return Recall{}, nil, 0, err
	}
	r, err := DecodeRecall(payload)
	return r, ck, reused, err
}

// DecodeCost is what decoding segment payload b of type t would allocate
// by the typed walk unmarshal runs before msgpack, with the segment's
// budget; ok is false when the walk refuses b.
func DecodeCost(b []byte, t ctxfmt.SegmentType) (cost, limit uint64, ok bool) {
	var v any
	switch t {
	case ctxfmt.TypeMetadata:
		v = &metaSegment{}
	case ctxfmt.TypeConversation:
		v = &[]Message{}
	case ctxfmt.TypeToolHistory:
		v = &[]ToolExec{}
	case ctxfmt.TypeCompactions:
		v = &[]Compaction{}
	case ctxfmt.TypePreferences:
		v = &[]Preference{}
	case ctxfmt.TypeTaskState:
		v = &TaskState{}
	default:
		return 0, 0, false
	}
	bud := newBudget(len(b))
	ok = msgpackCost(b, reflect.TypeOf(v).Elem(), &bud)
	return bud.used, bud.limit, ok
}
