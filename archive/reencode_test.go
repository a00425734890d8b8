package archive_test

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// sameContent fails t unless a and b hold the same content, component by
// component: metadata, import and redaction reports, raw files byte for
// byte (names, sizes, SHA-256), conversation, tool history, file
// registry, task state, compactions (summaries resolved), preferences,
// recall, file contents and the model source.
func sameContent(t *testing.T, a, b *archive.Archive) {
	t.Helper()
	eq := func(what string, x, y any) {
		t.Helper()
		if !reflect.DeepEqual(utcTimes(x), utcTimes(y)) {
			t.Errorf("%s differs:\n got %+v\nwant %+v", what, y, x)
		}
	}
	eq("metadata", a.Meta(), b.Meta())
	eq("import report", a.ImportReport(), b.ImportReport())
	eq("redaction report", a.Redaction(), b.Redaction())
	eq("redaction fingerprint", a.RedactionFingerprint(), b.RedactionFingerprint())
	sa, sb := a.Summary(), b.Summary()
	sa.RawFiles, sb.RawFiles = nil, nil
	eq("summary", sa, sb)
	ia, ib := a.RawFileInfos(), b.RawFileInfos()
	if len(ia) != len(ib) {
		t.Fatalf("raw files: %d, want %d", len(ib), len(ia))
	}
	for i := range ia {
		if ia[i].Name != ib[i].Name || ia[i].Size != ib[i].Size || ia[i].SHA256 != ib[i].SHA256 || ia[i].Segments != ib[i].Segments {
			t.Errorf("raw file %d: %+v, want %+v", i, ib[i], ia[i])
		}
	}
	call := func(what string, f func(*archive.Archive) (any, error)) {
		t.Helper()
		x, err := f(a)
		if err != nil {
			t.Fatalf("%s of the original: %v", what, err)
		}
		y, err := f(b)
		if err != nil {
			t.Fatalf("%s of the re-encoded archive: %v", what, err)
		}
		eq(what, x, y)
	}
	call("raw files", func(a *archive.Archive) (any, error) { return a.RawFiles() })
	call("messages", func(a *archive.Archive) (any, error) { return a.Messages() })
	call("tools", func(a *archive.Archive) (any, error) { return a.Tools() })
	call("files", func(a *archive.Archive) (any, error) { return a.Files() })
	call("tasks", func(a *archive.Archive) (any, error) { return a.Tasks() })
	call("compactions", func(a *archive.Archive) (any, error) { return a.Compactions() })
	call("preferences", func(a *archive.Archive) (any, error) { return a.Preferences() })
	call("file contents", func(a *archive.Archive) (any, error) { return a.FileContents() })
	call("recall", func(a *archive.Archive) (any, error) {
		r, ok, err := a.Recall()
		return struct {
			R  archive.Recall
			OK bool
		}{r, ok}, err
	})
}

// utcTimes returns a copy of x with every reachable time.Time in UTC
// (archives of older builds decode some times in the local zone).
func utcTimes(x any) any {
	if x == nil {
		return nil
	}
	v := reflect.New(reflect.TypeOf(x)).Elem()
	v.Set(reflect.ValueOf(x))
	setUTC(v)
	return v.Interface()
}

var timeType = reflect.TypeOf(time.Time{})

func setUTC(v reflect.Value) {
	switch {
	case v.Type() == timeType:
		if v.CanSet() {
			v.Set(reflect.ValueOf(v.Interface().(time.Time).UTC()))
		}
	case v.Kind() == reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			setUTC(c.Elem())
			if v.CanSet() {
				v.Set(c)
			}
		}
	case v.Kind() == reflect.Slice:
		if !v.IsNil() && v.CanSet() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			v.Set(c)
		}
		for i := range v.Len() {
			setUTC(v.Index(i))
		}
	case v.Kind() == reflect.Array:
		for i := range v.Len() {
			setUTC(v.Index(i))
		}
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				setUTC(v.Field(i))
			}
		}
	}
}

func reencode(t testing.TB, a *archive.Archive, opts archive.ReencodeOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := a.Reencode(context.Background(), &buf, opts); err != nil {
		t.Fatalf("Reencode: %v", err)
	}
	b := buf.Bytes()
	if err := ctxfmt.Verify(bytes.NewReader(b), int64(len(b)), ctxfmt.VerifyOptions{Deep: true, Passphrase: passOf(opts)}); err != nil {
		t.Fatalf("re-encoded archive does not verify: %v", err)
	}
	return b
}

func passOf(o archive.ReencodeOptions) []byte {
	if o.Encryption == nil {
		return nil
	}
	return o.Encryption.Passphrase
}

// TestReencodeEqualsDirectSave: an archive written at the fastest level
// and re-encoded at another level holds the same content and is byte for
// byte the archive a direct save at that level writes (pointers kept),
// with and without redaction and file contents; from a max archive to
// the default level too.
func TestReencodeEqualsDirectSave(t *testing.T) {
	raw, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "FAIL"
	redacted := archive.EncodeOptions{
		RedactLine:        func(l []byte) []byte { return bytes.ReplaceAll(l, []byte(secret), []byte("[REDACTED]")) },
		RedactText:        func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") },
		RedactFingerprint: "fp-1",
	}
	saveFiles := func(o archive.EncodeOptions) func(ctxfmt.Level) []byte {
		return func(l ctxfmt.Level) []byte {
			t.Helper()
			o.Codec, o.Level, o.Now = ctxfmt.CodecZstd, l, fixedNow
			var buf bytes.Buffer
			if _, _, err := claude.SaveFiles(context.Background(), &buf, raw, archive.ImportOptions{}, o); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
	}
	withContents := func(l ctxfmt.Level) []byte {
		st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
		st.FileContents = []archive.FileContent{{Path: "pkg/calc/add.go", Data: []byte("package calc\n")}, {Path: "empty", Data: nil}}
		return encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: l})
	}
	for _, tc := range []struct {
		name     string
		save     func(ctxfmt.Level) []byte
		from, to ctxfmt.Level
	}{
		{"fastest to max", saveFiles(archive.EncodeOptions{}), ctxfmt.LevelFastest, ctxfmt.LevelMax},
		{"fastest to best", saveFiles(archive.EncodeOptions{}), ctxfmt.LevelFastest, ctxfmt.LevelBest},
		{"fastest to default", saveFiles(archive.EncodeOptions{}), ctxfmt.LevelFastest, ctxfmt.LevelDefault},
		{"max to default", saveFiles(archive.EncodeOptions{}), ctxfmt.LevelMax, ctxfmt.LevelDefault},
		{"redacted, fastest to max", saveFiles(redacted), ctxfmt.LevelFastest, ctxfmt.LevelMax},
		{"redacted, fastest to default", saveFiles(redacted), ctxfmt.LevelFastest, ctxfmt.LevelDefault},
		{"file contents, fastest to max", withContents, ctxfmt.LevelFastest, ctxfmt.LevelMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := open(t, tc.save(tc.from), archive.OpenOptions{})
			got := reencode(t, src, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: tc.to})
			direct := tc.save(tc.to)
			if !bytes.Equal(got, direct) {
				t.Errorf("re-encoded archive: %d bytes, differs from a direct save (%d bytes)", len(got), len(direct))
			}
			if len(got) > len(direct) {
				t.Errorf("re-encoded archive: %d bytes, direct save %d", len(got), len(direct))
			}
			b := open(t, got, archive.OpenOptions{})
			sameContent(t, src, b)
			sameContent(t, open(t, direct, archive.OpenOptions{}), b)
			if src.Redaction().Enabled {
				for _, seg := range b.Container().Segments() {
					p, err := b.Container().ReadSegment(seg.Index)
					if err != nil {
						t.Fatal(err)
					}
					if bytes.Contains(p, []byte(secret)) {
						t.Errorf("secret in segment %s", seg.Type)
					}
				}
			}
		})
	}
}

// TestReencodeEncrypted: an encrypted archive re-encodes under a new key
// derivation to the same content; without the key it does not open.
func TestReencodeEncrypted(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	pass := []byte("correct horse")
	enc := &ctxfmt.Encryption{Passphrase: pass, Argon2: ctxfmt.Argon2Params{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}}
	b := encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelFastest, Encryption: enc})
	src := open(t, b, archive.OpenOptions{Passphrase: pass})
	got := reencode(t, src, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax, Encryption: enc})
	if _, err := archive.Open(bytes.NewReader(got), int64(len(got)), archive.OpenOptions{}); err == nil {
		t.Fatal("re-encoded encrypted archive opened without the passphrase")
	}
	sameContent(t, src, open(t, got, archive.OpenOptions{Passphrase: pass}))
}

// TestReencodeCorpus: a corpus session saved at the fastest level and
// re-encoded at max is the archive a direct max save writes.
func TestReencodeCorpus(t *testing.T) {
	files := corpusFiles(t)
	p := files[0]
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "8463c716") {
			p = f
		}
	}
	raw, err := claude.ReadFiles(p, archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	save := func(l ctxfmt.Level) []byte {
		var buf bytes.Buffer
		if _, _, err := claude.SaveFiles(context.Background(), &buf, raw, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: l, Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	src := open(t, save(ctxfmt.LevelFastest), archive.OpenOptions{})
	got := reencode(t, src, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax})
	direct := save(ctxfmt.LevelMax)
	if !bytes.Equal(got, direct) {
		t.Errorf("%s: re-encoded at max %d bytes, differs from a direct max save (%d bytes)", filepath.Base(p), len(got), len(direct))
	}
	sameContent(t, src, open(t, got, archive.OpenOptions{}))
}

// TestReencodeKeepsUnknownSegments: a segment this build does not know
// (an optional extension written by a newer build) is carried over with
// its payload and flags; an archive without raw files re-encodes too.
func TestReencodeKeepsUnknownSegments(t *testing.T) {
	st := importFile(t, filepath.Join(fixtureDir, v2+".jsonl"))
	src := open(t, encode(t, st, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelFastest}), archive.OpenOptions{})
	const ext = ctxfmt.ExtensionTypeMin + 0x0777
	extra := []byte("an extension payload, kept as it is")
	var buf bytes.Buffer
	cw, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{Codec: ctxfmt.CodecZstd})
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range src.Container().Segments() {
		if err := cw.CopyRaw(src.Container(), seg.Index); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.AddWith(ext, extra, ctxfmt.SegmentOptions{UseDefaults: true, Optional: true}); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	withExt := open(t, buf.Bytes(), archive.OpenOptions{})
	b := open(t, reencode(t, withExt, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax}), archive.OpenOptions{})
	sameContent(t, withExt, b)
	idx := b.Container().Find(ext)
	if len(idx) != 1 || b.Container().Segments()[idx[0]].Required {
		t.Fatalf("extension segment: %v", idx)
	}
	if p, err := b.Container().ReadSegment(idx[0]); err != nil || !bytes.Equal(p, extra) {
		t.Fatalf("extension payload %q, %v", p, err)
	}

	empty := open(t, encode(t, &archive.State{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd}), archive.OpenOptions{})
	e := open(t, reencode(t, empty, archive.ReencodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax}), archive.OpenOptions{})
	sameContent(t, empty, e)
}
