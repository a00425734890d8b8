package archive

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/ben10ctx/ben10/archive/internal/mpguard"
)

// The recall's stored form (docs/FORMAT.md, "summaries"): a msgpack array
// of positional records, each one a wire struct below encoded as the
// array of its fields in order (marshalArrays):
//
//	[recallWireForm, Version, base, Session, Initial, Requests, Tasks,
//	 Files, Commands, Errors, Decisions, Compactions, Omitted]
//
// A time is nil (the zero time), an integer (milliseconds after base,
// itself Unix milliseconds; Claude Code's timestamps have millisecond
// precision) or [seconds, nanoseconds] for a time that is not a whole
// millisecond or is more than 2⁴⁰ seconds from the Unix epoch. Every
// record has exactly as many elements as its struct has fields: a field
// added later means a new form number. The map form pre-release builds
// wrote (keys as in Recall's msgpack tags) is refused with ErrSchema.
const recallWireForm = 2

// MarshalMsgpack encodes r in the compact positional form (see
// DecodeRecall), so msgpack.Marshal(&r) gives what an archive stores.
func (r *Recall) MarshalMsgpack() ([]byte, error) {
	return marshalArrays(recallToWire(r))
}

// UnmarshalMsgpack decodes the stored form of a Recall; the map form
// pre-release builds wrote, and a Recall of a newer version, give
// ErrSchema.
func (r *Recall) UnmarshalMsgpack(b []byte) error {
	var w recallWire
	if err := unmarshalCompact(b, recallWireForm, "recall", &w); err != nil {
		return err
	}
	out, err := w.recall()
	if err != nil {
		return err
	}
	if out.Version > RecallVersion {
		return fmt.Errorf("%w: recall version %d (this build reads up to %d)", ErrSchema, out.Version, RecallVersion)
	}
	*r = out
	return nil
}

// recallPayload is the one place the recall (see BuildRecall) is made for
// the summaries segment: built from the full State at encode time, so
// that Digest on a large archive reads one small segment.
func recallPayload(s *State) []byte {
	r := BuildRecall(s)
	b, err := r.MarshalMsgpack()
	if err != nil {
		// marshal writes to memory, and no wire type's encoder returns
		// an error of its own: unreachable.
		panic(fmt.Sprintf("archive: encoding the recall: %v", err))
	}
	return b
}

// marshalArrays encodes v as marshal does but every struct as the array
// of its fields, in order: the compact forms' records (the wire types
// below). The decoder reads such an array into a struct whose number of
// fields it matches.
func marshalArrays(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	enc.UseArrayEncodedStructs(true)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errCompactForm is the cause of every malformed compact payload (recall,
// file registry).
var errCompactForm = errors.New("malformed compact msgpack")

// unmarshalCompact decodes a compact form (an array whose first element
// is its form number, want) into v: ErrSchema for another form number or
// the map form pre-release builds wrote, errCompactForm for anything but
// exactly one well-formed value of v's shape.
func unmarshalCompact(b []byte, want int64, what string, v any) error {
	if mapForm(b) {
		return fmt.Errorf("%w: %s in the pre-release map form (no longer read)", ErrSchema, what)
	}
	ok, _, end := mpguard.WellFormed(b)
	if !ok {
		return fmt.Errorf("%w: %w", errCompactForm, mpguard.ErrMalformed)
	}
	if end != len(b) {
		return fmt.Errorf("%w: %d trailing bytes", errCompactForm, len(b)-end)
	}
	d := msgpack.NewDecoder(bytes.NewReader(b))
	if _, err := d.DecodeArrayLen(); err != nil {
		return fmt.Errorf("%w: %w", errCompactForm, err)
	}
	if form, err := d.DecodeInt64(); err != nil {
		return fmt.Errorf("%w: %s form number: %w", errCompactForm, what, err)
	} else if form != want {
		return fmt.Errorf("%w: compact %s form %d (this build reads %d)", ErrSchema, what, form, want)
	}
	if err := unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %w", errCompactForm, err)
	}
	return nil
}

// wireTime is a time as the compact forms store it (see recallWireForm):
// the zero time, milliseconds after the payload's base, or seconds and
// nanoseconds.
type wireTime struct {
	set  bool  // not the zero time
	ms   bool  // v is milliseconds after base
	v    int64 // milliseconds, or seconds
	nsec int64
}

// timeBase converts times to and from a payload's wireTime (base: Unix
// milliseconds).
type timeBase int64

// msTime reports whether t is within ±2⁴⁰ s of the Unix epoch (about
// 35,000 years), where its milliseconds and their differences fit the
// integer form; any other time is written as [seconds, nanoseconds].
func msTime(t time.Time) bool {
	return t.Unix() > -1<<40 && t.Unix() < 1<<40
}

func (base timeBase) put(t time.Time) wireTime {
	switch {
	case t.IsZero():
		return wireTime{}
	case t.Nanosecond()%int(time.Millisecond) == 0 && msTime(t):
		return wireTime{set: true, ms: true, v: t.UnixMilli() - int64(base)}
	}
	return wireTime{set: true, v: t.Unix(), nsec: int64(t.Nanosecond())}
}

func (base timeBase) get(w wireTime) (time.Time, error) {
	switch {
	case !w.set:
		return time.Time{}, nil
	case w.ms:
		// The writer's milliseconds and base are within ±2⁵⁰ (msTime).
		if w.v < -1<<52 || w.v > 1<<52 || base < -1<<51 || base > 1<<51 {
			return time.Time{}, fmt.Errorf("%w: time out of range", errCompactForm)
		}
		return time.UnixMilli(int64(base) + w.v).UTC(), nil
	case w.nsec < 0 || w.nsec >= int64(time.Second):
		return time.Time{}, fmt.Errorf("%w: time out of range", errCompactForm)
	}
	return time.Unix(w.v, w.nsec).UTC(), nil
}

// EncodeMsgpack writes nil, the milliseconds, or [seconds, nanoseconds].
func (w wireTime) EncodeMsgpack(e *msgpack.Encoder) error {
	switch {
	case !w.set:
		return e.EncodeNil()
	case w.ms:
		return e.EncodeInt(w.v)
	}
	if err := e.EncodeArrayLen(2); err != nil {
		return err
	}
	if err := e.EncodeInt(w.v); err != nil {
		return err
	}
	return e.EncodeInt(w.nsec)
}

// DecodeMsgpack reads what EncodeMsgpack writes.
func (w *wireTime) DecodeMsgpack(d *msgpack.Decoder) error {
	*w = wireTime{}
	c, err := d.PeekCode()
	if err != nil {
		return err
	}
	switch {
	case c == 0xc0:
		return d.DecodeNil()
	case c&0xf0 == 0x90 || c == 0xdc || c == 0xdd:
		n, err := d.DecodeArrayLen()
		if err != nil {
			return err
		}
		if n != 2 {
			return fmt.Errorf("%w: a time of %d elements", errCompactForm, n)
		}
		w.set = true
		if w.v, err = d.DecodeInt64(); err != nil {
			return err
		}
		w.nsec, err = d.DecodeInt64()
		return err
	}
	w.set, w.ms = true, true
	w.v, err = d.DecodeInt64()
	return err
}

// The compact recall's records (see recallWireForm), encoded by
// marshalArrays.
type (
	recallWire struct {
		Form        int64
		Version     int
		Base        int64
		Session     sessionWire
		Initial     *requestWire
		Requests    []requestWire
		Tasks       tasksWire
		Files       []recallFileWire
		Commands    []commandWire
		Errors      []errorWire
		Decisions   []decisionWire
		Compactions []compactionWire
		Omitted     omittedWire
	}
	sessionWire struct {
		Harness, SessionID, Title, Directory, GitBranch, Model, Client string
		First, Last                                                    wireTime
		Messages, ToolCalls, Files                                     int
		ContextTokens, ContextWindow                                   int64
	}
	requestWire struct {
		Text string
		Time wireTime
	}
	tasksWire struct {
		Active, Pending, Completed []Task // [id, content, active_form, status]
		UpdatedAt                  wireTime
	}
	recallFileWire struct {
		Path                           string
		Reads, Edits, Writes, Searches int
		Last                           wireTime
		Seq                            int
	}
	commandWire struct {
		Command               string
		Lines, Runs, Failures int
		OK                    bool
		Exit                  int
		ExitKnown             bool
		Error                 string
		NoResult              bool
		Last                  wireTime
		Seq                   int
	}
	errorWire struct {
		Tool, Subject, Message string
		Count                  int
		Resolved               bool
		Time                   wireTime
		Seq                    int
	}
	decisionWire struct {
		Kind, Text string
		Time       wireTime
	}
	compactionWire struct {
		Trigger   string
		PreTokens int64
		Time      wireTime
	}
	omittedWire struct {
		Requests, Files, Commands, Errors, Tasks, Decisions, Compacts int
	}
)

// recallToWire lays r out in the compact form: times after the latest
// activity's millisecond.
func recallToWire(r *Recall) *recallWire {
	var base timeBase
	if t := r.Session.LastActivity; !t.IsZero() && msTime(t) {
		base = timeBase(t.UnixMilli())
	}
	w := &recallWire{Form: recallWireForm, Version: r.Version, Base: int64(base)}
	// Recall's fields after Version are the record's after Base.
	wv, rv := reflect.ValueOf(w).Elem(), reflect.ValueOf(r).Elem()
	for i := 1; i < rv.NumField(); i++ {
		_ = base.copyValue(wv.Field(i+2), rv.Field(i)) // no error putting times
	}
	return w
}

// recall gives back the Recall w lays out.
func (w *recallWire) recall() (Recall, error) {
	r := Recall{Version: w.Version}
	wv, rv := reflect.ValueOf(w).Elem(), reflect.ValueOf(&r).Elem()
	for i := 1; i < rv.NumField(); i++ {
		if err := timeBase(w.Base).copyValue(rv.Field(i), wv.Field(i+2)); err != nil {
			return Recall{}, err
		}
	}
	return r, nil
}

var (
	typeTime     = reflect.TypeFor[time.Time]()
	typeWireTime = reflect.TypeFor[wireTime]()
)

// copyValue copies src into dst, a value of a Recall or file record into
// its wire record or back: the wire records list the fields of the types
// they stand for in the same order, with times as wireTime (put or got
// through base), lists nil when empty (equal recalls give equal bytes
// however their lists were made), and other values converted to dst's
// type.
func (base timeBase) copyValue(dst, src reflect.Value) error {
	switch {
	case src.Type() == typeTime:
		dst.Set(reflect.ValueOf(base.put(src.Interface().(time.Time))))
	case src.Type() == typeWireTime:
		t, err := base.get(src.Interface().(wireTime))
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(t))
	case src.Kind() == reflect.Struct:
		for i := range src.NumField() {
			if err := base.copyValue(dst.Field(i), src.Field(i)); err != nil {
				return err
			}
		}
	case src.Kind() == reflect.Pointer:
		if !src.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
			return base.copyValue(dst.Elem(), src.Elem())
		}
	case src.Kind() == reflect.Slice:
		if n := src.Len(); n > 0 {
			dst.Set(reflect.MakeSlice(dst.Type(), n, n))
			for i := range n {
				if err := base.copyValue(dst.Index(i), src.Index(i)); err != nil {
					return err
				}
			}
		}
	default:
		dst.Set(src.Convert(dst.Type()))
	}
	return nil
}
