package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// ModelSource says which importer built a State's Messages and Tools from
// its raw transcript files, so that an archive can leave them out and
// rebuild them from the raw transcript when they are read (the
// conversation and the tool history are pure functions of the raw lines;
// storing them again would store the session twice).
//
// Encode stores a State this way when Importer names a registered Deriver
// and the raw transcript is stored unredacted; otherwise (no importer,
// redaction on) the conversation and tool-history segments are written as
// before. Decoded content is the same either way.
type ModelSource struct {
	// Importer and Version name the Deriver (see RegisterDeriver).
	Importer string `msgpack:"importer"`
	Version  int    `msgpack:"version"`
	// Root is the project root the importer made paths relative to (the
	// ImportOptions.ProjectDir it was given, made absolute; "" for none).
	Root string `msgpack:"root,omitempty"`
	// Resume is the importer's opaque state at a resumable point (see
	// EncodeOptions.Previous and Archive.ResumeState); stored in its own
	// small segment.
	Resume []byte `msgpack:"-"`
	// Partial marks a State whose Messages and Tools hold only what the
	// recall needs from the part read before a resume point (texts
	// resolved) plus everything read after it: Meta's counts are the
	// session's, and Encode must derive the conversation (it fails
	// otherwise).
	Partial bool `msgpack:"-"`
	// Lazy marks a State whose tool outputs BuildRecall does not read
	// (see RecallTexts) may be left undecoded: Output empty, OutputSpans
	// locating it in line ResultRef of Raw (archive.SpanText gives it).
	// Like a Partial one, Encode must derive its conversation (it fails
	// otherwise); claude.Save's States are so, Import's never.
	Lazy bool `msgpack:"-"`

	// digest fingerprints the Messages and Tools the importer built (see
	// State.SetSource): a State changed after import is stored in full.
	digest uint64
}

// SetSource records that s's Messages and Tools are exactly what src's
// importer builds from s.Raw. Encode checks the fingerprint taken here
// before it leaves them out; a State changed afterwards is stored whole.
func (s *State) SetSource(src ModelSource) {
	src.digest = modelDigest(s.Messages, s.Tools)
	s.Source = src
}

// derivable reports whether Encode may leave s's conversation out.
func (s *State) derivable() bool {
	return deriverFor(s.Source.Importer) != nil && s.Source.digest == modelDigest(s.Messages, s.Tools)
}

// modelDigest is an xxhash64 over every field of ms and ts.
func modelDigest(ms []Message, ts []ToolExec) uint64 {
	d := xxhash.New()
	var buf []byte
	str := func(x string) {
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		if len(x) > 256 {
			d.Write(buf)
			d.WriteString(x)
			buf = buf[:0]
			return
		}
		buf = append(buf, x...)
	}
	num := func(x int64) { buf = binary.AppendVarint(buf, x) }
	flag := func(x bool) {
		if x {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
	}
	tim := func(t time.Time) { num(t.Unix()); num(int64(t.Nanosecond())) }
	spans := func(sp []Span) {
		num(int64(len(sp)))
		for _, s := range sp {
			num(int64(s.Off))
			num(int64(s.Len))
			flag(s.Verbatim)
		}
	}
	strs := func(xs []string) {
		num(int64(len(xs)))
		for _, x := range xs {
			str(x)
		}
	}
	num(int64(len(ms)))
	for i := range ms {
		m := &ms[i]
		str(m.ID)
		str(m.ParentID)
		str(m.Role)
		str(m.Kind)
		str(m.Text)
		tim(m.Timestamp)
		num(m.Tokens)
		strs(m.ToolCallIDs)
		strs(m.Files)
		flag(m.Sidechain)
		str(m.AgentID)
		num(int64(m.Ref.File))
		num(int64(m.Ref.Line))
		spans(m.TextSpans)
		if len(buf) > 4096 {
			d.Write(buf)
			buf = buf[:0]
		}
	}
	num(int64(len(ts)))
	for i := range ts {
		t := &ts[i]
		str(t.ID)
		str(t.Name)
		str(t.Input)
		str(t.Output)
		flag(t.Success)
		num(t.DurationMS)
		tim(t.Timestamp)
		strs(t.RelatedFiles)
		str(t.Command)
		flag(t.Sidechain)
		num(int64(t.Ref.File))
		num(int64(t.Ref.Line))
		num(int64(t.ResultRef.File))
		num(int64(t.ResultRef.Line))
		spans(t.InputSpans)
		spans(t.OutputSpans)
		if len(buf) > 4096 {
			d.Write(buf)
			buf = buf[:0]
		}
	}
	d.Write(buf)
	return d.Sum64()
}

// Deriver rebuilds Messages and Tools from the raw transcript files of a
// session (as stored), with the project root recorded in ModelSource.
type Deriver func(raw []RawFile, root string) ([]Message, []ToolExec, error)

var derivers sync.Map // importer name → Deriver

// RegisterDeriver makes Deriver fn available to Encode and to archives
// opened in this process under the importer name; an importer package
// calls it from init (package transcript/claude registers "claude").
func RegisterDeriver(importer string, fn Deriver) {
	derivers.Store(importer, fn)
}

func deriverFor(importer string) Deriver {
	if importer == "" {
		return nil
	}
	v, ok := derivers.Load(importer)
	if !ok {
		return nil
	}
	return v.(Deriver)
}

// ErrNoDeriver: the archive's conversation is derived from its raw
// transcript by an importer this program does not link in.
var ErrNoDeriver = errors.New("archive: no importer registered to rebuild the conversation")

// derivedModel rebuilds (once) the messages and tools of an archive that
// stores them as derived.
func (a *Archive) derivedModel() ([]Message, []ToolExec, error) {
	a.derOnce.Do(func() {
		src := a.meta.Derived
		fn := deriverFor(src.Importer)
		if fn == nil {
			a.derErr = fmt.Errorf("%w: %q (import its package)", ErrNoDeriver, src.Importer)
			return
		}
		raw, err := a.RawFiles()
		if err != nil {
			a.derErr = err
			return
		}
		ms, ts, err := fn(raw, src.Root)
		if err != nil {
			a.derErr = fmt.Errorf("archive: rebuilding the conversation from the raw transcript: %w", err)
			return
		}
		want := a.meta.Meta
		if len(ms) != want.MessageCount || len(ts) != want.ToolCount {
			a.derErr = corrupt("raw transcript gives %d messages and %d tools, metadata says %d and %d (importer %s version %d)",
				len(ms), len(ts), want.MessageCount, want.ToolCount, src.Importer, src.Version)
			return
		}
		a.derMsgs, a.derTools = ms, ts
	})
	return a.derMsgs, a.derTools, a.derErr
}

// Source reports how the archive stores its conversation: ok is false
// when the conversation and tool history are stored in their own
// segments, true when they are rebuilt from the raw transcript by
// src.Importer.
func (a *Archive) Source() (src ModelSource, ok bool) {
	if a.meta.Derived == nil {
		return ModelSource{}, false
	}
	return *a.meta.Derived, true
}

// ResumeState returns the importer's resume state stored with the archive
// (ModelSource.Resume); ok is false when there is none.
func (a *Archive) ResumeState() (b []byte, ok bool, err error) {
	idx := a.r.Find(TypeResumeState)
	if len(idx) == 0 || a.meta.Derived == nil {
		return nil, false, nil
	}
	b, err = a.r.ReadSegment(idx[0])
	if err != nil {
		return nil, false, &SegmentError{Segment: "resume state", Err: err}
	}
	return b, true, nil
}
