package archive

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/ben10ctx/ben10/ctxfmt"
)

// ReencodeOptions tune Archive.Reencode: the codec, level, concurrency and
// encryption of the new archive (as in EncodeOptions).
type ReencodeOptions struct {
	Codec       ctxfmt.Codec
	Level       ctxfmt.Level
	Concurrency int
	Encryption  *ctxfmt.Encryption
	// Auth, when set and when it authenticates the archive (see
	// Archive.Authenticate), authenticates the new archive too. An
	// archive Auth does not authenticate is written without a tag:
	// re-encoding never turns someone else's archive into the user's.
	Auth *AuthKey
}

// retag returns k when k authenticates a (the re-encoded archive is then
// tagged with k), nil otherwise.
func (a *Archive) retag(k *AuthKey) *AuthKey {
	if k == nil {
		return nil
	}
	if _, err := a.Authenticate(k); err != nil {
		return nil
	}
	return k
}

// Reencode writes the archive's content again to w at another codec and
// level, laid out as Encode lays out an archive (layout 1: a pre-release
// archive's shared raw segments are cut back into one segment per chunk,
// the caches pre-release versions kept for the next save are left out),
// and older stored forms of the recall and the file registry are written
// in the current compact forms. Everything else is
// kept as it is: the stored raw transcript byte for byte (already
// redacted when the archive is; nothing is redacted again), its chunks
// and their matching hashes, the metadata (times and counts), the
// redaction report and fingerprint, and every model segment's payload
// (texts stored as pointers into the raw lines stay valid, the lines
// being the same). Segments this build does not know are copied with
// their flags. The raw files are read and checked against their SHA-256
// first; no importer runs.
//
// It is how a snapshot written at a fast level in a hurry gets the layout
// of a direct save at its final level (snapshot.Manager.Recompress).
//
// Cancelling ctx stops the work and returns ctx's error; what was written
// to w is then incomplete.
func (a *Archive) Reencode(ctx context.Context, w io.Writer, opts ReencodeOptions) (EncodeStats, error) {
	var stats EncodeStats
	raw, err := a.RawFiles()
	if err != nil {
		return stats, err
	}
	cw, err := ctxfmt.NewWriter(w, ctxfmt.WriterOptions{
		Codec: opts.Codec, Level: opts.Level, Concurrency: opts.Concurrency, Encryption: opts.Encryption,
	})
	if err != nil {
		return stats, fmt.Errorf("archive: %w", err)
	}
	n := len(raw)
	e := &encoder{
		ctx:     ctx,
		opts:    EncodeOptions{Codec: opts.Codec, Level: opts.Level, Concurrency: opts.Concurrency, Encryption: opts.Encryption, Auth: a.retag(opts.Auth)},
		w:       cw,
		stats:   &stats,
		files:   raw,
		stored:  make([][]byte, n),
		starts:  make([][]int, n),
		changed: make([]map[int]bool, n),
		man:     make([]rawManifest, n),
		reuse:   make([]int, n),
	}
	for i, f := range raw {
		m := a.meta.Raw[i]
		m.Chunks = append([]rawChunk(nil), m.Chunks...)
		for k := range m.Chunks {
			m.Chunks[k].Mid, m.Chunks[k].Packed = nil, false
		}
		// The SHA-256 states at the chunk ends are recomputed (an
		// archive packed before holds them only for unpacked chunks).
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		if got := hashChunks(sha256.New(), f.Data, m.Chunks); got != m.SHA256 {
			return stats, corrupt("raw file %s: SHA-256 mismatch", m.Name)
		}
		e.man[i], e.stored[i] = m, f.Data
		e.changed[i] = map[int]bool{}
		for _, l := range m.RedactedLines {
			e.changed[i][l] = true
		}
	}
	if err := e.prepareRaw(); err != nil {
		return stats, err
	}
	ms := a.meta
	ms.Layout, ms.Raw = layoutWritten, e.man
	metaB, err := marshal(&ms)
	if err != nil {
		return stats, fmt.Errorf("archive: encoding metadata: %w", err)
	}
	rawDone := false
	writeRaw := func() error {
		if rawDone {
			return nil
		}
		rawDone = true
		return e.writeRaw()
	}
	metaDone := false
	var recallOut []byte // the first summaries payload written
	for _, seg := range a.r.Segments() {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		var payload []byte
		switch seg.Type {
		case ctxfmt.TypeCryptoParams, TypeAuthTag:
			continue // written by the writer itself, and below
		case ctxfmt.TypeRawTranscript:
			if err := writeRaw(); err != nil {
				return stats, err
			}
			continue
		case ctxfmt.TypeMetadata:
			if metaDone {
				continue // only the first is read; Encode writes one
			}
			metaDone = true
			payload = metaB
		case typeRecallFold, typeResumeState:
			continue // caches new archives do not hold
		case ctxfmt.TypeFileContents:
			// Contents follow the raw segments, as Encode writes them.
			if err := writeRaw(); err != nil {
				return stats, err
			}
		}
		if payload == nil {
			b, err := a.r.ReadSegment(seg.Index)
			if err != nil {
				return stats, &SegmentError{Segment: seg.Type.String(), Err: err}
			}
			if payload, err = reencodePayload(seg.Type, b); err != nil {
				return stats, &SegmentError{Segment: seg.Type.String(), Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
			}
			if payload == nil {
				continue // an empty list: no segment
			}
		}
		// (The writer stores a segment uncompressed where compression
		// does not make it smaller, as at any level.)
		o := ctxfmt.SegmentOptions{Codec: opts.Codec, Level: opts.Level, Optional: !seg.Required}
		if err := cw.AddWith(seg.Type, payload, o); err != nil {
			return stats, fmt.Errorf("archive: %w", err)
		}
		if seg.Type == ctxfmt.TypeSummaries && recallOut == nil {
			recallOut = payload
		}
	}
	if !metaDone {
		return stats, ErrNotArchive
	}
	if len(a.r.Find(ctxfmt.TypeSummaries)) > 0 && recallOut == nil {
		recallOut = []byte{}
	}
	if err := e.addTag(ms.Meta, metaB, recallOut); err != nil {
		return stats, err
	}
	if err := writeRaw(); err != nil {
		return stats, err
	}
	if err := cw.Close(); err != nil {
		return stats, fmt.Errorf("archive: %w", err)
	}
	return stats, nil
}

// reencodePayload returns what Reencode stores for a model segment's
// payload b: the recall and the file registry in their current compact
// forms (older archives hold map forms), nil for an empty compactions or
// preferences list (Encode writes no segment then), b itself otherwise.
func reencodePayload(t ctxfmt.SegmentType, b []byte) ([]byte, error) {
	switch t {
	case ctxfmt.TypeSummaries:
		r, err := DecodeRecall(b)
		if err != nil {
			return nil, err
		}
		return appendRecall(make([]byte, 0, len(b)), &r), nil
	case ctxfmt.TypeFileRegistry:
		var fr fileRegistry
		if err := unmarshal(b, &fr); err != nil {
			return nil, err
		}
		return marshal(fr)
	case ctxfmt.TypeCompactions, ctxfmt.TypePreferences:
		if len(b) == 1 && (b[0] == 0x90 || b[0] == 0xc0) { // [] or nil
			return nil, nil
		}
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
