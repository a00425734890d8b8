package archive

import (
	"github.com/ben10ctx/ben10/archive/internal/mpguard"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// DecodeCost is what decoding segment payload b of type t would allocate
// by the typed walk unmarshal runs before msgpack, and the walk's refusal;
// typed is false for a segment type not decoded by reflection.
func DecodeCost(b []byte, t ctxfmt.SegmentType) (cost uint64, typed bool, err error) {
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
		return 0, false, nil
	}
	cost, err = mpguard.CheckCost(b, v)
	return cost, true, err
}

// RestoreFiles is restoreFiles, for the external restore tests.
var RestoreFiles = restoreFiles

// TypeRecallFold is the refused recall-fold segment type, for tests.
const TypeRecallFold = typeRecallFold
