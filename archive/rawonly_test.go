package archive_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// TestRawOnly: a raw-only archive (the raw transcript without the model)
// reads as the direct save of the same files with the same options —
// metadata, counts, conversation, tools, registry, tasks, compactions,
// recall — and re-encodes to that direct save byte for byte, at the
// fastest, default and max levels, with and without redaction.
func TestRawOnly(t *testing.T) {
	raw, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "FAIL"
	plain := archive.EncodeOptions{}
	redacted := archive.EncodeOptions{
		RedactLine:        func(l []byte) []byte { return bytes.ReplaceAll(l, []byte(secret), []byte("[REDACTED]")) },
		RedactText:        func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") },
		RedactFingerprint: "fp-1",
	}
	root := t.TempDir()
	iopt := archive.ImportOptions{ProjectDir: root}
	direct := func(o archive.EncodeOptions, l ctxfmt.Level) []byte {
		t.Helper()
		o.Codec, o.Level, o.Now = ctxfmt.CodecZstd, l, fixedNow
		var buf bytes.Buffer
		if _, _, err := claude.SaveFiles(&buf, raw, iopt, o); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	rawOnly := func(o archive.EncodeOptions, l ctxfmt.Level) []byte {
		t.Helper()
		o.Codec, o.Level, o.Now = ctxfmt.CodecZstd, l, fixedNow
		var buf bytes.Buffer
		if _, err := archive.EncodeRawOnly(&buf, raw, o, archive.RawOnlyOptions{
			Importer: claude.ImporterName, Harness: archive.HarnessClaude, SessionID: v2, Root: root,
		}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name     string
		opts     archive.EncodeOptions
		from, to ctxfmt.Level
	}{
		{"fastest to max", plain, ctxfmt.LevelFastest, ctxfmt.LevelMax},
		{"default to default", plain, ctxfmt.LevelDefault, ctxfmt.LevelDefault},
		{"redacted, fastest to max", redacted, ctxfmt.LevelFastest, ctxfmt.LevelMax},
		{"redacted, default to best", redacted, ctxfmt.LevelDefault, ctxfmt.LevelBest},
		{"redacted, default to fastest", redacted, ctxfmt.LevelDefault, ctxfmt.LevelFastest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := rawOnly(tc.opts, tc.from)
			a := open(t, ro, archive.OpenOptions{})
			p, ok := a.RawOnly()
			if !ok || p.Importer != claude.ImporterName || p.Root != root {
				t.Fatalf("RawOnly() = %+v, %v", p, ok)
			}
			for _, seg := range a.Container().Segments() {
				switch seg.Type {
				case ctxfmt.TypeMetadata, ctxfmt.TypeRawTranscript, ctxfmt.TypeRedactionReport:
				default:
					t.Errorf("raw-only archive holds a %s segment", seg.Type)
				}
			}
			if sm := a.StoredMeta(); sm.SessionID != v2 || sm.MessageCount != 0 || sm.Harness != archive.HarnessClaude {
				t.Errorf("stored metadata %+v", sm)
			}
			full := open(t, direct(tc.opts, tc.from), archive.OpenOptions{})
			sameContent(t, full, a)
			if a.Meta().MessageCount == 0 || a.Meta().MessageCount != full.Meta().MessageCount {
				t.Errorf("messages %d, direct save %d", a.Meta().MessageCount, full.Meta().MessageCount)
			}
			got := reencode(t, a, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: tc.to})
			want := direct(tc.opts, tc.to)
			if !bytes.Equal(got, want) {
				t.Errorf("completed archive: %d bytes, differs from a direct save (%d bytes)", len(got), len(want))
			}
			c := open(t, got, archive.OpenOptions{})
			if _, ok := c.RawOnly(); ok {
				t.Error("the completed archive is still raw-only")
			}
			sameContent(t, a, c)
			if tc.opts.RedactLine != nil {
				for _, x := range []*archive.Archive{a, c} {
					for _, seg := range x.Container().Segments() {
						b, err := x.Container().ReadSegment(seg.Index)
						if err != nil {
							t.Fatal(err)
						}
						if bytes.Contains(b, []byte(secret)) {
							t.Errorf("secret in segment %s", seg.Type)
						}
					}
				}
			}
		})
	}
}

// TestRawOnlySplit: without a previous archive, a raw-only archive stores
// its raw files in chunks of a quarter of the chunk size (compressed on
// several cores at once), and its completion still writes the direct
// save's chunks, byte for byte that save, with and without redaction.
func TestRawOnlySplit(t *testing.T) {
	raw, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "FAIL"
	redactLine := func(l []byte) []byte { return bytes.ReplaceAll(l, []byte(secret), []byte("[REDACTED]")) }
	for _, tc := range []struct {
		name   string
		redact bool
		chunk  int
		to     ctxfmt.Level
	}{
		{"plain, 4 KiB chunks, to default", false, 4 << 10, ctxfmt.LevelDefault},
		{"redacted, 4 KiB chunks, to max", true, 4 << 10, ctxfmt.LevelMax},
		{"redacted, 8 KiB chunks, to default", true, 8 << 10, ctxfmt.LevelDefault},
		{"redacted, 16 KiB chunks (one chunk, split), to best", true, 16 << 10, ctxfmt.LevelBest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelDefault, Now: fixedNow, ChunkSize: tc.chunk}
			if tc.redact {
				o.RedactLine, o.RedactFingerprint = redactLine, "fp-1"
			}
			var buf bytes.Buffer
			if _, err := archive.EncodeRawOnly(&buf, raw, o, archive.RawOnlyOptions{Importer: claude.ImporterName, Harness: archive.HarnessClaude, SessionID: v2}); err != nil {
				t.Fatal(err)
			}
			a := open(t, buf.Bytes(), archive.OpenOptions{})
			direct := func(l ctxfmt.Level) []byte {
				t.Helper()
				o := o
				o.Level = l
				var b bytes.Buffer
				if _, _, err := claude.SaveFiles(&b, raw, archive.ImportOptions{}, o); err != nil {
					t.Fatal(err)
				}
				return b.Bytes()
			}
			full := open(t, direct(ctxfmt.LevelDefault), archive.OpenOptions{})
			segs, fullSegs := a.RawFileInfos()[0].Segments, full.RawFileInfos()[0].Segments
			// Chunks end at the line that reaches their size.
			if most := (len(raw[0].Data) + tc.chunk/4 - 1) / (tc.chunk / 4); segs > most || segs <= fullSegs {
				t.Errorf("raw-only archive stores the main file in %d segments (direct save %d, at most %d expected)", segs, fullSegs, most)
			}
			sameContentCut(t, full, a, false)
			got := reencode(t, a, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: tc.to})
			if want := direct(tc.to); !bytes.Equal(got, want) {
				t.Errorf("completed archive: %d bytes, differs from a direct save (%d bytes)", len(got), len(want))
			}
			c := open(t, got, archive.OpenOptions{})
			if n := c.RawFileInfos()[0].Segments; n != fullSegs {
				t.Errorf("completed archive: main file in %d segments, direct save %d", n, fullSegs)
			}
			sameContentCut(t, a, c, false)
			// A save on top of the raw-only archive copies its small
			// chunks (their hashes of the original bytes match).
			grown := append(append([]byte(nil), raw[0].Data...), `{"type":"user","message":{"role":"user","content":"one more"}}`+"\n"...)
			files := append([]archive.RawFile{{Name: raw[0].Name, Data: grown}}, raw[1:]...)
			next := o
			next.Previous = a
			var nb bytes.Buffer
			_, stats, err := claude.SaveFiles(&nb, files, archive.ImportOptions{}, next)
			if err != nil {
				t.Fatal(err)
			}
			if stats.CopiedSegments < segs-1 {
				t.Errorf("a save on top of the raw-only archive copied %d of its %d raw segments", stats.CopiedSegments, segs)
			}
			if tc.redact {
				for _, seg := range a.Container().Segments() {
					b, err := a.Container().ReadSegment(seg.Index)
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Contains(b, []byte(secret)) {
						t.Errorf("secret in segment %s", seg.Type)
					}
				}
			}
		})
	}
}

// TestRawOnlyBuildsOnPrevious: a raw-only archive written on top of an
// earlier archive of the same transcript copies its unchanged raw
// segments, and still reads and completes as a direct save.
func TestRawOnlyBuildsOnPrevious(t *testing.T) {
	raw, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A previous archive of the same files, cut in small chunks so that
	// its leading chunks can be copied.
	o := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelDefault, Now: fixedNow, ChunkSize: 4 << 10}
	var prevBuf bytes.Buffer
	if _, _, err := claude.SaveFiles(&prevBuf, raw, archive.ImportOptions{}, o); err != nil {
		t.Fatal(err)
	}
	prev := open(t, prevBuf.Bytes(), archive.OpenOptions{})
	o.Previous = prev
	var buf bytes.Buffer
	stats, err := archive.EncodeRawOnly(&buf, raw, o, archive.RawOnlyOptions{Importer: claude.ImporterName, Harness: archive.HarnessClaude, SessionID: v2})
	if err != nil {
		t.Fatal(err)
	}
	if stats.CopiedSegments == 0 {
		t.Errorf("no raw segment copied from the previous archive: %+v", stats)
	}
	a := open(t, buf.Bytes(), archive.OpenOptions{})
	sameContent(t, prev, a)
	c := open(t, reencode(t, a, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax}), archive.OpenOptions{})
	sameContent(t, prev, c)
}

// TestRawOnlyRefused: EncodeRawOnly writes nothing it cannot complete.
func TestRawOnlyRefused(t *testing.T) {
	raw, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		files []archive.RawFile
		opts  archive.EncodeOptions
		ro    archive.RawOnlyOptions
	}{
		"no importer":      {raw, archive.EncodeOptions{}, archive.RawOnlyOptions{Importer: "nobody"}},
		"texts one by one": {raw, archive.EncodeOptions{RedactText: strings.ToUpper}, archive.RawOnlyOptions{Importer: claude.ImporterName}},
		"no files":         {nil, archive.EncodeOptions{}, archive.RawOnlyOptions{Importer: claude.ImporterName}},
		"unnamed importer": {raw, archive.EncodeOptions{}, archive.RawOnlyOptions{}},
		"level max":        {raw, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax}, archive.RawOnlyOptions{Importer: claude.ImporterName}},
	} {
		var buf bytes.Buffer
		if _, err := archive.EncodeRawOnly(&buf, tc.files, tc.opts, tc.ro); !errors.Is(err, archive.ErrRawOnly) {
			t.Errorf("%s: %v, want ErrRawOnly", name, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written", name, buf.Len())
		}
	}
}
