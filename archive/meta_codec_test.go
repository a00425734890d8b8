package archive

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// fastMeta runs only decodeMeta's fast path.
func fastMeta(b []byte) (metaSegment, bool) {
	var m metaSegment
	r := metaReader{b: b, bud: newBudget(len(b))}
	ok := r.metaSegment(&m) && r.i == len(b)
	return m, ok
}

// compareMeta compares the fast path and decodeMeta with msgpack.Unmarshal
// (the reference) on one metadata segment: a result from the fast path is
// msgpack's (and msgpack does not fail), decodeMeta fails exactly where
// msgpack does and otherwise gives its result. wantFast: the fast path
// must take b (it is what Encode writes). fast reports whether it did.
func compareMeta(b []byte, wantFast bool) (fast bool, err error) {
	// msgpack exhausts memory on a header declaring many more values than
	// the segment holds: the reference runs only where no header declares
	// over 64 Ki (or the value is complete, so every length is backed).
	wf, largest := msgpackWellFormed(b)
	haveRef := wf || largest <= 1<<16
	var ref metaSegment
	var refErr error
	if haveRef {
		refErr = msgpackUnmarshal(b, &ref)
		if !wf && refErr == nil {
			return false, fmt.Errorf("msgpackWellFormed refuses what msgpack decodes: %+v", ref)
		}
	}
	f, ok := fastMeta(b)
	if ok {
		if !wf {
			return true, fmt.Errorf("fast path decodes what msgpackWellFormed refuses: %+v", f)
		}
		if refErr != nil {
			return true, fmt.Errorf("fast path decodes what msgpack refuses (%v): %+v", refErr, f)
		}
		if !reflect.DeepEqual(f, ref) {
			return true, fmt.Errorf("fast path differs from msgpack:\n fast %+v\n  ref %+v", f, ref)
		}
	} else if wantFast {
		return false, fmt.Errorf("fast path refused a segment Encode wrote (msgpack: %v)", refErr)
	}
	var got metaSegment
	err = decodeMeta(b, &got)
	if !haveRef {
		if err == nil {
			return ok, fmt.Errorf("decodeMeta accepts a segment with a length past its end: %+v", got)
		}
		return ok, nil
	}
	if (err == nil) != (refErr == nil) {
		return ok, fmt.Errorf("decodeMeta error %v, msgpack error %v", err, refErr)
	}
	if err == nil && !reflect.DeepEqual(got, ref) {
		return ok, fmt.Errorf("decodeMeta differs from msgpack:\n  got %+v\n  ref %+v", got, ref)
	}
	return ok, nil
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
// corpus): the archive's metadata segment takes the fast path and decodes
// as msgpack decodes it, and so do mutations of it (see compareMeta).
func CheckMetaDecode(archive []byte, mutations int, seed int64) error {
	seg, err := metaSegmentBytes(archive)
	if err != nil {
		return err
	}
	if _, err := compareMeta(seg, true); err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(seed))
	for range mutations {
		m := mutate(rng, seg)
		if _, err := compareMeta(m, false); err != nil {
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
	if rng.Intn(2) == 0 {
		m.Derived = &ModelSource{Importer: randString(rng), Version: randInt(rng), Root: randString(rng)}
	} else if rng.Intn(2) == 0 {
		m.Pending = &PendingModel{Importer: randString(rng), Version: randInt(rng), Root: randString(rng), Resumable: rng.Intn(2) == 0,
			FileContents: rng.Intn(2) == 0, MaxFileContent: randInt64(rng)}
		for range rng.Intn(3) {
			m.Pending.ExcludePatterns = append(m.Pending.ExcludePatterns, randString(rng))
		}
	}
	return m
}

// Random metadata payloads, encoded as Encode encodes them, take the fast
// path and decode as msgpack decodes them; so do their mutations (and
// the mutations must now and then still take the fast path, or this
// test would compare msgpack with itself).
func TestMetaDecodeRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	fastMutations := 0
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
		if _, err := compareMeta(b, true); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		for range 5 {
			mb := mutate(rng, b)
			fast, err := compareMeta(mb, false)
			if err != nil {
				t.Fatalf("payload %d mutation %x: %v", i, mb, err)
			}
			if fast && !bytes.Equal(mb, b) {
				fastMutations++
			}
		}
	}
	if fastMutations == 0 {
		t.Fatal("no mutation took the fast path")
	}
}

// Hand-made inputs at the edges of the fast path's subset: each either
// takes it with msgpack's result or goes to msgpack.
func TestMetaDecodeEdges(t *testing.T) {
	enc := func(v any) []byte {
		b, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := map[string]struct {
		b    []byte
		fast bool
	}{
		"empty map":           {[]byte{0x80}, true},
		"empty input":         {nil, false},
		"nil":                 {[]byte{0xc0}, false},
		"array form":          {[]byte{0x90}, false},
		"trailing byte":       {append(enc(map[string]int{"layout": 1}), 0xc0), false},
		"unknown key":         {enc(map[string]int{"layout": 1, "zzz": 2}), false},
		"unknown key only":    {enc(map[string]any{"future": []int{1, 2}}), false},
		"duplicate key":       {[]byte{0x82, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0x01, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0x02}, false},
		"nil int":             {[]byte{0x81, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0xc0}, false},
		"float int":           {enc(map[string]float64{"layout": 1}), false},
		"bin key":             {[]byte{0x81, 0xc4, 6, 'l', 'a', 'y', 'o', 'u', 't', 0x01}, false},
		"uint64 layout":       {[]byte{0x81, 0xa6, 'l', 'a', 'y', 'o', 'u', 't', 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, true},
		"nil meta":            {enc(map[string]any{"meta": nil}), false},
		"nil raw":             {enc(map[string]any{"raw": nil}), true},
		"empty raw":           {enc(map[string]any{"raw": []int{}}), true},
		"nil derived":         {enc(map[string]any{"derived": nil}), true},
		"empty derived":       {enc(map[string]any{"derived": map[string]int{}}), true},
		"nil time":            {enc(map[string]any{"meta": map[string]any{"created_at": nil}}), false},
		"string time":         {enc(map[string]any{"meta": map[string]any{"created_at": "2026-01-01T00:00:00Z"}}), false},
		"array time":          {enc(map[string]any{"meta": map[string]any{"created_at": []int{1, 2}}}), false},
		"zero time":           {enc(map[string]any{"meta": map[string]any{"created_at": time.Time{}}}), true},
		"huge array":          {[]byte{0x81, 0xa3, 'r', 'a', 'w', 0xdd, 0x7f, 0xff, 0xff, 0xff}, false},
		"huge map":            {[]byte{0xdf, 0x7f, 0xff, 0xff, 0xff}, false},
		"huge str":            {[]byte{0x81, 0xa9, 'r', 'e', 'd', 'a', 'c', 't', '_', 'f', 'p', 0xdb, 0x7f, 0xff, 0xff, 0xff}, false},
		"str as bin":          {[]byte{0x81, 0xa9, 'r', 'e', 'd', 'a', 'c', 't', '_', 'f', 'p', 0xc4, 1, 'x'}, false},
		"nil unknown_types":   {enc(map[string]any{"import": map[string]any{"unknown_types": nil}}), true},
		"empty unknown_types": {enc(map[string]any{"import": map[string]any{"unknown_types": map[string]int{}}}), true},
		"dup unknown_types":   {[]byte{0x81, 0xa6, 'i', 'm', 'p', 'o', 'r', 't', 0x81, 0xad, 'u', 'n', 'k', 'n', 'o', 'w', 'n', '_', 't', 'y', 'p', 'e', 's', 0x82, 0xa1, 'a', 0x01, 0xa1, 'a', 0x02}, true},
		"nil mid":             {enc(map[string]any{"raw": []any{map[string]any{"chunks": []any{map[string]any{"mid": nil}}}}}), true},
		"empty mid":           {enc(map[string]any{"raw": []any{map[string]any{"chunks": []any{map[string]any{"mid": []byte{}}}}}}), true},
		"negative oh":         {enc(map[string]any{"raw": []any{map[string]any{"chunks": []any{map[string]any{"oh": -5}}}}}), true},
	}
	for name, c := range cases {
		fast, err := compareMeta(c.b, false)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if fast != c.fast {
			t.Errorf("%s: fast path %v, want %v", name, fast, c.fast)
		}
	}
}

// The golden archives earlier versions wrote, and archives of the
// synthetic states at every layout, take the fast path with msgpack's
// result; their mutations and truncations decode as msgpack decodes them.
func TestMetaDecodeArchives(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "compat", "*.ctx"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no compat goldens: %v", err)
	}
	// -short: a tenth of the mutations and every 7th cut (make fuzz runs
	// FuzzMetaDecode; make test-long all of them).
	mutations, cutStep, later := 3000, 1, 500
	if testing.Short() {
		mutations, cutStep, later = 300, 7, 50
	}
	for _, p := range goldens {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMetaDecode(b, mutations, 1); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		seg, err := metaSegmentBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(seg); n += cutStep {
			if _, err := compareMeta(seg[:n], false); err != nil {
				t.Fatalf("%s cut at %d: %v", p, n, err)
			}
		}
	}
	for i, opts := range []EncodeOptions{
		{},
		{ChunkSize: 512, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest},
		{ChunkSize: 512, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax},
		{RedactText: func(s string) string { return s + "!" }, RedactLine: func(l []byte) []byte { return bytes.ToUpper(l) }, RedactFingerprint: "fp"},
	} {
		for j, s := range []*State{synthState(), hugeState(300)} {
			var buf bytes.Buffer
			if err := Encode(&buf, s, opts); err != nil {
				t.Fatal(err)
			}
			if err := CheckMetaDecode(buf.Bytes(), later, int64(i)); err != nil {
				t.Errorf("options %d state %d: %v", i, j, err)
			}
		}
	}
}

// Open's metadata decoding is msgpack's on real input (the native fuzz
// target behind TestMetaDecodeRandom's mutations).
func FuzzMetaDecode(f *testing.F) {
	goldens, _ := filepath.Glob(filepath.Join("testdata", "compat", "*.ctx"))
	for _, p := range goldens {
		if b, err := os.ReadFile(p); err == nil {
			if seg, err := metaSegmentBytes(b); err == nil {
				f.Add(seg)
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	for range 8 {
		m := randomMetaSegment(rng)
		if b, err := marshal(&m); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := compareMeta(b, false); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkMetaDecode: the metadata segment of the round-6 golden
// decoded by msgpack.Unmarshal (reflection, struct cache warm) and by
// decodeMeta.
func BenchmarkMetaDecode(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "compat", "round6-max.ctx"))
	if err != nil {
		b.Fatal(err)
	}
	seg, err := metaSegmentBytes(raw)
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
	b.Run("decodeMeta", func(b *testing.B) {
		for b.Loop() {
			var m metaSegment
			if err := decodeMeta(seg, &m); err != nil {
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
	if err := unmarshal(hostile, &tasks); !errors.Is(err, errMsgpackMalformed) {
		t.Fatalf("tasks with 2^31 active: %v", err)
	}
	deep := append(bytes.Repeat([]byte{0x91}, maxMsgpackDepth+1), 0xc0)
	var v []any
	if err := unmarshal(deep, &v); !errors.Is(err, errMsgpackMalformed) {
		t.Fatalf("nesting %d: %v", maxMsgpackDepth+1, err)
	}
	if err := unmarshal(deep[1:], &v); err != nil {
		t.Fatalf("nesting %d: %v", maxMsgpackDepth, err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, hugeState(200), EncodeOptions{}); err != nil {
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
		if ok, _ := msgpackWellFormed(b); !ok {
			t.Errorf("segment %d (%s) written by Encode fails the check", i, s.Type)
		}
	}
}
