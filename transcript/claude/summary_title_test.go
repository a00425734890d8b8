package claude

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestSummaryLinesAreTitles: Claude Code's {"type":"summary"} lines title
// a conversation branch; they are not compactions. Only compact_boundary
// lines count (the demo session has one), and the first summary titles
// the session unless a custom-title line names it.
func TestSummaryLinesAreTitles(t *testing.T) {
	demo, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	summary := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "{\"type\":\"summary\",\"summary\":\"Branch %d\",\"leafUuid\":\"leaf-%d\"}\n", i+1, i)
		}
		return b.Bytes()
	}
	custom := []byte(`{"type":"custom-title","customTitle":"My name for it","sessionId":"5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b"}` + "\n")
	for _, tc := range []struct {
		name        string
		data        []byte
		compactions int
		title       string
	}{
		{"one boundary, three summaries", append(summary(3), demo...), 1, "Branch 1"},
		{"summaries after the conversation", append(append([]byte(nil), demo...), summary(2)...), 1, "Branch 1"},
		{"no boundary, one summary", append(summary(1), demo[:bytes.Index(demo, []byte(`"subtype":"compact_boundary"`))-300]...), 0, "Branch 1"},
		{"custom title wins", append(append(summary(2), custom...), demo...), 1, "My name for it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				data = data[:i+1] // whole lines only
			}
			st, err := ImportFiles([]archive.RawFile{{Name: "5e1f0c2a-8b3d-4e6f-9a7b-1c2d3e4f5a6b.jsonl", Data: data}}, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Compactions) != tc.compactions {
				t.Errorf("%d compactions, want %d", len(st.Compactions), tc.compactions)
			}
			for _, c := range st.Compactions {
				if c.Legacy {
					t.Errorf("a summary line counted as a legacy compaction: %+v", c)
				}
			}
			if st.Meta.Title != tc.title {
				t.Errorf("title %q, want %q", st.Meta.Title, tc.title)
			}
		})
	}
}
