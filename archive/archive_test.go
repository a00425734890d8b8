package archive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

const fixtureDir = "../transcript/claude/testdata"
const v2 = "11111111-2222-4333-8444-555555555555"

var fixedNow = func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

func importFile(t testing.TB, p string) *archive.State {
	t.Helper()
	st, err := claude.Import(context.Background(), p, archive.ImportOptions{})
	if err != nil {
		t.Fatalf("import %s: %v", p, err)
	}
	return st
}

func encode(t testing.TB, st *archive.State, opts archive.EncodeOptions) []byte {
	t.Helper()
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	var buf bytes.Buffer
	if err := archive.Encode(context.Background(), &buf, st, opts); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func open(t testing.TB, b []byte, opts archive.OpenOptions) *archive.Archive {
	t.Helper()
	a, err := archive.Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return a
}

// checkRoundTrip loads the archive and compares it with the imported
// State: texts resolved from the raw transcript, raw files byte-exact.
func checkRoundTrip(t *testing.T, st *archive.State, a *archive.Archive) {
	t.Helper()
	got, err := a.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(got.Raw) != len(st.Raw) {
		t.Fatalf("raw files: %d, want %d", len(got.Raw), len(st.Raw))
	}
	for i := range st.Raw {
		if got.Raw[i].Name != st.Raw[i].Name || sha256.Sum256(got.Raw[i].Data) != sha256.Sum256(st.Raw[i].Data) {
			t.Errorf("raw file %d (%s): not byte-identical", i, st.Raw[i].Name)
		}
	}
	if len(got.Messages) != len(st.Messages) || len(got.Tools) != len(st.Tools) {
		t.Fatalf("messages %d/%d tools %d/%d", len(got.Messages), len(st.Messages), len(got.Tools), len(st.Tools))
	}
	for i, m := range st.Messages {
		g := got.Messages[i]
		if g.Text != m.Text || g.ID != m.ID || g.Kind != m.Kind || !g.Timestamp.Equal(m.Timestamp) || !reflect.DeepEqual(g.ToolCallIDs, m.ToolCallIDs) {
			t.Fatalf("message %d: got %+v, want %+v", i, g, m)
		}
	}
	for i, x := range st.Tools {
		g := got.Tools[i]
		if g.Input != x.Input || g.Output != x.Output || g.Success != x.Success || g.Command != x.Command {
			t.Fatalf("tool %d: got %+v, want %+v", i, g, x)
		}
	}
	for i, c := range st.Compactions {
		if got.Compactions[i].Summary != c.Summary || got.Compactions[i].PreTokens != c.PreTokens {
			t.Errorf("compaction %d differs", i)
		}
	}
	if len(got.Files) != len(st.Files) {
		t.Fatalf("files: %d, want %d", len(got.Files), len(st.Files))
	}
	for i, f := range st.Files {
		g := got.Files[i]
		if g.Path != f.Path || g.Hash != f.Hash || g.AccessCount != f.AccessCount || g.Reads != f.Reads || g.Edits != f.Edits || g.Writes != f.Writes || !g.LastAccess.Equal(f.LastAccess) {
			t.Errorf("file %d: %+v, want %+v", i, g, f)
		}
	}
	if !reflect.DeepEqual(got.Tasks.Active, st.Tasks.Active) || !reflect.DeepEqual(got.Tasks.Pending, st.Tasks.Pending) {
		t.Errorf("tasks differ: %+v, want %+v", got.Tasks, st.Tasks)
	}
	if len(got.Preferences) != len(st.Preferences) {
		t.Fatalf("preferences: %d, want %d", len(got.Preferences), len(st.Preferences))
	}
	for i, p := range st.Preferences {
		if g := got.Preferences[i]; g.Text != p.Text || g.Kind != p.Kind || !g.Timestamp.Equal(p.Timestamp) {
			t.Errorf("preference %d: %+v, want %+v", i, g, p)
		}
	}
	if got.Meta.SessionID != st.Meta.SessionID || got.Meta.ContextTokens != st.Meta.ContextTokens || got.Meta.UpdatedAt.IsZero() {
		t.Errorf("meta: %+v", got.Meta)
	}
}

func TestRoundTripFixtures(t *testing.T) {
	// -short: a cheap Argon2id (ctxfmt's tests cover the default cost);
	// make test-long encrypts at the default 64 MiB, three passes.
	var kdf ctxfmt.Argon2Params
	if testing.Short() {
		kdf = ctxfmt.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}
	}
	for _, name := range []string{v2 + ".jsonl", "v1.jsonl", "hostile.jsonl"} {
		t.Run(name, func(t *testing.T) {
			st := importFile(t, filepath.Join(fixtureDir, name))
			for _, opts := range []archive.EncodeOptions{
				{},
				{Codec: ctxfmt.CodecLZ4, ChunkSize: 64},
				{Codec: ctxfmt.CodecNone},
				{Level: ctxfmt.LevelBest, Encryption: &ctxfmt.Encryption{Passphrase: []byte("pw"), Argon2: kdf}},
			} {
				b := encode(t, st, opts)
				oo := archive.OpenOptions{}
				if opts.Encryption != nil {
					oo.Passphrase = []byte("pw")
				}
				checkRoundTrip(t, st, open(t, b, oo))
			}
		})
	}
}

func TestTextsStoredOnce(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	var buf bytes.Buffer
	stats, err := archive.EncodeWithStats(context.Background(), &buf, st, archive.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every text of the fixture is a pointer into its raw line.
	if stats.InlineTexts != 0 || stats.PointerTexts == 0 {
		t.Errorf("stats = %+v: every fixture text should be a pointer", stats)
	}
	// A State built without spans (another importer) is stored inline.
	st2 := *st
	st2.Messages = append([]archive.Message(nil), st.Messages...)
	for i := range st2.Messages {
		st2.Messages[i].TextSpans = nil
	}
	a := open(t, encode(t, &st2, archive.EncodeOptions{}), archive.OpenOptions{})
	ms, err := a.Messages()
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		if ms[i].Text != st.Messages[i].Text {
			t.Fatalf("inline message %d: %q", i, ms[i].Text)
		}
	}
	// A pointer that no longer matches its text is not trusted.
	st3 := *st
	st3.Messages = append([]archive.Message(nil), st.Messages...)
	st3.Messages[0].Text = "changed by hand"
	ms, err = open(t, encode(t, &st3, archive.EncodeOptions{}), archive.OpenOptions{}).Messages()
	if err != nil || ms[0].Text != "changed by hand" {
		t.Fatalf("mismatched pointer: %q, %v", ms[0].Text, err)
	}
}

func TestExportByteExact(t *testing.T) {
	for _, name := range []string{v2 + ".jsonl", "hostile.jsonl"} {
		st := importFile(t, filepath.Join(fixtureDir, name))
		a := open(t, encode(t, st, archive.EncodeOptions{ChunkSize: 100}), archive.OpenOptions{})
		dir := t.TempDir()
		paths, err := a.ExportRaw(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if sha256.Sum256(b) != sha256.Sum256(st.Raw[i].Data) {
				t.Errorf("%s: exported bytes differ", p)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", p, fi.Mode())
			}
		}
		if _, err := a.ExportRaw(dir); !errors.Is(err, archive.ErrExists) {
			t.Errorf("second export: %v, want ErrExists", err)
		}
	}
}

func redactFAIL(line []byte) []byte {
	return bytes.ReplaceAll(line, []byte("FAIL"), []byte("[REDACTED]"))
}

func TestRedaction(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	b := encode(t, st, archive.EncodeOptions{
		RedactLine: redactFAIL,
		RedactText: func(s string) string { return strings.ReplaceAll(s, "FAIL", "[REDACTED]") },
	})
	if bytes.Contains(b, []byte("FAIL")) {
		t.Fatalf("uncompressed secret in archive")
	}
	a := open(t, b, archive.OpenOptions{})
	got, err := a.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got.Raw {
		if bytes.Contains(f.Data, []byte("FAIL")) {
			t.Errorf("raw %s holds the secret", f.Name)
		}
	}
	for _, x := range got.Tools {
		if strings.Contains(x.Output, "FAIL") {
			t.Errorf("tool output holds the secret: %q", x.Output)
		}
	}
	if r := a.Redaction(); !r.Enabled || r.LinesChanged != 1 || r.TextsChanged == 0 {
		t.Errorf("redaction report %+v", r)
	}
	// Messages of untouched lines still resolve from the raw transcript.
	if got.Messages[0].Text != st.Messages[0].Text {
		t.Errorf("first message %q", got.Messages[0].Text)
	}
}

func TestIncremental(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(fixtureDir, v2+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for _, redact := range []bool{false, true} {
		opts := archive.EncodeOptions{ChunkSize: 2048}
		if redact {
			opts.RedactLine = redactFAIL
		}
		first := bytes.Join(lines[:15], nil)
		st1, err := claude.ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: first}}, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		prev := open(t, encode(t, st1, opts), archive.OpenOptions{})
		st2, err := claude.ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: src}}, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Previous = prev
		opts.Now = fixedNow
		var buf bytes.Buffer
		stats, err := archive.EncodeWithStats(context.Background(), &buf, st2, opts)
		if err != nil {
			t.Fatal(err)
		}
		if stats.CopiedSegments == 0 || stats.EncodedBytes >= int64(len(src)) {
			t.Errorf("redact=%v: incremental stats %+v", redact, stats)
		}
		a := open(t, buf.Bytes(), archive.OpenOptions{})
		if redact {
			files, err := a.RawFiles()
			if err != nil {
				t.Fatal(err)
			}
			if want := redactFAIL(src); !bytes.Equal(files[0].Data, want) {
				t.Errorf("incremental redacted raw differs from a full redaction")
			}
			continue
		}
		checkRoundTrip(t, st2, a)
		// A changed prefix is not reused.
		changed := bytes.Replace(src, []byte("Fix the failing"), []byte("Fix the FAILING"), 1)
		st3, err := claude.ImportFiles([]archive.RawFile{{Name: "s.jsonl", Data: changed}}, archive.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		stats, err = archive.EncodeWithStats(context.Background(), &buf, st3, opts)
		if err != nil {
			t.Fatal(err)
		}
		if stats.CopiedSegments != 0 {
			t.Errorf("changed prefix: copied %d segments", stats.CopiedSegments)
		}
		checkRoundTrip(t, st3, open(t, buf.Bytes(), archive.OpenOptions{}))
	}
}

func TestStatusReadsSmallSegments(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	b := encode(t, st, archive.EncodeOptions{})
	// Corrupt every raw and conversation segment: status reads still work.
	a := open(t, b, archive.OpenOptions{})
	for _, s := range a.Container().Segments() {
		if s.Type == ctxfmt.TypeRawTranscript || s.Type == ctxfmt.TypeConversation || s.Type == ctxfmt.TypeToolHistory {
			for k := int64(0); k < int64(s.StoredLen); k++ {
				b[int64(s.Offset)+k] ^= 0xff
			}
		}
	}
	a = open(t, b, archive.OpenOptions{})
	if a.Meta().SessionID != v2 || a.Summary().Compactions != 1 {
		t.Errorf("summary %+v", a.Summary())
	}
	if _, err := a.Tasks(); err != nil {
		t.Errorf("Tasks: %v", err)
	}
	// The boundary facts need no raw segment; the summary text is a
	// pointer into the raw transcript, so reading it fails here.
	if c, err := a.CompactionBoundaries(); err != nil || len(c) != 1 || c[0].Trigger == "" || c[0].PreTokens == 0 || c[0].Summary != "" || len(c[0].SummarySpans) == 0 {
		t.Errorf("CompactionBoundaries: %+v %v", c, err)
	}
	if _, err := a.Compactions(); err == nil {
		t.Errorf("Compactions (summary text) of a corrupt raw transcript: no error")
	}
	if _, err := a.Messages(); err == nil {
		t.Errorf("Messages of a corrupt archive: no error")
	}
	if _, err := a.RawFiles(); err == nil {
		t.Errorf("RawFiles of a corrupt archive: no error")
	}
}

func TestOpenErrors(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	b := encode(t, st, archive.EncodeOptions{})
	for _, n := range []int{0, 10, len(b) / 2, len(b) - 1} {
		if _, err := archive.Open(bytes.NewReader(b[:n]), int64(n), archive.OpenOptions{}); err == nil {
			t.Errorf("Open of %d of %d bytes: no error", n, len(b))
		}
	}
	if _, err := archive.Open(strings.NewReader("garbage"), 7, archive.OpenOptions{}); err == nil {
		t.Errorf("Open of garbage: no error")
	}
	enc := encode(t, st, archive.EncodeOptions{Encryption: &ctxfmt.Encryption{Passphrase: []byte("right")}})
	if _, err := archive.Open(bytes.NewReader(enc), int64(len(enc)), archive.OpenOptions{Passphrase: []byte("wrong")}); err == nil {
		t.Errorf("wrong passphrase: no error")
	}
	// A container without Ben10 metadata.
	var buf bytes.Buffer
	w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(ctxfmt.TypeConversation, []byte{0x90}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{}); !errors.Is(err, archive.ErrNotArchive) {
		t.Errorf("no metadata: %v, want ErrNotArchive", err)
	}
}

func TestDeterministic(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	a, b := encode(t, st, archive.EncodeOptions{}), encode(t, st, archive.EncodeOptions{})
	if !bytes.Equal(a, b) {
		t.Errorf("two encodings of one State differ")
	}
}

func TestStoredRecallGivesDigest(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	a := open(t, encode(t, st, archive.EncodeOptions{}), archive.OpenOptions{})
	r, ok, err := a.Recall()
	if err != nil || !ok {
		t.Fatalf("Recall: ok=%v err=%v", ok, err)
	}
	if want := archive.Digest(archive.BuildRecall(st), archive.DigestOptions{}); archive.Digest(r, archive.DigestOptions{}) != want || want == "" {
		t.Errorf("digest from the stored recall differs from one built from the State")
	}
}

func TestEncoderMisuse(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	other := importFile(t, filepath.Join(fixtureDir, "v1.jsonl"))
	enc, err := archive.NewEncoder(context.Background(), &bytes.Buffer{}, archive.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enc.StartRaw(st.Raw)
	if _, err := enc.Finish(other); err == nil {
		t.Error("Finish accepted a State whose raw files were not the ones started")
	}
	if _, err := enc.Finish(st); err == nil {
		t.Error("second Finish accepted")
	}
	enc, _ = archive.NewEncoder(context.Background(), &bytes.Buffer{}, archive.EncodeOptions{})
	if _, err := enc.Finish(nil); err == nil {
		t.Error("Finish(nil) accepted")
	}
}
