package archive

import "testing"

// Any bytes as a recall-fold checkpoint: decoded or refused, never a
// panic; a decoded one encodes back to the same bytes.
func FuzzRecallFoldDecode(f *testing.F) {
	st := &State{Meta: Metadata{DirectoryPath: "/p"}, Tools: []ToolExec{
		{Name: "Bash", Input: `{"command":"go test"}`, Output: "Error: x", Command: "go test"},
		{Name: "Read", Input: `{"file_path":"/p/a.go"}`, Success: true, Output: "ok"},
	}}
	ck := &checkpoint{at: 2}
	buildRecall(st, nil, ck)
	f.Add(ck.out)
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		fold, text, skel, err := decodeFold(b)
		if err != nil {
			return
		}
		if again := fold.appendCheckpoint(nil, text, skel); string(again) != string(b) {
			// Maps may hold an entry twice in the input (the later one
			// wins): then the re-encoding is shorter, never different
			// otherwise.
			if len(again) >= len(b) {
				t.Fatalf("re-encoded %x, was %x", again, b)
			}
		}
	})
}
