package claude

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive"
)

// toolSkels is the resume state's tool list, encoded without reflection
// or field names: one array per tool (see EncodeMsgpack). Texts are not
// part of it (they are left out of the resume state).
type toolSkels []archive.ToolExec

// toolSkelFields is the number of items in one tool's array.
const toolSkelFields = 14

// EncodeMsgpack writes each tool as [id, name, success, duration_ms, ts,
// files, command, sidechain, ref.file, ref.line, rref.file, rref.line,
// input spans, output spans]; spans are flat [off, len, verbatim, ...].
func (ts toolSkels) EncodeMsgpack(enc *msgpack.Encoder) error {
	if err := enc.EncodeArrayLen(len(ts)); err != nil {
		return err
	}
	for i := range ts {
		t := &ts[i]
		errs := []error{
			enc.EncodeArrayLen(toolSkelFields),
			enc.EncodeString(t.ID), enc.EncodeString(t.Name), enc.EncodeBool(t.Success),
			enc.EncodeInt(t.DurationMS), enc.EncodeTime(t.Timestamp),
			encodeStrings(enc, t.RelatedFiles), enc.EncodeString(t.Command), enc.EncodeBool(t.Sidechain),
			enc.EncodeInt(int64(t.Ref.File)), enc.EncodeInt(int64(t.Ref.Line)),
			enc.EncodeInt(int64(t.ResultRef.File)), enc.EncodeInt(int64(t.ResultRef.Line)),
			encodeSpans(enc, t.InputSpans), encodeSpans(enc, t.OutputSpans),
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func encodeStrings(enc *msgpack.Encoder, ss []string) error {
	if err := enc.EncodeArrayLen(len(ss)); err != nil {
		return err
	}
	for _, s := range ss {
		if err := enc.EncodeString(s); err != nil {
			return err
		}
	}
	return nil
}

func encodeSpans(enc *msgpack.Encoder, sp []archive.Span) error {
	if err := enc.EncodeArrayLen(3 * len(sp)); err != nil {
		return err
	}
	for _, s := range sp {
		if err := enc.EncodeUint(uint64(s.Off)); err != nil {
			return err
		}
		if err := enc.EncodeUint(uint64(s.Len)); err != nil {
			return err
		}
		if err := enc.EncodeBool(s.Verbatim); err != nil {
			return err
		}
	}
	return nil
}

// maxSkelItems bounds any array length read from a resume state before
// its items are read (each item takes at least one byte, so a longer array
// is malformed; lists grow as items arrive).
const maxSkelItems = 1 << 26

// DecodeMsgpack reads what EncodeMsgpack wrote.
func (ts *toolSkels) DecodeMsgpack(dec *msgpack.Decoder) error {
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return err
	}
	if n < 0 || n > maxSkelItems {
		*ts = nil
		if n < 0 {
			return nil
		}
		return fmt.Errorf("tool list of %d items", n)
	}
	out := make([]archive.ToolExec, 0, min(n, 1024))
	for range n {
		var t archive.ToolExec
		if k, err := dec.DecodeArrayLen(); err != nil {
			return err
		} else if k != toolSkelFields {
			return fmt.Errorf("tool record of %d items, want %d", k, toolSkelFields)
		}
		var rf, rl, of, ol int64
		if t.ID, err = dec.DecodeString(); err != nil {
			return err
		}
		if t.Name, err = dec.DecodeString(); err != nil {
			return err
		}
		if t.Success, err = dec.DecodeBool(); err != nil {
			return err
		}
		if t.DurationMS, err = dec.DecodeInt64(); err != nil {
			return err
		}
		if t.Timestamp, err = dec.DecodeTime(); err != nil {
			return err
		}
		if t.RelatedFiles, err = decodeStrings(dec); err != nil {
			return err
		}
		if t.Command, err = dec.DecodeString(); err != nil {
			return err
		}
		if t.Sidechain, err = dec.DecodeBool(); err != nil {
			return err
		}
		for _, p := range []*int64{&rf, &rl, &of, &ol} {
			if *p, err = dec.DecodeInt64(); err != nil {
				return err
			}
		}
		t.Ref, t.ResultRef = archive.RawRef{File: int(rf), Line: int(rl)}, archive.RawRef{File: int(of), Line: int(ol)}
		if t.InputSpans, err = decodeSpans(dec); err != nil {
			return err
		}
		if t.OutputSpans, err = decodeSpans(dec); err != nil {
			return err
		}
		out = append(out, t)
	}
	*ts = out
	return nil
}

func decodeStrings(dec *msgpack.Decoder) ([]string, error) {
	n, err := dec.DecodeArrayLen()
	if err != nil || n <= 0 {
		return nil, err
	}
	if n > maxSkelItems {
		return nil, fmt.Errorf("string list of %d items", n)
	}
	out := make([]string, 0, min(n, 64))
	for range n {
		s, err := dec.DecodeString()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeSpans(dec *msgpack.Decoder) ([]archive.Span, error) {
	n, err := dec.DecodeArrayLen()
	if err != nil || n <= 0 {
		return nil, err
	}
	if n%3 != 0 || n > maxSkelItems {
		return nil, fmt.Errorf("span list of %d items", n)
	}
	out := make([]archive.Span, 0, min(n/3, 64))
	for range n / 3 {
		off, err := dec.DecodeUint32()
		if err != nil {
			return nil, err
		}
		l, err := dec.DecodeUint32()
		if err != nil {
			return nil, err
		}
		v, err := dec.DecodeBool()
		if err != nil {
			return nil, err
		}
		out = append(out, archive.Span{Off: off, Len: l, Verbatim: v})
	}
	return out, nil
}
