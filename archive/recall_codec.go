package archive

import (
	"bytes"
	"errors"
	"fmt"
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

// UnmarshalMsgpack decodes the stored form of a Recall.
func (r *Recall) UnmarshalMsgpack(b []byte) error {
	out, err := decodeRecallForms(b)
	if err != nil {
		return err
	}
	*r = out
	return nil
}

// appendRecall appends r's stored form to dst.
func appendRecall(dst []byte, r *Recall) []byte {
	b, err := marshalArrays(recallToWire(r))
	if err != nil {
		// marshal writes to memory, and no wire type's encoder returns
		// an error of its own: unreachable.
		panic(fmt.Sprintf("archive: encoding the recall: %v", err))
	}
	return append(dst, b...)
}

// decodeRecallForms decodes the compact form; the map form pre-release
// builds wrote gives ErrSchema.
func decodeRecallForms(b []byte) (Recall, error) {
	if mapForm(b) {
		return Recall{}, fmt.Errorf("%w: recall in the pre-release map form (no longer read)", ErrSchema)
	}
	var w recallWire
	if err := unmarshalCompact(b, recallWireForm, "recall", &w); err != nil {
		return Recall{}, err
	}
	return w.recall()
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
// is its form number, want) into v: ErrSchema for another form number,
// errCompactForm for anything but exactly one well-formed value of v's
// shape.
func unmarshalCompact(b []byte, want int64, what string, v any) error {
	ok, _, end := mpguard.Walk(b)
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
	s := &r.Session
	w := &recallWire{
		Form: recallWireForm, Version: r.Version, Base: int64(base),
		Session: sessionWire{
			Harness: string(s.Harness), SessionID: s.SessionID, Title: s.Title, Directory: s.Directory,
			GitBranch: s.GitBranch, Model: s.Model, Client: s.ClientVersion,
			First: base.put(s.FirstActivity), Last: base.put(s.LastActivity),
			Messages: s.Messages, ToolCalls: s.ToolCalls, Files: s.Files,
			ContextTokens: s.ContextTokens, ContextWindow: s.ContextWindow,
		},
		Tasks: tasksWire{
			// Empty lists as nil, as every list here: equal recalls give
			// equal bytes however their lists were made.
			Active: nilIfEmpty(r.Tasks.Active), Pending: nilIfEmpty(r.Tasks.Pending),
			Completed: nilIfEmpty(r.Tasks.Completed), UpdatedAt: base.put(r.Tasks.UpdatedAt),
		},
		Omitted: omittedWire{
			Requests: r.Omitted.Requests, Files: r.Omitted.Files, Commands: r.Omitted.Commands, Errors: r.Omitted.Errors,
			Tasks: r.Omitted.Tasks, Decisions: r.Omitted.Decisions, Compacts: r.Omitted.Compactions,
		},
	}
	if r.Initial != nil {
		w.Initial = &requestWire{Text: r.Initial.Text, Time: base.put(r.Initial.Time)}
	}
	for _, q := range r.Requests {
		w.Requests = append(w.Requests, requestWire{Text: q.Text, Time: base.put(q.Time)})
	}
	for _, f := range r.Files {
		w.Files = append(w.Files, recallFileWire{Path: f.Path, Reads: f.Reads, Edits: f.Edits, Writes: f.Writes,
			Searches: f.Searches, Last: base.put(f.Last), Seq: f.Seq})
	}
	for _, c := range r.Commands {
		w.Commands = append(w.Commands, commandWire{Command: c.Command, Lines: c.Lines, Runs: c.Runs, Failures: c.Failures,
			OK: c.OK, Exit: c.Exit, ExitKnown: c.ExitKnown, Error: c.Error, NoResult: c.NoResult, Last: base.put(c.Last), Seq: c.Seq})
	}
	for _, x := range r.Errors {
		w.Errors = append(w.Errors, errorWire{Tool: x.Tool, Subject: x.Subject, Message: x.Message, Count: x.Count,
			Resolved: x.Resolved, Time: base.put(x.Time), Seq: x.Seq})
	}
	for _, d := range r.Decisions {
		w.Decisions = append(w.Decisions, decisionWire{Kind: d.Kind, Text: d.Text, Time: base.put(d.Time)})
	}
	for _, c := range r.Compactions {
		w.Compactions = append(w.Compactions, compactionWire{Trigger: c.Trigger, PreTokens: c.PreTokens, Time: base.put(c.Time)})
	}
	return w
}

// recall gives back the Recall w lays out (empty lists as nil).
func (w *recallWire) recall() (Recall, error) {
	base := timeBase(w.Base)
	var errs []error
	tm := func(x wireTime) time.Time {
		t, err := base.get(x)
		if err != nil {
			errs = append(errs, err)
		}
		return t
	}
	s := &w.Session
	r := Recall{
		Version: w.Version,
		Session: RecallSession{
			Harness: Harness(s.Harness), SessionID: s.SessionID, Title: s.Title, Directory: s.Directory,
			GitBranch: s.GitBranch, Model: s.Model, ClientVersion: s.Client,
			FirstActivity: tm(s.First), LastActivity: tm(s.Last),
			Messages: s.Messages, ToolCalls: s.ToolCalls, Files: s.Files,
			ContextTokens: s.ContextTokens, ContextWindow: s.ContextWindow,
		},
		Tasks: RecallTasks{
			Active: nilIfEmpty(w.Tasks.Active), Pending: nilIfEmpty(w.Tasks.Pending),
			Completed: nilIfEmpty(w.Tasks.Completed), UpdatedAt: tm(w.Tasks.UpdatedAt),
		},
		Omitted: RecallOmitted{
			Requests: w.Omitted.Requests, Files: w.Omitted.Files, Commands: w.Omitted.Commands, Errors: w.Omitted.Errors,
			Tasks: w.Omitted.Tasks, Decisions: w.Omitted.Decisions, Compactions: w.Omitted.Compacts,
		},
	}
	if w.Initial != nil {
		r.Initial = &RecallRequest{Text: w.Initial.Text, Time: tm(w.Initial.Time)}
	}
	r.Requests = convert(w.Requests, func(q requestWire) RecallRequest { return RecallRequest{Text: q.Text, Time: tm(q.Time)} })
	r.Files = convert(w.Files, func(f recallFileWire) RecallFile {
		return RecallFile{Path: f.Path, Reads: f.Reads, Edits: f.Edits, Writes: f.Writes, Searches: f.Searches, Last: tm(f.Last), Seq: f.Seq}
	})
	r.Commands = convert(w.Commands, func(c commandWire) RecallCommand {
		return RecallCommand{Command: c.Command, Lines: c.Lines, Runs: c.Runs, Failures: c.Failures, OK: c.OK, Exit: c.Exit,
			ExitKnown: c.ExitKnown, Error: c.Error, NoResult: c.NoResult, Last: tm(c.Last), Seq: c.Seq}
	})
	r.Errors = convert(w.Errors, func(x errorWire) RecallError {
		return RecallError{Tool: x.Tool, Subject: x.Subject, Message: x.Message, Count: x.Count, Resolved: x.Resolved, Time: tm(x.Time), Seq: x.Seq}
	})
	r.Decisions = convert(w.Decisions, func(d decisionWire) RecallDecision {
		return RecallDecision{Kind: d.Kind, Text: d.Text, Time: tm(d.Time)}
	})
	r.Compactions = convert(w.Compactions, func(c compactionWire) RecallCompaction {
		return RecallCompaction{Trigger: c.Trigger, PreTokens: c.PreTokens, Time: tm(c.Time)}
	})
	if len(errs) > 0 {
		return Recall{}, errs[0]
	}
	return r, nil
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// convert maps a decoded list (nil when empty).
func convert[W, T any](in []W, f func(W) T) []T {
	if len(in) == 0 {
		return nil
	}
	out := make([]T, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}
