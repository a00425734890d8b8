package archive

import (
	"bytes"
	"context"
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

// An archive of several raw files is written in layout 1, one segment per
// chunk, at every level, and reads back byte for byte; a manifest that
// does not fit its segments is reported as corrupt, never a panic.
func TestManifestChecks(t *testing.T) {
	st := &State{Raw: []RawFile{
		{Name: "s.jsonl", Data: jsonLines(300, "main")},
		{Name: "s/subagents/agent-a.jsonl", Data: jsonLines(40, "a")},
		{Name: "s/subagents/agent-b.jsonl", Data: nil},
		{Name: "s/subagents/agent-c.jsonl", Data: jsonLines(90, "c")},
	}}
	var buf bytes.Buffer
	if err := Encode(context.Background(), &buf, st, EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax, ChunkSize: 4096}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	a, err := Open(bytes.NewReader(b), int64(len(b)), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.meta.Layout != 1 {
		t.Fatalf("layout %d, want 1", a.meta.Layout)
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
	for i, info := range a.RawFileInfos() {
		if len(a.rawSegments(i)) != info.Segments {
			t.Fatalf("file %d: %+v, %d copyable segments", i, info, len(a.rawSegments(i)))
		}
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
		want error
	}{
		{"packed chunk (a pre-release form)", func(m *metaSegment) { m.Raw[0].Chunks[1].Packed = true }, ErrSchema},
		{"chunk length", func(m *metaSegment) { m.Raw[1].Chunks[0].StoredLen++; m.Raw[1].Size++ }, ErrCorrupt},
		{"negative length", func(m *metaSegment) { m.Raw[3].Chunks[0].StoredLen = -5 }, ErrCorrupt},
		{"huge length", func(m *metaSegment) { m.Raw[3].Chunks[0].StoredLen = 1 << 40 }, ErrCorrupt},
		{"file size", func(m *metaSegment) { m.Raw[3].Size-- }, ErrCorrupt},
	} {
		m := clone()
		c.f(&m)
		x := &Archive{r: a.r, meta: m}
		err := x.locateChunks()
		if err == nil {
			_, err = x.RawFiles()
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
