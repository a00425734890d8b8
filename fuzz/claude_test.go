package fuzz

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

func addClaudeSeeds(f *testing.F) {
	dir := filepath.Join("..", "transcript", "claude", "testdata")
	for _, n := range []string{"11111111-2222-4333-8444-555555555555.jsonl", "v1.jsonl", "hostile.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"\ud800"}]}]}}`))
	f.Add([]byte("{\"type\":\"assistant\",\"message\":{\"content\":[[[[[[[[\n"))
}

// FuzzClaudeImport: any input imports without panicking, every text
// pointer resolves to its text, and the archive round-trips the raw bytes.
func FuzzClaudeImport(f *testing.F) {
	addClaudeSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := claude.ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: data}}, archive.ImportOptions{})
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{ChunkSize: 256}); err != nil {
			t.Fatalf("Encode: %v", err)
		}
		a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		got, err := a.Load()
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if !bytes.Equal(got.Raw[0].Data, data) {
			t.Fatalf("raw bytes differ")
		}
		for i, m := range st.Messages {
			if got.Messages[i].Text != m.Text {
				t.Fatalf("message %d text %q, want %q", i, got.Messages[i].Text, m.Text)
			}
		}
		for i, x := range st.Tools {
			if got.Tools[i].Input != x.Input || got.Tools[i].Output != x.Output {
				t.Fatalf("tool %d differs", i)
			}
		}
	})
}

// FuzzArchiveOpen: any bytes open, load and export without panicking or
// allocating without bound.
func FuzzArchiveOpen(f *testing.F) {
	dir := filepath.Join("..", "transcript", "claude", "testdata")
	if st, err := claude.Import(context.Background(), filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{}); err == nil {
		var buf bytes.Buffer
		if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{ChunkSize: 1024}); err == nil {
			f.Add(buf.Bytes())
		}
		buf.Reset()
		if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{ChunkSize: 1024, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest}); err == nil {
			f.Add(buf.Bytes())
		}
	}
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.OpenOptions{MaxSegmentSize: 1 << 24})
		if err != nil {
			return
		}
		_ = a.Summary()
		_, _ = a.Load()
		_, _, _ = a.Recall()
		if _, err := a.ExportRaw(filepath.Join(t.TempDir(), "x")); err != nil {
			return
		}
	})
}
