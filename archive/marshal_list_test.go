package archive

import (
	"bytes"
	"testing"
	"time"
)

// TestMarshalList: a list, encoded element by element, has exactly the
// bytes of its elements' slice (the conversation and tool history
// segments did not change when the encoder stopped copying them whole).
func TestMarshalList(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	msgs := []Message{
		{ID: "a", Role: "user", Text: "hello", Timestamp: ts, Ref: RawRef{Line: 1}},
		{ID: "b", ParentID: "a", Role: "assistant", Kind: "tool_use", Tokens: 12, ToolCallIDs: []string{"t1"},
			Files: []string{"x.go"}, Sidechain: true, AgentID: "ag", TextSpans: []Span{{Off: 3, Len: 9}}},
		{},
	}
	tools := []ToolExec{
		{ID: "t1", Name: "Bash", Input: `{"command":"ls"}`, Output: "x.go", Success: true, Timestamp: ts,
			InputSpans: []Span{{Off: 1, Len: 2, Verbatim: true}}},
		{},
	}
	for _, tc := range []struct {
		name  string
		slice any
		l     list
	}{
		{"messages", msgs, list{len(msgs), func(i int) any { m := msgs[i]; return &m }}},
		{"tools", tools, list{len(tools), func(i int) any { t := tools[i]; return &t }}},
		{"empty", []Message{}, list{0, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := marshal(tc.slice)
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshal(tc.l)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("list bytes differ from the slice's:\n got %x\nwant %x", got, want)
			}
		})
	}
}
