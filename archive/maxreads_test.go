package archive_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// rangeReader is a ReaderAt that records the byte ranges read.
type rangeReader struct {
	b      []byte
	mu     sync.Mutex
	ranges [][2]int64
}

func (r *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	r.ranges = append(r.ranges, [2]int64{off, off + int64(len(p))})
	r.mu.Unlock()
	return bytes.NewReader(r.b).ReadAt(p, off)
}

// segmentsRead returns the types of the segments whose stored bytes the
// recorded reads touched, and how many bytes were read in all.
func (r *rangeReader) segmentsRead(infos []ctxfmt.SegmentInfo) (map[ctxfmt.SegmentType]bool, int64) {
	got := map[ctxfmt.SegmentType]bool{}
	var n int64
	for _, rg := range r.ranges {
		n += rg[1] - rg[0]
		for _, si := range infos {
			if rg[0] < si.Offset+si.StoredLen && si.Offset < rg[1] {
				got[si.Type] = true
			}
		}
	}
	return got, n
}

// TestMaxDigestPathReads: the SessionStart digest's reads (Open, Recall,
// Digest) of a max archive touch the metadata and the recall only: the
// header, index and footer, the metadata and the recall. Reading the
// file registry never reads the raw transcript.
func TestMaxDigestPathReads(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	save := func(l ctxfmt.Level) []byte {
		var buf bytes.Buffer
		if _, _, err := claude.SaveFiles(context.Background(), &buf, files, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: l, Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	digestReads := func(b []byte) (map[ctxfmt.SegmentType]bool, int64, string) {
		rr := &rangeReader{b: b}
		a, err := archive.Open(rr, int64(len(b)), archive.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, ok, err := a.Recall()
		if err != nil || !ok {
			t.Fatalf("Recall: %v %v", ok, err)
		}
		d := archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Now: fixedNow()})
		got, n := rr.segmentsRead(a.Container().Segments())
		return got, n, d
	}
	mx := save(ctxfmt.LevelMax)
	got, n, d := digestReads(mx)
	want := map[ctxfmt.SegmentType]bool{ctxfmt.TypeMetadata: true, ctxfmt.TypeSummaries: true}
	if len(got) != len(want) || !got[ctxfmt.TypeMetadata] || !got[ctxfmt.TypeSummaries] {
		t.Errorf("digest path read segments %v, want metadata and summaries only", got)
	}
	a := open(t, mx, archive.OpenOptions{})
	infos := a.Container().Segments()
	mi, si := infos[a.Container().Find(ctxfmt.TypeMetadata)[0]], infos[a.Container().Find(ctxfmt.TypeSummaries)[0]]
	t.Logf("digest path: %d bytes read (metadata %d + recall %d stored), digest of %d characters", n, mi.StoredLen, si.StoredLen, len(d))
	if n > int64(ctxfmt.HeaderSize+len(infos)*ctxfmt.EntrySize+ctxfmt.IndexSumSize+ctxfmt.FooterSize)+mi.StoredLen+si.StoredLen {
		t.Errorf("digest path read %d bytes, more than the header, index, footer, metadata and recall", n)
	}

	// The file registry does not read the raw transcript.
	rr := &rangeReader{b: mx}
	a2, err := archive.Open(rr, int64(len(mx)), archive.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := a2.Files(); err != nil || len(fs) == 0 {
		t.Fatalf("Files: %v %v", fs, err)
	}
	if got, _ := rr.segmentsRead(a2.Container().Segments()); got[ctxfmt.TypeRawTranscript] {
		t.Errorf("Files read the raw transcript: %v", got)
	}
}

// TestMaxKeepsChunksCopyable: at max every raw chunk is a segment of its
// own, compressed without a dictionary, which a later save copies.
func TestMaxKeepsChunksCopyable(t *testing.T) {
	files, err := claude.ReadFiles(filepath.Join(fixtureDir, v2+".jsonl"), archive.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	main := files[:1] // one file: no packing, one segment per chunk
	data := main[0].Data
	cut := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	first := []archive.RawFile{{Name: main[0].Name, Data: data[:cut]}}
	opts := archive.EncodeOptions{Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax, ChunkSize: 2048, Now: fixedNow}
	var buf bytes.Buffer
	if _, _, err := claude.SaveFiles(context.Background(), &buf, first, archive.ImportOptions{}, opts); err != nil {
		t.Fatal(err)
	}
	prev := open(t, buf.Bytes(), archive.OpenOptions{})
	var codecs []ctxfmt.Codec
	for _, si := range prev.Container().Segments() {
		if si.Type == ctxfmt.TypeRawTranscript {
			codecs = append(codecs, si.Codec)
		}
	}
	if len(codecs) < 3 {
		t.Fatalf("fixture cut into %d raw segments; want several", len(codecs))
	}
	for i, c := range codecs {
		if c == ctxfmt.CodecZstdDict {
			t.Errorf("raw segment %d of %d: codec %s", i, len(codecs), c)
		}
	}
	for _, l := range []ctxfmt.Level{ctxfmt.LevelDefault, ctxfmt.LevelMax} {
		o := opts
		o.Level, o.Previous = l, prev
		var next bytes.Buffer
		_, stats, err := claude.SaveFiles(context.Background(), &next, main, archive.ImportOptions{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if stats.CopiedSegments == 0 {
			t.Errorf("level %v: %d raw segments copied of %d", l, stats.CopiedSegments, len(codecs))
		}
		a := open(t, next.Bytes(), archive.OpenOptions{})
		raw, err := a.RawFiles()
		if err != nil || !bytes.Equal(raw[0].Data, data) {
			t.Fatalf("level %v: raw file differs (%v)", l, err)
		}
		if err := ctxfmt.Verify(bytes.NewReader(next.Bytes()), int64(next.Len()), ctxfmt.VerifyOptions{Deep: true}); err != nil {
			t.Fatal(err)
		}
	}
}
