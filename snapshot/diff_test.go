package snapshot

import (
	"fmt"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestDiffCountsToolCallsOnce: a tool call appears in two messages (the
// assistant's tool_use and the user's tool_result); the lost spans count
// it once, with its output once.
func TestDiffCountsToolCallsOnce(t *testing.T) {
	for _, n := range []int{1, 3, 159} {
		snap := &archive.State{}
		for i := range n {
			id := fmt.Sprintf("toolu_%d", i)
			snap.Messages = append(snap.Messages,
				archive.Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", ToolCallIDs: []string{id}},
				archive.Message{ID: fmt.Sprintf("r%d", i), Role: "user", Kind: "tool_result", ToolCallIDs: []string{id}})
			snap.Tools = append(snap.Tools, archive.ToolExec{ID: id, Name: "Bash", Output: "0123456789", Success: true})
		}
		cur := &archive.State{Messages: []archive.Message{{ID: "new", Role: "user", Kind: "prompt", Text: "go on"}}}
		r := DiffStates(snap, cur)
		calls, bytes := 0, 0
		for _, s := range r.LostSpans {
			calls += s.ToolCalls
			bytes += s.Bytes
		}
		if calls != n || r.LostToolCount != n || bytes != 10*n {
			t.Errorf("%d tool calls: spans count %d calls and %d output bytes, lost tools %d; want %d, %d", n, calls, bytes, r.LostToolCount, n, 10*n)
		}
	}
}
