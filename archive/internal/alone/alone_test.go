package alone_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// TestEverySegmentRead: without an importer linked in, the archive holds
// every registered model segment and every accessor reads its segment
// back.
func TestEverySegmentRead(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, lvl := range []ctxfmt.Level{ctxfmt.LevelFastest, ctxfmt.LevelDefault, ctxfmt.LevelMax} {
		st := &archive.State{
			Meta:         archive.Metadata{Harness: "claude", SessionID: "s1", FirstActivity: at, LastActivity: at},
			Messages:     []archive.Message{{ID: "m1", Role: "user", Text: "hi", Timestamp: at}},
			Tools:        []archive.ToolExec{{ID: "t1", Name: "Read", Input: `{}`, Output: "x", Success: true, Timestamp: at}},
			Files:        []archive.FileRecord{{Path: "a.go", Hash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", LastAccess: at}},
			Tasks:        archive.TaskState{Pending: []archive.Task{{Content: "t", Status: "pending"}}},
			Compactions:  []archive.Compaction{{UUID: "c", Summary: "s", Timestamp: at}},
			Preferences:  []archive.Preference{{Kind: "preference", Text: "p", Timestamp: at}},
			Raw:          []archive.RawFile{{Name: "s1.jsonl", Data: []byte("{}\n")}},
			FileContents: []archive.FileContent{{Path: "a.go", Data: []byte("package a\n")}},
		}
		var buf bytes.Buffer
		opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: lvl, RedactText: func(s string) string { return s }, RedactFingerprint: "fp"}
		if err := archive.Encode(context.Background(), &buf, st, opts); err != nil {
			t.Fatal(err)
		}
		a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := a.Container()
		for _, typ := range []ctxfmt.SegmentType{ctxfmt.TypeMetadata, ctxfmt.TypeConversation, ctxfmt.TypeFileRegistry, ctxfmt.TypeToolHistory,
			ctxfmt.TypeTaskState, ctxfmt.TypePreferences, ctxfmt.TypeSummaries, ctxfmt.TypeCompactions, ctxfmt.TypeRawTranscript,
			ctxfmt.TypeFileContents, ctxfmt.TypeRedactionReport} {
			if len(c.Find(typ)) == 0 {
				t.Errorf("level %v: no %s segment", lvl, typ)
			}
		}
		got, err := a.Load()
		if err != nil {
			t.Fatalf("level %v: Load: %v", lvl, err)
		}
		if len(got.Messages) != 1 || got.Tools[0].Output != "x" || got.Files[0].Hash != st.Files[0].Hash || len(got.Tasks.Pending) != 1 ||
			got.Compactions[0].Summary != "s" || got.Preferences[0].Text != "p" || string(got.Raw[0].Data) != "{}\n" || string(got.FileContents[0].Data) != "package a\n" {
			t.Errorf("level %v: Load gave %+v", lvl, got)
		}
		if r, ok, err := a.Recall(); err != nil || !ok || r.Session.SessionID != "s1" {
			t.Errorf("level %v: Recall: %v %v", lvl, ok, err)
		}
	}
}
