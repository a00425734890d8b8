package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/export"
	"github.com/ben10ctx/ben10/transcript"
)

// exportFormats are the formats `context export` writes from the model
// (jsonl, the raw files, is handled by runContextExport itself).
var exportFormats = map[string]func(io.Writer, *archive.State) error{
	"cusf":     export.CUSF,
	"markdown": export.Markdown,
	"md":       export.Markdown,
	"json":     export.JSON,
}

// loadForExport reads FILE as a .ctx archive, or, when it is not one, as
// an assistant's session file (detected).
func loadForExport(ctx context.Context, path, passFile string) (*archive.State, error) {
	head := make([]byte, len(ctxfmt.Magic))
	if f, err := os.Open(path); err == nil {
		_, _ = io.ReadFull(f, head)
		f.Close()
	} else {
		return nil, err
	}
	if bytes.Equal(head, ctxfmt.Magic[:]) {
		a, err := openArchive(path, passFile)
		if err != nil {
			return nil, err
		}
		defer a.Close()
		return a.Load()
	}
	if _, err := transcript.Detect(path); err != nil {
		return nil, fmt.Errorf("%s is neither a .ctx archive nor a session file ben10 recognizes: %w", path, err)
	}
	return transcript.Import(ctx, path, "", archive.ImportOptions{})
}

// runFormattedExport writes FILE in format (cusf, markdown, json) to out
// (atomically) or, when out is "", to stdout.
func runFormattedExport(ctx context.Context, g *globalOptions, stdout io.Writer, path, format, out, passFile string) error {
	write, ok := exportFormats[format]
	if !ok {
		return fmt.Errorf("export format %q not supported (jsonl, cusf, markdown, json)", format)
	}
	st, err := loadForExport(ctx, path, passFile)
	if err != nil {
		return err
	}
	if out == "" {
		return write(stdout, st)
	}
	n, err := writeAtomic(out, func(w io.Writer) error { return write(w, st) })
	if err != nil {
		return err
	}
	return g.result(stdout, map[string]any{"path": out, "format": format, "bytes": n}, "wrote %s (%s, %d bytes)\n", out, format, n)
}

// resolveHarness checks `context save --harness`: "" (detect) stays "";
// an unknown name is a usage error; a name that contradicts what the file
// is (when its format can be told) is refused rather than importing
// nothing.
func resolveHarness(flag, path string) (archive.Harness, error) {
	if flag == "" {
		return "", nil
	}
	h, err := transcript.ParseHarness(flag)
	if err != nil {
		return "", fmt.Errorf("--harness: %w", err)
	}
	if d, err := transcript.Detect(path); err == nil && d != h {
		return "", fmt.Errorf("--harness %s: %s is a %s session; drop --harness to detect it, or name the right one", flag, path, d)
	}
	return h, nil
}
