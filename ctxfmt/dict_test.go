package ctxfmt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// dictPayloads returns a dictionary (model text), a small payload quoting
// it (a registry) and a large one quoting it among other text (a
// transcript).
func dictPayloads() (dict, small, large []byte) {
	var d bytes.Buffer
	for i := range 60 {
		d.WriteString("go test ./internal/pkg")
		d.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%7))
		d.WriteString(" -run TestCase")
		d.WriteByte(byte('A' + i%26))
		d.WriteString(" # exit 1\n")
	}
	dict = d.Bytes()
	small = append([]byte(`{"paths":`), dict[:600]...)
	large = append(textPayload(200_000, 3), dict...)
	large = append(large, textPayload(50_000, 4)...)
	return dict, small, large
}

// buildDict writes metadata, the dictionary (summaries), task state
// compressed against it where smaller, and a prepared raw segment.
func buildDict(t *testing.T, opts WriterOptions, l Level) []byte {
	t.Helper()
	dict, small, large := dictPayloads()
	p, err := PrepareDict(l, large, TypeSummaries, dict)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Add(TypeMetadata, []byte("meta")))
	must(w.AddWith(TypeTaskState, small, SegmentOptions{UseDefaults: true, Dict: TypeSummaries}))
	must(w.Add(TypeSummaries, dict))
	must(w.AddPrepared(TypeRawTranscript, p))
	must(w.Close())
	return buf.Bytes()
}

// TestDictRoundTrip: segments compressed against another one are stored
// as zstd-dict, smaller than without the dictionary, read back exactly
// (also by Verify), encrypted or not.
func TestDictRoundTrip(t *testing.T) {
	dict, small, large := dictPayloads()
	for _, l := range []Level{LevelDefault, LevelMax} {
		for _, enc := range []bool{false, true} {
			name := l.String() + map[bool]string{false: "", true: "/encrypted"}[enc]
			t.Run(name, func(t *testing.T) {
				if testing.Short() && l == LevelMax && enc {
					t.Skip("-short: LevelMax is checked unencrypted, encryption at the default level; make test-long runs both")
				}
				opts := WriterOptions{Codec: CodecZstd, Level: l}
				ro := ReaderOptions{}
				if enc {
					opts = encOpts(CodecZstd)
					opts.Level = l
					ro.Passphrase = []byte(testPassphrase)
				}
				b := buildDict(t, opts, l)
				r, err := open(t, b, ro)
				if err != nil {
					t.Fatal(err)
				}
				first := 0
				if enc {
					first = 1
				}
				want := [][]byte{[]byte("meta"), small, dict, large}
				for i, w := range want {
					got, err := r.ReadSegment(first + i)
					if err != nil {
						t.Fatalf("segment %d: %v", first+i, err)
					}
					if !bytes.Equal(got, w) {
						t.Fatalf("segment %d: read back differs", first+i)
					}
				}
				infos := r.Segments()[first:]
				for _, i := range []int{1, 3} {
					if infos[i].Codec != CodecZstdDict {
						t.Errorf("%s stored as %s, want zstd-dict", infos[i].Type, infos[i].Codec)
					}
				}
				plain, err := Prepare(CodecZstd, l, large)
				if err != nil {
					t.Fatal(err)
				}
				// (The archive uses dictionaries at LevelMax only.)
				if stored := int(infos[3].StoredLen); stored >= plain.StoredLen() && l == LevelMax {
					t.Errorf("raw segment with the dictionary %d bytes, without %d", stored, plain.StoredLen())
				}
				if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestDictOnlyWhenSmaller: a payload is stored in the smaller of its two
// compressed forms (none when neither is smaller), and an empty, too
// large or missing dictionary is no dictionary.
func TestDictOnlyWhenSmaller(t *testing.T) {
	dict, _, _ := dictPayloads()
	unrelated := bytes.Repeat([]byte("zzzz yyyy xxxx "), 200)
	b := build(t, WriterOptions{Codec: CodecZstd},
		seg{t: TypeSummaries, p: dict},
		seg{t: TypeTaskState, p: unrelated, o: SegmentOptions{UseDefaults: true, Dict: TypeSummaries}},
		seg{t: TypeCompactions, p: randomPayload(300, 1), o: SegmentOptions{UseDefaults: true, Dict: TypeSummaries}},
	)
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Prepare(CodecZstd, LevelDefault, unrelated)
	if err != nil {
		t.Fatal(err)
	}
	if si := r.Segments()[1]; si.StoredLen > int64(plain.StoredLen()) {
		t.Errorf("unrelated payload stored as %s in %d bytes, plain zstd takes %d", si.Codec, si.StoredLen, plain.StoredLen())
	}
	if c := r.Segments()[2].Codec; c != CodecNone {
		t.Errorf("random payload stored as %s, want none", c)
	}
	p, err := PrepareDict(LevelDefault, unrelated, TypeSummaries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.codec != CodecZstd {
		t.Errorf("empty dictionary: codec %s, want zstd", p.codec)
	}
	big := bytes.Repeat(dict, MaxDictLen/len(dict)+1)
	if p, err := PrepareDict(LevelDefault, dict, TypeSummaries, big); err != nil || p.codec != CodecZstd {
		t.Errorf("dictionary over MaxDictLen: codec %v (%v), want zstd", p, err)
	}
	b = build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeSummaries, p: big}, seg{t: TypeTaskState, p: dict, o: SegmentOptions{UseDefaults: true, Dict: TypeSummaries}})
	if r, err := open(t, b, ReaderOptions{}); err != nil || r.Segments()[1].Codec != CodecZstd {
		t.Errorf("segment against a dictionary over MaxDictLen: %v", err)
	}
	b = build(t, WriterOptions{Codec: CodecZstd}, seg{t: TypeTaskState, p: dict, o: SegmentOptions{UseDefaults: true, Dict: TypeSummaries}})
	if r, err := open(t, b, ReaderOptions{}); err != nil || r.Segments()[0].Codec != CodecZstd {
		t.Errorf("segment against a missing dictionary segment: %v", err)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, WriterOptions{Codec: CodecZstd})
	w.Add(TypeTaskState, unrelated)
	w.AddPrepared(TypeRawTranscript, p)
	if err := w.Close(); err != nil {
		t.Fatalf("a prepared segment without a dictionary needs no dictionary segment: %v", err)
	}
}

// TestDictWriterErrors: a dictionary the writer cannot resolve or that
// is not the payload a segment was prepared against is refused at Close;
// a zstd-dict segment cannot be copied alone nor asked for directly.
func TestDictWriterErrors(t *testing.T) {
	dict, small, large := dictPayloads()
	p, err := PrepareDict(LevelDefault, large, TypeSummaries, dict)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		add  func(w *Writer) error
		want string
	}{
		{"no dictionary segment", func(w *Writer) error { return w.AddPrepared(TypeRawTranscript, p) }, "no summaries segment"},
		{"other payload", func(w *Writer) error {
			w.Add(TypeSummaries, append(bytes.Clone(dict), 'x'))
			return w.AddPrepared(TypeRawTranscript, p)
		}, "prepared against another payload"},
		{"dictionary with a dictionary", func(w *Writer) error {
			w.Add(TypeMetadata, dict)
			w.AddWith(TypeSummaries, dict, SegmentOptions{UseDefaults: true, Dict: TypeMetadata})
			return w.AddWith(TypeTaskState, small, SegmentOptions{UseDefaults: true, Dict: TypeSummaries})
		}, "without a dictionary of its own"},
		{"prepared dictionary", func(w *Writer) error {
			q, _ := Prepare(CodecZstd, LevelDefault, dict)
			w.AddPrepared(TypeSummaries, q)
			return w.AddPrepared(TypeRawTranscript, p)
		}, "must be added with Add"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, WriterOptions{Codec: CodecZstd})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.add(w); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Close: %v, want %q", err, c.want)
			}
		})
	}
	if _, err := NewWriter(&bytes.Buffer{}, WriterOptions{Codec: CodecZstdDict}); err == nil {
		t.Error("NewWriter accepted zstd-dict as the default codec")
	}
	w, _ := NewWriter(&bytes.Buffer{}, WriterOptions{})
	if err := w.AddWith(TypeTaskState, small, SegmentOptions{Codec: CodecZstdDict}); err == nil {
		t.Error("AddWith accepted zstd-dict")
	}
	if _, err := Prepare(CodecZstdDict, LevelDefault, small); err == nil {
		t.Error("Prepare accepted zstd-dict")
	}
	if _, err := PrepareDict(LevelDefault, small, 0, dict); err == nil {
		t.Error("PrepareDict accepted no dictionary type")
	}
	b := buildDict(t, WriterOptions{Codec: CodecZstd}, LevelDefault)
	r, err := open(t, b, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cw, _ := NewWriter(&bytes.Buffer{}, WriterOptions{Codec: CodecZstd})
	if err := cw.CopyRaw(r, 3); err == nil || !strings.Contains(err.Error(), "cannot be copied alone") {
		t.Errorf("CopyRaw of a zstd-dict segment: %v", err)
	}
	if err := cw.CopyRaw(r, 2); err != nil {
		t.Errorf("CopyRaw of the dictionary itself: %v", err)
	}
}

// TestDictHostile: a zstd-dict segment naming an impossible dictionary
// (itself, past the end, another zstd-dict segment, a wrong one) or with
// a malformed index is refused as corrupt, never a panic.
func TestDictHostile(t *testing.T) {
	base := buildDict(t, WriterOptions{Codec: CodecZstd}, LevelDefault)
	r, err := open(t, base, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	infos := r.Segments()
	at := func(i int) int { return int(infos[i].Offset) }
	entry := func(i, field int) int { return HeaderSize + i*EntrySize + field }
	cases := []struct {
		name string
		mod  func(m []byte)
		seg  int
	}{
		{"itself", func(m []byte) { m[at(3)] = 3 }, 3},
		{"past the end", func(m []byte) { m[at(3)] = 9 }, 3},
		{"another zstd-dict segment", func(m []byte) { m[at(3)] = 1 }, 3},
		{"the wrong dictionary", func(m []byte) { m[at(3)] = 0 }, 3},
		{"index overflows", func(m []byte) {
			for k := range 11 {
				m[at(1)+k] = 0xff
			}
		}, 1},
		{"zstd declared zstd-dict", func(m []byte) { m[entry(0, 36)] = byte(CodecZstdDict); m[entry(2, 36)] = byte(CodecZstdDict) }, 2},
		{"frame truncated", func(m []byte) { m[at(3)+40] ^= 0xff }, 3},
		{"dictionary over MaxDictLen", func(m []byte) { le.PutUint64(m[entry(2, 16):], MaxDictLen+1) }, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := bytes.Clone(base)
			c.mod(m)
			m = reseal(m, true)
			r, err := open(t, m, ReaderOptions{})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			_, err = r.ReadSegment(c.seg)
			checkErr(t, err, ErrCorrupt, segRegion(c.seg, infos[c.seg].Type))
			if verr := Verify(bytes.NewReader(m), int64(len(m)), VerifyOptions{Deep: true}); !errors.Is(verr, ErrCorrupt) {
				t.Fatalf("deep verify: %v", verr)
			}
		})
	}
}
