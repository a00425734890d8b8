package ctxfmt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
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

// addDict appends to w a required segment of type typ holding payload
// as one Zstandard frame at level l compressed against dict, the payload
// of the file's segment j (crypto parameters included): codec zstd-dict,
// as pre-release builds wrote it at LevelMax. The writer no longer makes
// this codec; its readers' tests build it here.
func addDict(t testing.TB, w *Writer, typ SegmentType, payload []byte, j int, dict []byte, l Level) {
	t.Helper()
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstdLevels[min(l.norm(), LevelBest)]),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderDictRaw(0, dict),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	comp := enc.EncodeAll(payload, binary.AppendUvarint(nil, uint64(j)))
	w.segs = append(w.segs, &pending{typ: typ, flags: FlagRequired, codec: CodecZstdDict, ready: true, comp: comp, rawLen: uint64(len(payload))})
}

// buildDict writes metadata, task state compressed against the
// dictionary, the dictionary (summaries), and a raw segment compressed
// against it.
func buildDict(t *testing.T, opts WriterOptions, l Level) []byte {
	t.Helper()
	dict, small, large := dictPayloads()
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
	first := 0
	if opts.Encryption != nil {
		first = 1 // the crypto parameters
	}
	must(w.Add(TypeMetadata, []byte("meta")))
	addDict(t, w, TypeTaskState, small, first+2, dict, l)
	must(w.Add(TypeSummaries, dict))
	addDict(t, w, TypeRawTranscript, large, first+2, dict, l)
	must(w.Close())
	return buf.Bytes()
}

// TestDictRoundTrip: segments compressed against another one read back
// exactly (also by Verify), encrypted or not.
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
				if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestDictWriterErrors: the writer never writes zstd-dict (as a default,
// asked for, or prepared), and a zstd-dict segment cannot be copied alone
// while its dictionary can.
func TestDictWriterErrors(t *testing.T) {
	_, small, _ := dictPayloads()
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
