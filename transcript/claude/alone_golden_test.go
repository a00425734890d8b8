package claude_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

var update = flag.Bool("update", false, "rewrite the golden files the tests compare against")

// aloneDir holds the archive claude.Save writes of the 11111111 fixture
// (with its subagent file, redaction on) and the texts an import of it
// gives, which package archive/internal/alone reads importing only
// archive.
var aloneDir = filepath.Join("..", "..", "archive", "internal", "alone", "testdata")

// aloneTexts is what claude-save.json holds: every message's text and
// every tool's input and output, as Import gives them.
type aloneTexts struct {
	Messages []string    `json:"messages"`
	Tools    [][2]string `json:"tools"`
}

// TestAloneGolden: the golden archive archive/internal/alone reads is the
// one Save writes now (go test -update rewrites it after a format change).
func TestAloneGolden(t *testing.T) {
	p := filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	opts := archive.EncodeOptions{
		Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelDefault, Now: fixedNow,
		RedactLine: func(l []byte) []byte { return bytes.ReplaceAll(l, []byte("pkg/calc"), []byte("pkg/[REDACTED]")) },
		RedactText: func(s string) string {
			return string(bytes.ReplaceAll([]byte(s), []byte("pkg/calc"), []byte("pkg/[REDACTED]")))
		},
		RedactFingerprint: "alone",
	}
	var buf bytes.Buffer
	st, _, err := claude.Save(context.Background(), &buf, p, archive.ImportOptions{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The reference texts: an import of the stored (redacted) files,
	// every text redacted as the encoder stores it.
	ref, err := claude.ImportFiles(st.Raw, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want aloneTexts
	for _, m := range ref.Messages {
		want.Messages = append(want.Messages, opts.RedactText(m.Text))
	}
	for _, x := range ref.Tools {
		want.Tools = append(want.Tools, [2]string{opts.RedactText(x.Input), opts.RedactText(x.Output)})
	}
	texts, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	ctxPath, jsonPath := filepath.Join(aloneDir, "claude-save.ctx"), filepath.Join(aloneDir, "claude-save.json")
	if *update {
		if err := os.WriteFile(ctxPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(jsonPath, append(texts, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(ctxPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is not the archive Save writes now (go test -run TestAloneGolden -update to rewrite it)", ctxPath)
	}
	gotTexts, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(gotTexts), texts) {
		t.Errorf("%s differs from an import's texts (go test -run TestAloneGolden -update to rewrite it)", jsonPath)
	}
}
