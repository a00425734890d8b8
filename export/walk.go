package export

import (
	"github.com/ben10ctx/ben10/archive"
)

// Event is one step of the conversation walk; exactly one of its pointers
// is set (Result events also set Tool).
type Event struct {
	Message    *archive.Message
	Tool       *archive.ToolExec // a tool call (Result false) or its result (Result true)
	Result     bool
	ResultText string // for a result carried only by a tool_result message
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
	ci := 0
	emitComp := func(before int) error {
		for ci < len(s.Compactions) && s.Compactions[ci].MessageIndex <= before {
			if err := fn(Event{Compaction: &s.Compactions[ci]}); err != nil {
				return err
			}
			ci++
		}
		return nil
	}
	for i := range s.Messages {
		if err := emitComp(i); err != nil {
			return err
		}
		m := &s.Messages[i]
		if m.Kind == "tool_result" {
			for _, id := range m.ToolCallIDs {
				ti, ok := tools[id]
				if !ok {
					if err := fn(Event{Tool: &archive.ToolExec{ID: id, Output: m.Text, Success: true, Timestamp: m.Timestamp}, Result: true, ResultText: m.Text}); err != nil {
						return err
					}
					continue
				}
				if resulted[ti] {
					continue
				}
				resulted[ti] = true
				if err := fn(Event{Tool: &s.Tools[ti], Result: true}); err != nil {
					return err
				}
			}
			continue
		}
		if err := fn(Event{Message: m}); err != nil {
			return err
		}
		for _, id := range m.ToolCallIDs {
			ti, ok := tools[id]
			if !ok || called[ti] {
				continue
			}
			called[ti] = true
			if err := fn(Event{Tool: &s.Tools[ti]}); err != nil {
				return err
			}
			if j, late := lateResult[id]; late && j > i {
				continue
			}
			if !resulted[ti] && hasResult(&s.Tools[ti]) {
				resulted[ti] = true
				if err := fn(Event{Tool: &s.Tools[ti], Result: true}); err != nil {
					return err
				}
			}
		}
	}
	if err := emitComp(len(s.Messages)); err != nil {
		return err
	}
	for ; ci < len(s.Compactions); ci++ {
		if err := fn(Event{Compaction: &s.Compactions[ci]}); err != nil {
			return err
		}
	}
	for i := range s.Tools {
		if !called[i] {
			if err := fn(Event{Tool: &s.Tools[i]}); err != nil {
				return err
			}
		}
		if !resulted[i] && hasResult(&s.Tools[i]) {
			if err := fn(Event{Tool: &s.Tools[i], Result: true}); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasResult reports a tool execution that finished (it has output or
// its result line is known).
func hasResult(t *archive.ToolExec) bool {
	return t.Output != "" || t.Success || t.ResultRef.Line > 0 || t.ResultRef.File > 0
}
