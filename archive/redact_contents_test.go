package archive_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// TestRedactionCoversEverything: with redaction on, no byte of the
// archive holds a secret, wherever the State carries it: the raw
// transcript, model texts, the session title and the captured project
// files (which the encoder's redacted view once skipped). Uncompressed,
// so that the secret would show in the file's bytes.
func TestRedactionCoversEverything(t *testing.T) {
	{
		st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
		st.Meta.Title = "deploy with FAIL"
		st.FileContents = []archive.FileContent{
			{Path: ".env", Data: []byte("TOKEN=FAIL\n")},
			{Path: "README.md", Data: []byte("nothing to hide\n")},
		}
		b := encode(t, st, archive.EncodeOptions{
			Codec:      ctxfmt.CodecNone,
			RedactLine: redactFAIL,
			RedactText: func(s string) string { return strings.ReplaceAll(s, "FAIL", "[REDACTED]") },
		})
		if i := bytes.Index(b, []byte("FAIL")); i >= 0 {
			t.Fatalf("the secret is in the archive at byte %d: %q", i, b[max(0, i-40):i+10])
		}
		a := open(t, b, archive.OpenOptions{})
		fcs, err := a.FileContents()
		if err != nil {
			t.Fatal(err)
		}
		if len(fcs) != 2 || string(fcs[0].Data) != "TOKEN=[REDACTED]\n" || string(fcs[1].Data) != "nothing to hide\n" {
			t.Errorf("file contents %q", fcs)
		}
		if got := a.Meta().Title; got != "deploy with [REDACTED]" {
			t.Errorf("title %q", got)
		}
		if r := a.Redaction(); r.ContentsChanged != 1 {
			t.Errorf("redaction report %+v, want 1 file content changed", r)
		}
	}
}

// TestKeepContents: the captured files EncodeOptions.KeepContents names
// (the user's redaction.allow_paths) are stored as they are; the others
// and the transcript stay redacted.
func TestKeepContents(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	st.FileContents = []archive.FileContent{
		{Path: "testdata/fixture.env", Data: []byte("TOKEN=FAIL\n")},
		{Path: ".env", Data: []byte("TOKEN=FAIL\n")},
	}
	b := encode(t, st, archive.EncodeOptions{
		Codec:        ctxfmt.CodecNone,
		RedactLine:   redactFAIL,
		RedactText:   func(s string) string { return strings.ReplaceAll(s, "FAIL", "[REDACTED]") },
		KeepContents: func(p string) bool { return strings.HasPrefix(p, "testdata/") },
	})
	fcs, err := open(t, b, archive.OpenOptions{}).FileContents()
	if err != nil {
		t.Fatal(err)
	}
	if len(fcs) != 2 || string(fcs[0].Data) != "TOKEN=FAIL\n" || string(fcs[1].Data) != "TOKEN=[REDACTED]\n" {
		t.Errorf("file contents %q, want testdata/ kept and .env redacted", fcs)
	}
}
