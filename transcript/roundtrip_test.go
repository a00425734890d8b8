package transcript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

// TestArchiveRoundTrip encodes each importer's fixture into a .ctx
// archive, opens it and checks the model and the raw files come back
// unchanged, and that ExportRaw writes every original file byte for byte.
// Codex tool outputs, Gemini CLI and Kimi texts are stored as pointers into
// their raw lines (pointers), not a second time.
func TestArchiveRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		pointers   bool
	}{
		{"codex", "codex/testdata/basic.jsonl", true},
		{"codex-hostile", "codex/testdata/hostile.jsonl", false},
		{"gemini", "gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl", true},
		{"gemini-legacy", "gemini/testdata/session-legacy.json", false},
		{"kimi", "kimi/testdata/share/sessions/2b8c70fb72d8a087e5dee109778f74cf/0b9c5d2e-1111-4a2b-9c3d-000000000001", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := transcript.Import(context.Background(), tc.path, "", archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			stats, err := archive.EncodeWithStats(context.Background(), &buf, s, archive.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.pointers && stats.PointerTexts == 0 {
				t.Error("no text stored as a pointer into its raw line")
			}
			a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			got, err := a.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Messages) != len(s.Messages) || len(got.Tools) != len(s.Tools) {
				t.Fatalf("%d/%d messages, %d/%d tools", len(got.Messages), len(s.Messages), len(got.Tools), len(s.Tools))
			}
			for i := range s.Messages {
				if got.Messages[i].Text != s.Messages[i].Text || got.Messages[i].ID != s.Messages[i].ID {
					t.Errorf("message %d differs", i)
				}
			}
			for i := range s.Tools {
				if got.Tools[i].Output != s.Tools[i].Output || got.Tools[i].Input != s.Tools[i].Input {
					t.Errorf("tool %d differs", i)
				}
			}
			// Times may come back in another location: compare as JSON.
			gj, _ := json.Marshal(got.Tasks)
			sj, _ := json.Marshal(s.Tasks)
			if !bytes.Equal(gj, sj) {
				t.Errorf("tasks\n got %s\nwant %s", gj, sj)
			}
			// Encode stamps UpdatedAt with the time of writing.
			gmeta, smeta := got.Meta, s.Meta
			gmeta.UpdatedAt = smeta.UpdatedAt
			gm, _ := json.Marshal(gmeta)
			sm, _ := json.Marshal(smeta)
			if !bytes.Equal(gm, sm) {
				t.Errorf("meta\n got %s\nwant %s", gm, sm)
			}
			dir := t.TempDir()
			if _, err := a.ExportRaw(dir); err != nil {
				t.Fatal(err)
			}
			for _, r := range s.Raw {
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Name)))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, r.Data) {
					t.Errorf("exported %s differs", r.Name)
				}
			}
		})
	}
}
