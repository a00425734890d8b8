package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive/internal/mpguard"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// compareMeta compares unmarshal (the bounds guard, then msgpack) with
// msgpack.Unmarshal alone (the reference) on one metadata segment: the
// guard refuses only what msgpack refuses too (or what nests deeper than
// mpguard.MaxDepth), and where both decode, the results are equal.
func compareMeta(b []byte) error {
	// msgpack exhausts memory on a header declaring many more values than
	// the segment holds: the reference runs only where no header declares
	// over 64 Ki (or the value is complete, so every length is backed).
	wf, largest, _ := mpguard.WellFormed(b)
	var got metaSegment
	err := unmarshal(b, &got)
	if !wf && err == nil {
		return fmt.Errorf("unmarshal accepts a segment msgpackWellFormed refuses: %+v", got)
	}
	if !wf && largest > 1<<16 {
		return nil
	}
	var ref metaSegment
	refErr := msgpackUnmarshal(b, &ref)
	if !wf && refErr == nil {
		return fmt.Errorf("msgpackWellFormed refuses what msgpack decodes: %+v", ref)
	}
	if (err == nil) != (refErr == nil) {
		return fmt.Errorf("unmarshal error %v, msgpack error %v", err, refErr)
	}
	if err == nil && !reflect.DeepEqual(got, ref) {
		return fmt.Errorf("unmarshal differs from msgpack:\n  got %+v\n  ref %+v", got, ref)
	}
	return nil
}

// metaSegmentBytes returns the metadata segment of an archive's bytes.
func metaSegmentBytes(archive []byte) ([]byte, error) {
	r, err := ctxfmt.NewReader(bytes.NewReader(archive), int64(len(archive)), ctxfmt.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	idx := r.Find(ctxfmt.TypeMetadata)
	if len(idx) == 0 {
		return nil, ErrNotArchive
	}
	return r.ReadSegment(idx[0])
}

// CheckMetaDecode (for the external tests, which import fixtures and the
// corpus): the archive's metadata segment decodes through the bounds
// guard as msgpack decodes it, and so do mutations of it (see
// compareMeta).
func CheckMetaDecode(archive []byte, mutations int, seed int64) error {
	seg, err := metaSegmentBytes(archive)
	if err != nil {
		return err
	}
	if err := compareMeta(seg); err != nil {
		return err
	}
	var m metaSegment
	if err := unmarshal(seg, &m); err != nil {
		return fmt.Errorf("the metadata Encode wrote: %w", err)
	}
	rng := rand.New(rand.NewSource(seed))
	for range mutations {
		m := mutate(rng, seg)
		if err := compareMeta(m); err != nil {
			return fmt.Errorf("mutation %x: %w", m, err)
		}
	}
	return nil
}

// mutate returns a damaged copy of b: bytes flipped or set to msgpack
// codes, inserted, deleted, or the segment cut short.
func mutate(rng *rand.Rand, b []byte) []byte {
	m := append([]byte(nil), b...)
	codes := []byte{0xc0, 0xc2, 0xc3, 0xc4, 0xc7, 0xcc, 0xcf, 0xd0, 0xd3, 0xd6, 0xd7, 0xd9, 0xdc, 0xdd, 0xde, 0xdf, 0x80, 0x90, 0xa0, 0xff, 0x7f}
	for range 1 + rng.Intn(3) {
		if len(m) == 0 {
			break
		}
		i := rng.Intn(len(m))
		switch rng.Intn(6) {
		case 0:
			m[i] ^= byte(1 << rng.Intn(8))
		case 1:
			m[i] = codes[rng.Intn(len(codes))]
		case 2:
			m[i] = byte(rng.Intn(256))
		case 3:
			m = append(m[:i], append([]byte{codes[rng.Intn(len(codes))]}, m[i:]...)...)
		case 4:
			m = append(m[:i], m[i+1:]...)
		case 5:
			m = m[:i]
		}
	}
	return m
}

func randString(rng *rand.Rand) string {
	switch rng.Intn(6) {
	case 0:
		return ""
	case 1:
		return string(bytes.Repeat([]byte{'x'}, 32+rng.Intn(300))) // str8 / str16
	case 2:
		return "\xff\xfe not utf-8 \x00"
	}
	return fmt.Sprintf("s%d", rng.Int63())
}

func randInt64(rng *rand.Rand) int64 {
	switch rng.Intn(8) {
	case 0:
		return 0
	case 1:
		return -1 - rng.Int63n(40) // negative fixint, int8
	case 2:
		return math.MinInt64
	case 3:
		return math.MaxInt64
	case 4:
		return -rng.Int63()
	case 5:
		return rng.Int63n(200)
	}
	return rng.Int63() >> uint(rng.Intn(63))
}

func randInt(rng *rand.Rand) int { return int(randInt64(rng)) }

func randTime(rng *rand.Rand) time.Time {
	switch rng.Intn(6) {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(rng.Int63n(1<<32), 0).UTC() // 4-byte form
	case 2:
		return time.Unix(rng.Int63n(1<<34), rng.Int63n(1e9)) // 8-byte form
	case 3:
		return time.Unix(-rng.Int63n(1<<40), rng.Int63n(1e9)) // 12-byte form
	case 4:
		return time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)
	}
	return time.Unix(1<<40+rng.Int63n(1<<40), rng.Int63n(1e9))
}

func randStrings(rng *rand.Rand) []string {
	switch rng.Intn(3) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	s := make([]string, 1+rng.Intn(20))
	for i := range s {
		s[i] = randString(rng)
	}
	return s
}

// randomMetaSegment builds a metadata payload with every field exercised
// (nil and empty slices and maps, every integer and time width).
func randomMetaSegment(rng *rand.Rand) metaSegment {
	m := metaSegment{
		Layout: randInt(rng),
		Meta: Metadata{
			SchemaVersion: randInt(rng), Harness: Harness(randString(rng)), CreatedAt: randTime(rng), UpdatedAt: randTime(rng),
			SessionCount: randInt(rng), DirectoryPath: randString(rng), DirectoryHash: randString(rng), SessionID: randString(rng),
			SubagentIDs: randStrings(rng), Title: randString(rng), ClientVersion: randString(rng), GitBranch: randString(rng),
			Model: randString(rng), MessageCount: randInt(rng), ToolCount: randInt(rng), FileCount: randInt(rng),
			TotalTokens: randInt64(rng), ContextTokens: randInt64(rng), ContextWindow: randInt64(rng),
			FirstActivity: randTime(rng), LastActivity: randTime(rng),
		},
		Import: ImportReport{
			Lines: randInt(rng), Skipped: randInt(rng), Partial: randInt(rng), Truncated: rng.Intn(2) == 0,
			InvalidUTF8: randInt(rng), Problems: randStrings(rng), Blank: randInt(rng), Files: randInt(rng),
		},
		Redacted: rng.Intn(2) == 0,
		Redact:   RedactionReport{Enabled: rng.Intn(2) == 0, LinesChanged: randInt(rng), TextsChanged: randInt(rng)},
		RedactFP: randString(rng),
		Counts:   counts{Compactions: randInt(rng), Preferences: randInt(rng), Active: randInt(rng), Pending: randInt(rng), Completed: randInt(rng)},
	}
	switch rng.Intn(3) {
	case 1:
		m.Import.UnknownTypes = map[string]int{}
	case 2:
		m.Import.UnknownTypes = map[string]int{}
		for range 1 + rng.Intn(5) {
			m.Import.UnknownTypes[randString(rng)] = randInt(rng)
		}
	}
	if rng.Intn(3) > 0 {
		m.Raw = make([]rawManifest, rng.Intn(4))
		for i := range m.Raw {
			f := &m.Raw[i]
			f.Name, f.Size, f.SHA256 = randString(rng), randInt64(rng), randString(rng)
			if rng.Intn(2) == 0 {
				f.RedactedLines = make([]int, rng.Intn(5))
				for k := range f.RedactedLines {
					f.RedactedLines[k] = randInt(rng)
				}
			}
			if rng.Intn(4) > 0 {
				f.Chunks = make([]rawChunk, rng.Intn(5))
			}
			for k := range f.Chunks {
				c := &f.Chunks[k]
				c.StoredLen, c.OrigLen, c.OrigHash, c.Lines, c.Packed = randInt64(rng), randInt64(rng), rng.Uint64(), randInt(rng), rng.Intn(2) == 0
				if rng.Intn(2) == 0 {
					c.Mid = make([]byte, rng.Intn(300))
					rng.Read(c.Mid)
				}
			}
		}
	}
	if rng.Intn(2) == 0 {
		m.Contents = make([]contentEntry, rng.Intn(4))
		for i := range m.Contents {
			m.Contents[i] = contentEntry{Path: randString(rng), Size: randInt64(rng), SHA256: randString(rng)}
		}
	}
	// The pre-release forms Open refuses, as they were written.
	if rng.Intn(2) == 0 {
		m.Derived, _ = marshal(map[string]any{"importer": randString(rng), "version": randInt(rng), "root": randString(rng)})
	} else if rng.Intn(2) == 0 {
		m.Pending, _ = marshal(map[string]any{"importer": randString(rng), "version": randInt(rng), "exclude": []string{randString(rng)}})
	}
	return m
}

// Random metadata payloads, encoded as Encode encodes them, decode
// through the guard to what was encoded and as msgpack decodes them; so do
// their mutations.
func TestMetaDecodeRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	payloads := 2000
	if testing.Short() {
		payloads = 300 // make fuzz runs FuzzMetaDecode; make test-long all 2000
	}
	for i := range payloads {
		m := randomMetaSegment(rng)
		b, err := marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		if err := compareMeta(b); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		// Deterministic: map keys sorted, whatever Go's map order.
		for range 3 {
			if again, err := marshal(&m); err != nil || !bytes.Equal(again, b) {
				t.Fatalf("payload %d: encoded differently the second time (%v)", i, err)
			}
		}
		var got metaSegment
		if err := unmarshal(b, &got); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		for range 5 {
			mb := mutate(rng, b)
			if err := compareMeta(mb); err != nil {
				t.Fatalf("payload %d mutation %x: %v", i, mb, err)
			}
		}
	}
}

// Hand-made inputs at the edges of what Encode writes: the guard and
// msgpack agree on each, and the count bombs are refused before msgpack
// runs.
func TestMetaDecodeEdges(t *testing.T) {
	enc := func(v any) []byte {
		b, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := map[string]struct {
		b       []byte
		refused bool
	}{
		"empty map":           {[]byte{0x80}, false},
		"empty input":         {nil, true},
		"nil":                 {[]byte{0xc0}, false},
		"unknown key":         {enc(map[string]int{"layout": 1, "zzz": 2}), false},
		"unknown key only":    {enc(map[string]any{"future": []int{1, 2}}), false},
		"duplicate key":       {[]byte{0x82, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0x01, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0x02}, false},
		"float int":           {enc(map[string]float64{"layout": 1}), true},
		"uint64 layout":       {[]byte{0x81, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, false},
		"nil raw":             {enc(map[string]any{"raw": nil}), false},
		"empty derived":       {enc(map[string]any{"derived": map[string]int{}}), false},
		"string time":         {enc(map[string]any{"meta": map[string]any{"created_at": "2026-01-01T00:00:00Z"}}), true},
		"zero time":           {enc(map[string]any{"meta": map[string]any{"created_at": time.Time{}}}), false},
		"huge array":          {[]byte{0x81, 0xa3, 'r', 'a', 'w', 0xdd, 0x7f, 0xff, 0xff, 0xff}, true},
		"huge map":            {[]byte{0xdf, 0x7f, 0xff, 0xff, 0xff}, true},
		"huge str":            {[]byte{0x81, 0xa9, 'r', 'e', 'd', 'a', 'c', 't', '_', 'f', 'p', 0xdb, 0x7f, 0xff, 0xff, 0xff}, true},
		"empty unknown_types": {enc(map[string]any{"import": map[string]any{"unknown_types": map[string]int{}}}), false},
		"negative oh":         {enc(map[string]any{"raw": []any{map[string]any{"chunks": []any{map[string]any{"oh": -5}}}}}), false},
	}
	for name, c := range cases {
		if err := compareMeta(c.b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		var m metaSegment
		if err := unmarshal(c.b, &m); (err != nil) != c.refused {
			t.Errorf("%s: error %v, want refused %v", name, err, c.refused)
		}
	}
}

// Archives of the synthetic states at every layout decode through the
// guard with msgpack's result; so do their mutations and truncations.
func TestMetaDecodeArchives(t *testing.T) {
	// -short: a tenth of the mutations (make fuzz runs FuzzMetaDecode;
	// make test-long all of them).
	later := 500
	if testing.Short() {
		later = 50
	}
	for i, opts := range []EncodeOptions{
		{},
		{ChunkSize: 512, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest},
		{ChunkSize: 512, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax},
		{RedactText: func(s string) string { return s + "!" }, RedactLine: func(l []byte) []byte { return bytes.ToUpper(l) }, RedactFingerprint: "fp"},
	} {
		for j, s := range []*State{synthState(), hugeState(300)} {
			var buf bytes.Buffer
			if err := Encode(context.Background(), &buf, s, opts); err != nil {
				t.Fatal(err)
			}
			if err := CheckMetaDecode(buf.Bytes(), later, int64(i)); err != nil {
				t.Errorf("options %d state %d: %v", i, j, err)
			}
		}
	}
}

// Open's metadata decoding (guard, then msgpack) is msgpack's on any
// input the guard lets through (the native fuzz target behind
// TestMetaDecodeRandom's mutations).
func FuzzMetaDecode(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for range 8 {
		m := randomMetaSegment(rng)
		if b, err := marshal(&m); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := compareMeta(b); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkMetaDecode: the metadata segment of the synthetic state's
// archive (packed, small chunks: a long manifest) decoded by
// msgpack.Unmarshal alone (reflection, struct cache warm) and by
// unmarshal (the bounds guard first).
func BenchmarkMetaDecode(b *testing.B) {
	var buf bytes.Buffer
	if err := Encode(context.Background(), &buf, synthState(), EncodeOptions{ChunkSize: 512, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest}); err != nil {
		b.Fatal(err)
	}
	seg, err := metaSegmentBytes(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("msgpack", func(b *testing.B) {
		for b.Loop() {
			var m metaSegment
			if err := msgpackUnmarshal(seg, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("guarded", func(b *testing.B) {
		for b.Loop() {
			var m metaSegment
			if err := unmarshal(seg, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Every segment msgpack decodes goes through the completeness check: a
// header declaring more values than the segment holds is ErrCorrupt (as
// msgpack's EOF would be), not an allocation of what it declares; what
// Encode wrote passes it.
func TestUnmarshalRefusesHostileLengths(t *testing.T) {
	var tasks TaskState
	hostile := []byte{0x81, 0xa6, 'a', 'c', 't', 'i', 'v', 'e', 0xdd, 0x7f, 0xff, 0xff, 0xff}
	if err := unmarshal(hostile, &tasks); !errors.Is(err, mpguard.ErrMalformed) {
		t.Fatalf("tasks with 2^31 active: %v", err)
	}
	deep := append(bytes.Repeat([]byte{0x91}, mpguard.MaxDepth+1), 0xc0)
	var v []any
	if err := unmarshal(deep, &v); !errors.Is(err, mpguard.ErrMalformed) {
		t.Fatalf("nesting %d: %v", mpguard.MaxDepth+1, err)
	}
	if err := unmarshal(deep[1:], &v); err != nil {
		t.Fatalf("nesting %d: %v", mpguard.MaxDepth, err)
	}
	var buf bytes.Buffer
	if err := Encode(context.Background(), &buf, hugeState(200), EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := ctxfmt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ctxfmt.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range r.Segments() {
		if s.Type == ctxfmt.TypeRawTranscript || s.Type == ctxfmt.TypeSummaries {
			continue // not msgpack
		}
		b, err := r.ReadSegment(i)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _, _ := mpguard.WellFormed(b); !ok {
			t.Errorf("segment %d (%s) written by Encode fails the check", i, s.Type)
		}
	}
}

// TestImportReportEncoding: ImportReport's encoder writes what msgpack's
// struct encoding writes (every field, in order; a field added to the
// struct but not to the encoder fails here), with the unknown types'
// keys sorted.
func TestImportReportEncoding(t *testing.T) {
	type plain ImportReport // msgpack's own struct encoding
	r := ImportReport{Lines: 1, Skipped: 2, Partial: 3, Truncated: true, InvalidUTF8: 4, UnknownTypes: map[string]int{"x": 5},
		Problems: []string{"p"}, Blank: 6, Files: 7}
	got, err := marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := marshal(plain(r))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ImportReport encodes as\n%x\nmsgpack's struct encoding\n%x (%v)", got, want, err)
	}
	r.UnknownTypes = map[string]int{}
	for i := range 50 {
		r.UnknownTypes[fmt.Sprint("type", i)] = i
	}
	first, err := marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back ImportReport
	if err := unmarshal(first, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for range 10 {
		if b, _ := marshal(r); !bytes.Equal(b, first) {
			t.Fatal("unknown types encoded in another order")
		}
	}
}

// TestRedactionReportEncoding: RedactionReport's encoder writes what
// msgpack's struct encoding writes (a field added to the struct but not to
// the encoder fails here), with the per-rule counts' keys sorted: the
// archive's bytes do not depend on Go's map order.
func TestRedactionReportEncoding(t *testing.T) {
	type plain RedactionReport // msgpack's own struct encoding
	for _, r := range []RedactionReport{
		{},
		{Enabled: true, LinesChanged: 2, TextsChanged: 3},
		{Enabled: true, LinesChanged: 2, TextsChanged: 3, ContentsChanged: 4, Rules: map[string]int{"aws-access-key": 5}},
	} {
		got, err := marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := marshal(plain(r))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%+v encodes as\n%x\nmsgpack's struct encoding\n%x (%v)", r, got, want, err)
		}
	}
	r := RedactionReport{Enabled: true, LinesChanged: 1, Rules: map[string]int{}}
	for i := range 50 {
		r.Rules[fmt.Sprint("rule-", i)] = i + 1
	}
	first, err := marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back RedactionReport
	if err := unmarshal(first, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	for range 10 {
		if b, _ := marshal(r); !bytes.Equal(b, first) {
			t.Fatal("per-rule counts encoded in another order")
		}
	}
}
