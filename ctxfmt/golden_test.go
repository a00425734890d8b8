package ctxfmt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden test vectors in testdata/ctxfmt")

const goldenDir = "../testdata/ctxfmt"

// Published test secrets of the golden vectors (docs/FORMAT.md).
const (
	VectorPassphrase = "ben10 test vector"
	vectorKeyHex     = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
)

var vectorArgon2 = Argon2Params{Time: 1, MemoryKiB: 1024, Threads: 1}

// counterReader yields start, start+1, ... as "random" bytes.
type counterReader struct{ next byte }

func (c *counterReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.next
		c.next++
	}
	return len(p), nil
}

type goldenSeg struct {
	Type     string `json:"type"`
	Codec    string `json:"codec"`
	Flags    string `json:"flags"`
	RawLen   int    `json:"raw_len"`
	Content  string `json:"content"`
	level    Level
	optional bool
	dict     SegmentType // compressed against the segment of this type (addDict)
}

type goldenVector struct {
	File       string      `json:"file"`
	Passphrase string      `json:"passphrase,omitempty"`
	KeyHex     string      `json:"key_hex,omitempty"`
	Argon2     *[3]uint32  `json:"argon2_t_m_p,omitempty"`
	SaltStart  *byte       `json:"salt_first_byte,omitempty"`
	Segments   []goldenSeg `json:"segments"`
	codec      Codec
}

func goldenVectors() []goldenVector {
	conv := strings.Repeat(`{"role":"user","text":"run go test ./..."}`+"\n"+`{"role":"assistant","text":"All tests pass."}`+"\n", 6)
	meta := `{"format":"ben10 test vector","project":"/home/dev/demo"}`
	recall := "commands: go vet ./... ; go test -run TestGolden ./ctxfmt ; make build\nfiles: ctxfmt/writer.go ctxfmt/reader.go docs/FORMAT.md\n"
	common := func() []goldenSeg {
		return []goldenSeg{
			{Type: "metadata", Content: meta},
			{Type: "conversation", Content: conv},
			{Type: "summaries", Content: "", optional: true},
			{Type: "type-0x8001", Content: "extension payload", optional: true},
		}
	}
	b0, b32 := byte(0x00), byte(0x20)
	return []goldenVector{
		{File: "tiny.ctx", codec: CodecNone, Segments: []goldenSeg{{Type: "metadata", Content: "hello"}}},
		{File: "plain.ctx", codec: CodecNone, Segments: common()},
		{File: "lz4.ctx", codec: CodecLZ4, Segments: common()},
		{File: "zstd.ctx", codec: CodecZstd, Segments: common()},
		{File: "zstd-best.ctx", codec: CodecZstd, Segments: func() []goldenSeg {
			s := common()
			for i := range s {
				s[i].level = LevelBest
			}
			return s
		}()},
		{File: "zstd-dict.ctx", codec: CodecZstd, Segments: []goldenSeg{
			{Type: "metadata", Content: meta},
			{Type: "summaries", Content: recall},
			{Type: "conversation", Content: conv + recall, dict: TypeSummaries},
		}},
		{File: "encrypted.ctx", codec: CodecZstd, Passphrase: VectorPassphrase, Argon2: &[3]uint32{1, 1024, 1}, SaltStart: &b0, Segments: common()},
		{File: "rawkey.ctx", codec: CodecNone, KeyHex: vectorKeyHex, SaltStart: &b32, Segments: []goldenSeg{{Type: "metadata", Content: "hello"}}},
	}
}

func (v *goldenVector) build(t *testing.T) []byte {
	t.Helper()
	opts := WriterOptions{Codec: v.codec, Concurrency: 3}
	switch {
	case v.Passphrase != "":
		opts.Encryption = &Encryption{Passphrase: []byte(v.Passphrase), Argon2: vectorArgon2}
	case v.KeyHex != "":
		k, _ := hex.DecodeString(v.KeyHex)
		opts.Encryption = &Encryption{Key: k}
	}
	if v.SaltStart != nil {
		old := randReader
		randReader = &counterReader{next: *v.SaltStart}
		defer func() { randReader = old }()
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range v.Segments {
		typ, err := ParseSegmentType(s.Type)
		if err != nil {
			t.Fatal(err)
		}
		if s.dict != 0 {
			// zstd-dict, which the writer no longer makes (see addDict).
			j := slices.IndexFunc(v.Segments, func(d goldenSeg) bool { return d.Type == s.dict.String() })
			addDict(t, w, typ, []byte(s.Content), j, []byte(v.Segments[j].Content), s.level)
			continue
		}
		if err := w.AddWith(typ, []byte(s.Content), SegmentOptions{Codec: v.codec, Level: s.level, Optional: s.optional}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGolden freezes the format: the writer must reproduce every vector
// byte for byte, and the reader must decode the stored vectors to the
// recorded contents. Run with -update to regenerate deliberately.
func TestGolden(t *testing.T) {
	vectors := goldenVectors()
	for i := range vectors {
		v := &vectors[i]
		b := v.build(t)
		path := filepath.Join(goldenDir, v.File)
		// Fill in what the file records, for the manifest.
		r, err := open(t, b, ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		infos := r.Segments()
		if r.Encrypted() {
			infos = infos[1:]
		}
		for j, si := range infos {
			v.Segments[j].Codec, v.Segments[j].Flags, v.Segments[j].RawLen = si.Codec.String(), si.Flags.String(), int(si.RawLen)
		}
		if *update {
			if err := os.MkdirAll(goldenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./ctxfmt -run TestGolden -update)", err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: the writer's bytes changed for the same input (format freeze); if deliberate, run with -update", v.File)
		}
	}
	manifest := filepath.Join(goldenDir, "vectors.json")
	if *update {
		js, _ := json.MarshalIndent(vectors, "", "  ")
		if err := os.WriteFile(manifest, append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Read the stored vectors through the manifest alone.
	js, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var stored []goldenVector
	if err := json.Unmarshal(js, &stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(vectors) {
		t.Fatalf("manifest has %d vectors, want %d", len(stored), len(vectors))
	}
	for _, v := range stored {
		b, err := os.ReadFile(filepath.Join(goldenDir, v.File))
		if err != nil {
			t.Fatal(err)
		}
		ro := ReaderOptions{Passphrase: []byte(v.Passphrase), ExtensionTypes: []SegmentType{0x8001}}
		if v.Passphrase == "" {
			ro.Passphrase = nil
		}
		if v.KeyHex != "" {
			ro.Key, _ = hex.DecodeString(v.KeyHex)
		}
		if err := Verify(bytes.NewReader(b), int64(len(b)), VerifyOptions{Deep: true, Passphrase: ro.Passphrase, Key: ro.Key}); err != nil {
			t.Fatalf("%s: %v", v.File, err)
		}
		r, err := open(t, b, ro)
		if err != nil {
			t.Fatal(err)
		}
		first := 0
		if r.Encrypted() {
			first = 1
		}
		if r.NumSegments()-first != len(v.Segments) {
			t.Fatalf("%s: %d segments, manifest %d", v.File, r.NumSegments()-first, len(v.Segments))
		}
		for j, s := range v.Segments {
			si := r.Segments()[j+first]
			got, err := r.ReadSegment(j + first)
			if err != nil {
				t.Fatalf("%s segment %d: %v", v.File, j+first, err)
			}
			if string(got) != s.Content || si.Type.String() != s.Type || si.Codec.String() != s.Codec || si.Flags.String() != s.Flags || int(si.RawLen) != s.RawLen {
				t.Errorf("%s segment %d: got %s/%s/%s/%d %q, manifest %+v", v.File, j+first, si.Type, si.Codec, si.Flags, si.RawLen, got, s)
			}
		}
	}
}
