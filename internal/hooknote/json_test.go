package hooknote

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReadStateSentinel: a state file encoding/json refuses is
// ErrStateCorrupt, and a refused stdin ErrBadInput.
func TestReadStateSentinel(t *testing.T) {
	for _, c := range []string{`{"version":`, `[]`, `{"sessions":{"a":1}}`, `{"version":"1"}`, "\xff"} {
		root := t.TempDir()
		if err := writeState(root, []byte(c)); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadState(root); !errors.Is(err, ErrStateCorrupt) {
			t.Fatalf("%q: ReadState error %v, want ErrStateCorrupt", c, err)
		}
	}
	for _, c := range []string{`{"cwd":`, `[]`, `{"cwd":1}`, `{"duration_ms":"1"}`, "\xff", `{"source":"a"} x`} {
		if _, err := ParseInput([]byte(c)); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%q: ParseInput error %v, want ErrBadInput", c, err)
		}
	}
}

// TestStateFileFormat: hook-state.json as UpdateState writes it, byte
// for byte (json.MarshalIndent with a one-space indent, HTML characters
// escaped, a final newline), and read back.
func TestStateFileFormat(t *testing.T) {
	root := t.TempDir()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	err := UpdateState(root, "/p<&>", at, func(s *State) error {
		s.Sessions["s1"] = &SessionState{LastEvent: at, Prompts: 2}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, StateName))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
 "version": 1,
 "project": "/p\u003c\u0026\u003e",
 "sessions": {
  "s1": {
   "last_event": "2026-01-02T03:04:05.000000006Z",
   "prompts": 2,
   "prompts_since_checkpoint": 0,
   "modifications_since_checkpoint": 0,
   "checkpoints": 0,
   "snapshots": 0
  }
 },
 "recoveries": null
}
`
	if string(b) != want {
		t.Fatalf("hook-state.json:\n%s\nwant:\n%s", b, want)
	}
	s, err := ReadState(root)
	if err != nil || s.Project != "/p<&>" || s.Sessions["s1"] == nil || s.Sessions["s1"].Prompts != 2 || !s.Sessions["s1"].LastEvent.Equal(at) {
		t.Fatalf("read back: %+v, %v", s, err)
	}
}
