package archive

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/ben10ctx/ben10/ctxfmt"
)

func jsonLines(n int, tag string) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"user","n":%d,"tag":%q,"text":"line %d of %s, repeated words repeated words"}`+"\n", i, tag, i, tag)
	}
	return b.Bytes()
}

// A packed (layout 2) archive reads back byte for byte, and a manifest
// that does not fit its segments is reported as corrupt, never a panic.
func TestPackedManifestChecks(t *testing.T) {
	st := &State{Raw: []RawFile{
		{Name: "s.jsonl", Data: jsonLines(300, "main")},
		{Name: "s/subagents/agent-a.jsonl", Data: jsonLines(40, "a")},
		{Name: "s/subagents/agent-b.jsonl", Data: nil},
		{Name: "s/subagents/agent-c.jsonl", Data: jsonLines(90, "c")},
	}}
	var buf bytes.Buffer
	if err := Encode(&buf, st, EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest, ChunkSize: 4096}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	a, err := Open(bytes.NewReader(b), int64(len(b)), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.meta.Layout != 3 {
		t.Fatalf("layout %d, want 3", a.meta.Layout)
	}
	// Layout 3: the shared segment holds the subagent chunks first and the
	// main file's last chunk (which opens it) at its end.
	last := a.loc[0][len(a.loc[0])-1]
	seg, err := a.r.ReadSegment(a.segIdx[last.seg])
	if err != nil {
		t.Fatal(err)
	}
	mc := a.meta.Raw[0].Chunks
	tail := int64(len(st.Raw[0].Data)) - mc[len(mc)-1].StoredLen
	if !last.shared || !bytes.HasSuffix(seg, st.Raw[0].Data[tail:]) || !bytes.HasPrefix(seg, st.Raw[1].Data) {
		t.Fatalf("shared segment: main tail not last (%+v)", last)
	}
	files, err := a.RawFiles()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if f.Name != st.Raw[i].Name || !bytes.Equal(f.Data, st.Raw[i].Data) {
			t.Fatalf("file %d (%s) differs", i, st.Raw[i].Name)
		}
	}
	infos := a.RawFileInfos()
	if infos[0].Segments < 2 || infos[0].Shared != 1 || infos[1].Shared != infos[1].Segments || infos[3].Shared == 0 {
		t.Fatalf("packing: %+v", infos)
	}
	// Only the main file's unshared chunks can be copied.
	if got := len(a.rawSegments(0)); got != infos[0].Segments-1 {
		t.Fatalf("main file: %d copyable segments, want %d", got, infos[0].Segments-1)
	}
	if got := len(a.rawSegments(1)); got != 0 {
		t.Fatalf("subagent file: %d copyable segments, want 0", got)
	}

	clone := func() metaSegment {
		m := a.meta
		m.Raw = make([]rawManifest, len(a.meta.Raw))
		for i, r := range a.meta.Raw {
			r.Chunks = append([]rawChunk(nil), r.Chunks...)
			m.Raw[i] = r
		}
		return m
	}
	for _, c := range []struct {
		name string
		f    func(m *metaSegment)
	}{
		{"first chunk packed", func(m *metaSegment) { m.Raw[0].Chunks[0].Packed = true }},
		{"packed chunk in layout 1", func(m *metaSegment) { m.Layout = 1 }},
		{"one segment fewer", func(m *metaSegment) { m.Raw[0].Chunks[1].Packed = true }},
		{"one segment more", func(m *metaSegment) { m.Raw[1].Chunks[0].Packed = false }},
		{"chunk length", func(m *metaSegment) { m.Raw[1].Chunks[0].StoredLen++; m.Raw[1].Size++ }},
		{"negative length", func(m *metaSegment) { m.Raw[3].Chunks[0].StoredLen = -5 }},
		{"huge length", func(m *metaSegment) { m.Raw[3].Chunks[0].StoredLen = 1 << 40 }},
		{"file size", func(m *metaSegment) { m.Raw[3].Size-- }},
	} {
		m := clone()
		c.f(&m)
		x := &Archive{r: a.r, meta: m}
		err := x.locateChunks()
		if err == nil {
			_, err = x.RawFiles()
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", c.name, err)
		}
	}
}

// Levels below LevelBest, or one raw file, or no compression: no packing,
// layout 1.
func TestNoPackingBelowBest(t *testing.T) {
	two := []RawFile{{Name: "s.jsonl", Data: jsonLines(50, "m")}, {Name: "s/subagents/agent-a.jsonl", Data: jsonLines(5, "a")}}
	for _, c := range []struct {
		raw  []RawFile
		opts EncodeOptions
	}{
		{two, EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelDefault}},
		{two, EncodeOptions{Codec: ctxfmt.CodecNone, Level: ctxfmt.LevelMax}},
		{two[:1], EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest}},
	} {
		var buf bytes.Buffer
		if err := Encode(&buf, &State{Raw: c.raw}, c.opts); err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.meta.Layout != 1 {
			t.Errorf("%d files, %+v: layout %d, want 1", len(c.raw), c.opts, a.meta.Layout)
		}
	}
}

// Subagent files larger than the pack limit are spread over several shared
// segments; every file reads back byte for byte, also after an incremental
// save on top of such an archive.
func TestPackedSeveralPacks(t *testing.T) {
	old := packLimit
	packLimit = 10000
	t.Cleanup(func() { packLimit = old })
	main := jsonLines(400, "main")
	raw := []RawFile{
		{Name: "s.jsonl", Data: main[:len(main)/2]},
		{Name: "s/subagents/agent-a.jsonl", Data: jsonLines(150, "a")},
		{Name: "s/subagents/agent-b.jsonl", Data: jsonLines(7, "b")},
		{Name: "s/subagents/agent-c.jsonl", Data: jsonLines(200, "c")},
	}
	opts := EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest, ChunkSize: 4096}
	var prev *Archive
	for step := range 2 {
		if step == 1 {
			raw[0].Data = main
			raw[3].Data = append(raw[3].Data, jsonLines(20, "c2")...)
			opts.Previous = prev
		}
		var buf bytes.Buffer
		stats, err := EncodeWithStats(&buf, &State{Raw: raw}, opts)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.meta.Layout != 3 || len(a.segLen) < 3 {
			t.Fatalf("step %d: layout %d, %d raw segments", step, a.meta.Layout, len(a.segLen))
		}
		for s, n := range a.segLen {
			if n > int64(packLimit) && n > 4096 {
				t.Fatalf("step %d: raw segment %d holds %d bytes, over the pack limit", step, s, n)
			}
		}
		if step == 1 && stats.CopiedSegments == 0 {
			t.Fatalf("step 1: nothing copied: %+v", stats)
		}
		files, err := a.RawFiles()
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			if !bytes.Equal(f.Data, raw[i].Data) {
				t.Fatalf("step %d: file %s differs", step, f.Name)
			}
		}
		prev = a
	}
}
