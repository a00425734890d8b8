package alone_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// TestReadsClaudeSave: an archive claude.Save wrote (testdata/claude-save.ctx,
// kept in step by transcript/claude's TestAloneGolden; redacted, with a
// subagent file) reads whole in a program that imports only archive: its
// conversation and tool history give every text an import of its raw
// transcript gives (testdata/claude-save.json), with no importer linked in.
func TestReadsClaudeSave(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "claude-save.ctx"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile(filepath.Join("testdata", "claude-save.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Messages []string    `json:"messages"`
		Tools    [][2]string `json:"tools"`
	}
	if err := json.Unmarshal(j, &want); err != nil {
		t.Fatal(err)
	}
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := a.Messages()
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	ts, err := a.Tools()
	if err != nil {
		t.Fatalf("Tools: %v", err)
	}
	if len(ms) != len(want.Messages) || len(ts) != len(want.Tools) || len(ms) != a.Meta().MessageCount || len(ts) != a.Meta().ToolCount {
		t.Fatalf("%d messages and %d tools, want %d and %d (metadata %d and %d)",
			len(ms), len(ts), len(want.Messages), len(want.Tools), a.Meta().MessageCount, a.Meta().ToolCount)
	}
	if len(ms) == 0 || len(ts) == 0 || !a.Redaction().Enabled || len(a.RawFileInfos()) < 2 {
		t.Fatalf("fixture: %d messages, %d tools, redaction %+v, %d raw files", len(ms), len(ts), a.Redaction(), len(a.RawFileInfos()))
	}
	for i, m := range ms {
		if m.Text != want.Messages[i] {
			t.Errorf("message %d: %q, want %q", i, m.Text, want.Messages[i])
		}
	}
	outputs := 0
	for i, x := range ts {
		if x.Input != want.Tools[i][0] || x.Output != want.Tools[i][1] {
			t.Errorf("tool %d: %q → %q, want %q → %q", i, x.Input, x.Output, want.Tools[i][0], want.Tools[i][1])
		}
		if x.Output != "" {
			outputs++
		}
	}
	if outputs == 0 {
		t.Error("no tool output read back")
	}
	if _, err := a.Load(); err != nil {
		t.Errorf("Load: %v", err)
	}
}
