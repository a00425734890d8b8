package archive_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestCancelled: a cancelled context stops Encode (with and without
// redaction, with a previous archive) and claude.Save with the
// context's error.
func TestCancelled(t *testing.T) {
	p := filepath.Join(fixtureDir, v2+".jsonl")
	st := importFile(t, p)
	prev := open(t, encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: 1024}), archive.OpenOptions{})
	redacting := archive.EncodeOptions{
		Codec: ctxfmt.CodecZstd, RedactFingerprint: "fp",
		RedactLine: func(l []byte) []byte { return l }, RedactText: func(s string) string { return s },
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"Encode", func() error {
			return archive.Encode(ctx, io.Discard, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd})
		}},
		{"Encode, redacting", func() error { return archive.Encode(ctx, io.Discard, st, redacting) }},
		{"Encode on a previous archive", func() error {
			return archive.Encode(ctx, io.Discard, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, ChunkSize: 1024, Previous: prev})
		}},
		{"claude.Save", func() error {
			_, _, err := claude.Save(ctx, io.Discard, p, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd})
			return err
		}},
		{"claude.Save, redacting", func() error {
			_, _, err := claude.Save(ctx, io.Discard, p, archive.ImportOptions{}, redacting)
			return err
		}},
	} {
		if err := c.run(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", c.name, err)
		}
	}
	// The same calls with a live context succeed.
	var buf bytes.Buffer
	if _, _, err := claude.Save(context.Background(), &buf, p, archive.ImportOptions{}, redacting); err != nil {
		t.Fatal(err)
	}
}
