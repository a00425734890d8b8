package export

import (
	"math"

	"github.com/ben10ctx/ben10/archive"
)

// Event is one step of the conversation walk; exactly one of its pointers
// is set (Result events also set Tool).
type Event struct {
	Message    *archive.Message
	Tool       *archive.ToolExec // a tool call (Result false) or its result (Result true)
	Result     bool
	ResultText string // for a result carried only by a tool_result message (also in Tool.Output)
	Compaction *archive.Compaction
}

// Walk calls fn for each event of s in conversation order.
func Walk(s *archive.State, fn func(Event) error) error {
	tools := make(map[string]int, len(s.Tools))
	for i, t := range s.Tools {
		if _, dup := tools[t.ID]; !dup {
			tools[t.ID] = i
		}
	}
	// ids whose result a tool_result message carries, and which message.
	lateResult := map[string]int{}
	for i, m := range s.Messages {
		if m.Kind == "tool_result" {
			for _, id := range m.ToolCallIDs {
				if _, ok := lateResult[id]; !ok {
					lateResult[id] = i
				}
			}
		}
	}
	called := make([]bool, len(s.Tools))
	resulted := make([]bool, len(s.Tools))
	// emit passes e to fn until fn fails; the walk then ends with that
	// error.
	var err error
	emit := func(e Event) {
		if err == nil {
			err = fn(e)
		}
	}
	ci := 0
	emitComp := func(before int) {
		for ; ci < len(s.Compactions) && s.Compactions[ci].MessageIndex <= before; ci++ {
			emit(Event{Compaction: &s.Compactions[ci]})
		}
	}
	for i := 0; i < len(s.Messages) && err == nil; i++ {
		emitComp(i)
		m := &s.Messages[i]
		if m.Kind == "tool_result" {
			for _, id := range m.ToolCallIDs {
				ti, ok := tools[id]
				switch {
				case !ok:
					emit(Event{Tool: &archive.ToolExec{ID: id, Output: m.Text, Success: true, Timestamp: m.Timestamp}, Result: true, ResultText: m.Text})
				case !resulted[ti]:
					resulted[ti] = true
					emit(Event{Tool: &s.Tools[ti], Result: true})
				}
			}
			continue
		}
		emit(Event{Message: m})
		for _, id := range m.ToolCallIDs {
			ti, ok := tools[id]
			if !ok || called[ti] {
				continue
			}
			called[ti] = true
			emit(Event{Tool: &s.Tools[ti]})
			if j, late := lateResult[id]; late && j > i {
				continue
			}
			if !resulted[ti] && hasResult(&s.Tools[ti]) {
				resulted[ti] = true
				emit(Event{Tool: &s.Tools[ti], Result: true})
			}
		}
	}
	emitComp(math.MaxInt) // the rest, wherever they point
	for i := range s.Tools {
		if !called[i] {
			emit(Event{Tool: &s.Tools[i]})
		}
		if !resulted[i] && hasResult(&s.Tools[i]) {
			emit(Event{Tool: &s.Tools[i], Result: true})
		}
	}
	return err
}

// hasResult reports a tool execution that finished (it has output or
// its result line is known).
func hasResult(t *archive.ToolExec) bool {
	return t.Output != "" || t.Success || t.ResultRef.Line > 0 || t.ResultRef.File > 0
}
