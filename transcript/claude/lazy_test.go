package claude_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/redact"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestSaveLazyOutputs: Save's State leaves undecoded exactly the tool
// outputs the recall does not read (ModelSource.Lazy), each still
// located by its spans; everything else is Import's State; the archive
// holds every output (Tools after Open equals Import's).
func TestSaveLazyOutputs(t *testing.T) {
	paths := append(claudeCorpus(t), filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl"))
	r := redact.Default()
	lazy := 0
	for _, p := range paths {
		for _, red := range []bool{false, true} {
			opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Now: fixedNow}
			if red {
				opts.RedactLine = func(l []byte) []byte { o, _ := r.JSONLine(l); return o }
				opts.RedactText = func(s string) string { o, _ := r.String(s); return o }
				opts.RedactFingerprint = "test"
			}
			var buf bytes.Buffer
			st, _, err := claude.Save(context.Background(), &buf, p, archive.ImportOptions{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Source.Lazy {
				t.Fatalf("%s: Save's State is not marked Lazy", p)
			}
			// The reference: Import of the bytes the model was built from.
			ref, err := claude.ImportFiles(st.Raw, archive.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ref.Source.Lazy {
				t.Fatalf("%s: ImportFiles' State is marked Lazy", p)
			}
			if len(ref.Tools) != len(st.Tools) {
				t.Fatalf("%s: %d tools, Import has %d", p, len(st.Tools), len(ref.Tools))
			}
			for i := range st.Tools {
				got, want := st.Tools[i], ref.Tools[i]
				if _, out := archive.RecallTexts(&want); got.Output == "" && want.Output != "" {
					if out {
						t.Fatalf("%s: tool %d (%s): output the recall reads left undecoded", p, i, want.Name)
					}
					line := lineOf(st.Raw[got.ResultRef.File].Data, got.ResultRef.Line)
					if s, ok := archive.SpanText(line, got.OutputSpans); !ok || s != want.Output {
						t.Fatalf("%s: tool %d: spans of the undecoded output do not give it", p, i)
					}
					got.Output = want.Output
					lazy++
				}
				if !equalTool(got, want) {
					t.Fatalf("%s: tool %d differs from Import's:\n%+v\n%+v", p, i, got, want)
				}
			}
			a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tools, err := a.Tools()
			if err != nil {
				t.Fatal(err)
			}
			for i := range tools {
				if tools[i].Output != ref.Tools[i].Output {
					t.Fatalf("%s: archived tool %d output differs from Import's", p, i)
				}
			}
		}
	}
	if lazy == 0 {
		t.Fatal("no output left undecoded")
	}
}

// TestLazyStateChangedFails: a Lazy State changed after import cannot be
// stored whole (its undecoded outputs would be lost): Encode fails.
func TestLazyStateChangedFails(t *testing.T) {
	p := filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	st, _, err := claude.Save(context.Background(), io.Discard, p, archive.ImportOptions{}, archive.EncodeOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Messages) == 0 {
		t.Fatal("fixture has no message")
	}
	st.Messages[0].Text += " changed"
	err = archive.Encode(io.Discard, st, archive.EncodeOptions{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), "Lazy") {
		t.Fatalf("Encode of a changed Lazy State: %v, want an error naming ModelSource.Lazy", err)
	}
}

func lineOf(data []byte, n int) []byte {
	for ; n > 0; n-- {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return bytes.TrimSuffix(data, []byte("\r"))
}

func equalTool(a, b archive.ToolExec) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Input == b.Input && a.Output == b.Output &&
		a.Success == b.Success && a.DurationMS == b.DurationMS && a.Timestamp.Equal(b.Timestamp) &&
		strings.Join(a.RelatedFiles, "\x00") == strings.Join(b.RelatedFiles, "\x00") &&
		a.Command == b.Command && a.Sidechain == b.Sidechain && a.Ref == b.Ref && a.ResultRef == b.ResultRef &&
		len(a.OutputSpans) == len(b.OutputSpans) && len(a.InputSpans) == len(b.InputSpans)
}
