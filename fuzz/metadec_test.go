package fuzz

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// refMeta mirrors the metadata segment's payload (archive's unexported
// metaSegment) field for field, tag for tag: msgpack.Unmarshal into it is
// the reference archive.Open's reflection-free decoding must match.
type refMeta struct {
	Layout   int                     `msgpack:"layout"`
	Meta     archive.Metadata        `msgpack:"meta"`
	Import   archive.ImportReport    `msgpack:"import"`
	Raw      []refRaw                `msgpack:"raw"`
	Contents []refContent            `msgpack:"contents"`
	Redacted bool                    `msgpack:"redacted"`
	Redact   archive.RedactionReport `msgpack:"redaction"`
	RedactFP string                  `msgpack:"redact_fp,omitempty"`
	Counts   struct {
		Compactions int `msgpack:"compactions"`
		Preferences int `msgpack:"preferences"`
		Active      int `msgpack:"active"`
		Pending     int `msgpack:"pending"`
		Completed   int `msgpack:"completed"`
	} `msgpack:"counts"`
	Derived msgpack.RawMessage `msgpack:"derived,omitempty"`
	Pending msgpack.RawMessage `msgpack:"pending,omitempty"`
}

type refRaw struct {
	Name          string     `msgpack:"name"`
	Size          int64      `msgpack:"size"`
	SHA256        string     `msgpack:"sha256"`
	Chunks        []refChunk `msgpack:"chunks"`
	RedactedLines []int      `msgpack:"redacted_lines,omitempty"`
}

type refChunk struct {
	StoredLen int64  `msgpack:"n"`
	OrigLen   int64  `msgpack:"on"`
	OrigHash  uint64 `msgpack:"oh"`
	Lines     int    `msgpack:"lines"`
	Mid       []byte `msgpack:"mid,omitempty"`
	Packed    bool   `msgpack:"pk,omitempty"`
}

type refContent struct {
	Path   string `msgpack:"path"`
	Size   int64  `msgpack:"size"`
	SHA256 string `msgpack:"sha256"`
}

// withMeta rebuilds base with its metadata segment's payload replaced.
func withMeta(base *ctxfmt.Reader, meta []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := ctxfmt.NewWriter(&buf, ctxfmt.WriterOptions{})
	if err != nil {
		return nil, err
	}
	for i, s := range base.Segments() {
		if s.Type == ctxfmt.TypeMetadata {
			err = w.Add(ctxfmt.TypeMetadata, meta)
		} else {
			err = w.CopyRaw(base, i)
		}
		if err != nil {
			return nil, err
		}
	}
	err = w.Close()
	return buf.Bytes(), err
}

// FuzzArchiveOpenMeta: an archive whose metadata segment holds arbitrary
// bytes opens without panicking or allocating without bound (msgpack
// v5.4.1 alone preallocates a hostile array length); where Open decodes
// the metadata, what it shows of it (Meta, ImportReport, Redaction,
// RawFileInfos) is what msgpack.Unmarshal decodes from the same bytes.
// (archive's FuzzMetaDecode compares the whole payload, errors included.)
func FuzzArchiveOpenMeta(f *testing.F) {
	st, err := claude.Import(context.Background(), filepath.Join("..", "transcript", "claude", "testdata", "11111111-2222-4333-8444-555555555555.jsonl"), archive.ImportOptions{})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	now := func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
	if err := archive.Encode(context.Background(), &buf, st, archive.EncodeOptions{ChunkSize: 1024, Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelBest, Now: now}); err != nil {
		f.Fatal(err)
	}
	base, err := ctxfmt.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ctxfmt.ReaderOptions{})
	if err != nil {
		f.Fatal(err)
	}
	seg, err := base.ReadSegment(base.Find(ctxfmt.TypeMetadata)[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seg)
	f.Add(seg[:len(seg)/2])
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, meta []byte) {
		b, err := withMeta(base, meta)
		if err != nil {
			t.Fatal(err)
		}
		a, err := archive.Open(bytes.NewReader(b), int64(len(b)), archive.OpenOptions{})
		var se *archive.SegmentError
		if errors.As(err, &se) && se.Segment == "metadata" {
			if !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("metadata error not ErrCorrupt: %v", err)
			}
			return
		}
		if errors.Is(err, archive.ErrNotArchive) {
			return // a metadata segment that is not a msgpack map: not Ben10's
		}
		// Open decoded the metadata: its lengths are all backed by bytes,
		// so the reference can run.
		var ref refMeta
		if refErr := msgpack.Unmarshal(meta, &ref); refErr != nil {
			t.Fatalf("Open decoded metadata msgpack refuses (%v); Open: %v", refErr, err)
		}
		if err != nil {
			return // refused after decoding: layout, schema, chunk table
		}
		defer a.Close()
		// (Pre-release forms, a derived conversation or a raw-only
		// archive, are refused above.)
		if ref.Derived != nil || ref.Pending != nil {
			t.Fatalf("Open accepted a pre-release form (derived %x, pending %x)", ref.Derived, ref.Pending)
		}
		if got := a.Meta(); !reflect.DeepEqual(got, ref.Meta) {
			t.Fatalf("Meta %+v, msgpack %+v", got, ref.Meta)
		}
		if got := a.ImportReport(); !reflect.DeepEqual(got, ref.Import) {
			t.Fatalf("ImportReport %+v, msgpack %+v", got, ref.Import)
		}
		if got := a.Redaction(); !reflect.DeepEqual(got, ref.Redact) {
			t.Fatalf("Redaction %+v, msgpack %+v", got, ref.Redact)
		}
		infos := a.RawFileInfos()
		if len(infos) != len(ref.Raw) {
			t.Fatalf("%d raw files, msgpack %d", len(infos), len(ref.Raw))
		}
		for i, r := range ref.Raw {
			if g := infos[i]; g.Name != r.Name || g.Size != r.Size || g.SHA256 != r.SHA256 || g.Segments != len(r.Chunks) {
				t.Fatalf("raw file %d: %+v, msgpack %+v", i, g, r)
			}
		}
	})
}
