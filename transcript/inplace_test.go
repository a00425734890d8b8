package transcript_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript"
)

// madeUpSecret matches the secrets benchdata.WithSecrets writes.
var madeUpSecret = regexp.MustCompile(`ghp_[A-Za-z0-9]{36}|AKIA[A-Z2-7]{16}|sk-ant-api03-[A-Za-z0-9]{48}`)

// TestSaveOtherAssistantsRedactInPlace: a save of a Codex, Gemini CLI or
// Kimi session with redaction (archive.EncodeOwned) writes the same bytes
// as an encode that copies the raw files (archive.EncodeWithStats of the
// same import), its State's raw files are the stored bytes, and no
// planted secret is left in them or in any segment of the archive.
func TestSaveOtherAssistantsRedactInPlace(t *testing.T) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := archive.EncodeOptions{
		Codec: ctxfmt.CodecZstd, Now: func() time.Time { return now }, RedactFingerprint: "test",
		RedactLine: func(l []byte) []byte { out, _ := r.JSONLine(l); return out },
		RedactText: func(s string) string { out, _ := r.String(s); return out },
	}
	kimiDir := filepath.Join("kimi", "sessions", "10a34c31ebe8af621d6b7d69cb54f54b")
	for _, c := range []struct {
		h     archive.Harness
		files map[string]string // testdata file → its name in the session
		main  string
	}{
		{archive.HarnessCodex, map[string]string{"codex/testdata/basic.jsonl": "rollout.jsonl"}, "rollout.jsonl"},
		{archive.HarnessGemini, map[string]string{"gemini/testdata/session-2026-04-23T12-00-5e550001.jsonl": "session.jsonl"}, "session.jsonl"},
		{archive.HarnessKimi, map[string]string{
			"kimi/testdata/flat/sessions/10a34c31ebe8af621d6b7d69cb54f54b/0a1b2c3d-1111-2222-3333-444455556666.jsonl":        filepath.Join(kimiDir, "0a1b2c3d-1111-2222-3333-444455556666.jsonl"),
			"kimi/testdata/flat/sessions/10a34c31ebe8af621d6b7d69cb54f54b/0a1b2c3d-1111-2222-3333-444455556666_read_1.jsonl": filepath.Join(kimiDir, "0a1b2c3d-1111-2222-3333-444455556666_read_1.jsonl"),
		}, filepath.Join(kimiDir, "0a1b2c3d-1111-2222-3333-444455556666.jsonl")},
	} {
		t.Run(string(c.h), func(t *testing.T) {
			dir := t.TempDir()
			var secrets [][]byte
			for src, name := range c.files {
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				data := benchdata.WithSecrets(benchdata.Repeat(b, 64<<10), 2)
				secrets = append(secrets, madeUpSecret.FindAll(data, -1)...)
				write(t, filepath.Join(dir, name), string(data))
			}
			if len(secrets) < 10 {
				t.Fatalf("%d secrets planted", len(secrets))
			}
			p := filepath.Join(dir, c.main)
			var got bytes.Buffer
			st, stats, err := transcript.Save(context.Background(), &got, p, c.h, archive.ImportOptions{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if stats.Redaction.LinesChanged == 0 {
				t.Fatal("redaction changed no line: the test proves nothing")
			}
			ref, err := transcript.Import(context.Background(), p, c.h, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if _, err := archive.EncodeWithStats(context.Background(), &want, ref, opts); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatal("the archive differs from the one an encode that copies the raw files writes")
			}
			a, err := archive.Open(bytes.NewReader(got.Bytes()), int64(got.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := a.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != len(st.Raw) {
				t.Fatalf("%d raw files stored, the State has %d", len(raw), len(st.Raw))
			}
			for i := range raw {
				if !bytes.Equal(raw[i].Data, st.Raw[i].Data) {
					t.Fatalf("the State's raw file %s is not the bytes stored", st.Raw[i].Name)
				}
			}
			cr, err := ctxfmt.NewReader(bytes.NewReader(got.Bytes()), int64(got.Len()), ctxfmt.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			parts := [][]byte{got.Bytes()}
			for _, f := range st.Raw {
				parts = append(parts, f.Data)
			}
			for i := range cr.NumSegments() {
				seg, err := cr.ReadSegment(i)
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, seg)
			}
			for _, s := range secrets {
				for _, part := range parts {
					if bytes.Contains(part, s) {
						t.Fatalf("the secret %s is left in the State's raw files or the archive", s)
					}
				}
			}
		})
	}
}
