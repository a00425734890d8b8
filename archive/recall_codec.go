package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"
)

// The recall's stored form. Archives of earlier versions hold the
// Recall as a msgpack map keyed by field names (recallMapForm, decoded by
// reflection). Since then it is written in a compact positional form that
// is encoded and decoded without reflection:
//
//	[recallWireForm, Version, base, Session, Initial, Requests, Tasks,
//	 Files, Commands, Errors, Decisions, Compactions, Omitted]
//
// where every record is a msgpack array of its fields in the order of the
// Go struct (see appendRecall and mpReader.recall) and a time is nil
// (the zero time), an integer (milliseconds after base, itself Unix
// milliseconds; Claude Code's timestamps have millisecond precision) or
// [seconds, nanoseconds] for a time that is not a whole millisecond or is
// more than 2⁴⁰ seconds from the Unix epoch.
// Readers ignore elements after the ones they know, so fields can be
// appended to any record without a new form. The positional form is about
// a fifth smaller, also once compressed (no repeated keys, shorter times),
// and decodes about five times faster.
const recallWireForm = 2

// recallMapForm is Recall without its msgpack methods: the map form.
type recallMapForm Recall

// MarshalMsgpack encodes r in the compact positional form (see
// DecodeRecall), so msgpack.Marshal(&r) gives what an archive stores.
func (r *Recall) MarshalMsgpack() ([]byte, error) {
	return appendRecall(make([]byte, 0, 4096), r), nil
}

// UnmarshalMsgpack decodes either stored form of a Recall.
func (r *Recall) UnmarshalMsgpack(b []byte) (err error) {
	out, err := decodeRecallForms(b)
	if err != nil {
		return err
	}
	*r = out
	return nil
}

// decodeRecallForms decodes the compact form, or the map form of older
// archives by reflection (under recover: msgpack v5.4.1 panics on some
// hostile input).
func decodeRecallForms(b []byte) (r Recall, err error) {
	if len(b) > 0 && (b[0] == 0xdc || b[0] == 0xdd || b[0]&0xf0 == 0x90) {
		d := mpReader{b: b, s: string(b)}
		return d.recall()
	}
	var m recallMapForm
	if err := unmarshal(b, &m); err != nil {
		return Recall{}, err
	}
	return Recall(m), nil
}

// ---- encoding ----

type mpWriter struct {
	b    []byte
	base int64 // Unix milliseconds
}

func appendRecall(b []byte, r *Recall) []byte {
	e := mpWriter{b: b}
	if t := r.Session.LastActivity; !t.IsZero() && msTime(t) {
		e.base = t.UnixMilli()
	}
	e.array(13)
	e.int(recallWireForm)
	e.int(int64(r.Version))
	e.int(e.base)
	s := &r.Session
	e.array(14)
	e.str(string(s.Harness))
	e.str(s.SessionID)
	e.str(s.Title)
	e.str(s.Directory)
	e.str(s.GitBranch)
	e.str(s.Model)
	e.str(s.ClientVersion)
	e.time(s.FirstActivity)
	e.time(s.LastActivity)
	e.int(int64(s.Messages))
	e.int(int64(s.ToolCalls))
	e.int(int64(s.Files))
	e.int(s.ContextTokens)
	e.int(s.ContextWindow)
	if r.Initial == nil {
		e.nil()
	} else {
		e.request(*r.Initial)
	}
	e.array(len(r.Requests))
	for _, q := range r.Requests {
		e.request(q)
	}
	e.array(4)
	for _, ts := range [][]Task{r.Tasks.Active, r.Tasks.Pending, r.Tasks.Completed} {
		e.array(len(ts))
		for _, t := range ts {
			e.array(4)
			e.str(t.ID)
			e.str(t.Content)
			e.str(t.ActiveForm)
			e.str(t.Status)
		}
	}
	e.time(r.Tasks.UpdatedAt)
	e.array(len(r.Files))
	for _, f := range r.Files {
		e.array(7)
		e.str(f.Path)
		e.int(int64(f.Reads))
		e.int(int64(f.Edits))
		e.int(int64(f.Writes))
		e.int(int64(f.Searches))
		e.time(f.Last)
		e.int(int64(f.Seq))
	}
	e.array(len(r.Commands))
	for _, c := range r.Commands {
		e.array(11)
		e.str(c.Command)
		e.int(int64(c.Lines))
		e.int(int64(c.Runs))
		e.int(int64(c.Failures))
		e.bool(c.OK)
		e.int(int64(c.Exit))
		e.bool(c.ExitKnown)
		e.str(c.Error)
		e.bool(c.NoResult)
		e.time(c.Last)
		e.int(int64(c.Seq))
	}
	e.array(len(r.Errors))
	for _, x := range r.Errors {
		e.array(7)
		e.str(x.Tool)
		e.str(x.Subject)
		e.str(x.Message)
		e.int(int64(x.Count))
		e.bool(x.Resolved)
		e.time(x.Time)
		e.int(int64(x.Seq))
	}
	e.array(len(r.Decisions))
	for _, d := range r.Decisions {
		e.array(3)
		e.str(d.Kind)
		e.str(d.Text)
		e.time(d.Time)
	}
	e.array(len(r.Compactions))
	for _, c := range r.Compactions {
		e.array(3)
		e.str(c.Trigger)
		e.int(c.PreTokens)
		e.time(c.Time)
	}
	o := &r.Omitted
	e.array(7)
	for _, n := range []int{o.Requests, o.Files, o.Commands, o.Errors, o.Tasks, o.Decisions, o.Compactions} {
		e.int(int64(n))
	}
	return e.b
}

func (e *mpWriter) request(q RecallRequest) {
	e.array(2)
	e.str(q.Text)
	e.time(q.Time)
}

func (e *mpWriter) array(n int) {
	switch {
	case n < 16:
		e.b = append(e.b, 0x90|byte(n))
	case n <= math.MaxUint16:
		e.b = append(e.b, 0xdc, byte(n>>8), byte(n))
	default:
		e.b = append(e.b, 0xdd)
		e.b = binary.BigEndian.AppendUint32(e.b, uint32(n))
	}
}

func (e *mpWriter) str(s string) {
	n := len(s)
	switch {
	case n < 32:
		e.b = append(e.b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		e.b = append(e.b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		e.b = append(e.b, 0xda, byte(n>>8), byte(n))
	default:
		e.b = append(e.b, 0xdb)
		e.b = binary.BigEndian.AppendUint32(e.b, uint32(n))
	}
	e.b = append(e.b, s...)
}

func (e *mpWriter) int(v int64) {
	switch {
	case v >= 0 && v < 128:
		e.b = append(e.b, byte(v))
	case v < 0 && v >= -32:
		e.b = append(e.b, byte(v))
	case v >= math.MinInt8 && v <= math.MaxInt8:
		e.b = append(e.b, 0xd0, byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		e.b = append(e.b, 0xd1, byte(v>>8), byte(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.b = append(e.b, 0xd2)
		e.b = binary.BigEndian.AppendUint32(e.b, uint32(v))
	default:
		e.b = append(e.b, 0xd3)
		e.b = binary.BigEndian.AppendUint64(e.b, uint64(v))
	}
}

func (e *mpWriter) bool(v bool) {
	if v {
		e.b = append(e.b, 0xc3)
	} else {
		e.b = append(e.b, 0xc2)
	}
}

func (e *mpWriter) nil() { e.b = append(e.b, 0xc0) }

func (e *mpWriter) time(t time.Time) {
	switch {
	case t.IsZero():
		e.nil()
	case t.Nanosecond()%int(time.Millisecond) == 0 && msTime(t):
		e.int(t.UnixMilli() - e.base)
	default:
		e.array(2)
		e.int(t.Unix())
		e.int(int64(t.Nanosecond()))
	}
}

// msTime reports whether t is within ±2⁴⁰ s of the Unix epoch (about
// 35,000 years), where its milliseconds and their differences fit the
// integer form; any other time is written as [seconds, nanoseconds].
func msTime(t time.Time) bool {
	return t.Unix() > -1<<40 && t.Unix() < 1<<40
}

// ---- decoding ----

// errCompactForm is the cause of every malformed compact payload (recall,
// file registry).
var errCompactForm = errors.New("malformed compact msgpack")

// mpReader reads the compact form. Every length is checked against
// the bytes left before anything is allocated, so hostile input cannot
// make it allocate more than a small multiple of its size.
type mpReader struct {
	b []byte
	// s is b as one string: every decoded string is a substring of it,
	// so decoding allocates once for all of them.
	s    string
	i    int
	base int64
	err  error
	// used counts the bytes of the records allocated so far, checked
	// against the segment's budget before each allocation.
	used budget
}

// alloc reserves n records of size bytes before they are made; false
// (and d.err set) when the segment cannot hold that much.
func (d *mpReader) alloc(n int, size uintptr) bool {
	if d.used.limit == 0 {
		d.used = newBudget(len(d.b))
	}
	if !d.used.take(n, size) {
		if d.err == nil {
			d.err = fmt.Errorf("%w: %w at byte %d", errCompactForm, errOverBudget, d.i)
		}
		return false
	}
	return true
}

func (d *mpReader) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", errCompactForm, what, d.i)
	}
	d.i = len(d.b)
}

func (d *mpReader) need(n int) bool {
	if n < 0 || len(d.b)-d.i < n {
		d.fail("truncated")
		return false
	}
	return true
}

// array reads an array header and returns its length, at least min (the
// fields this build knows) and at most what the bytes left can hold.
func (d *mpReader) array(min int) int {
	if !d.need(1) {
		return 0
	}
	c := d.b[d.i]
	n := 0
	switch {
	case c&0xf0 == 0x90:
		n = int(c & 0x0f)
		d.i++
	case c == 0xdc:
		if !d.need(3) {
			return 0
		}
		n = int(binary.BigEndian.Uint16(d.b[d.i+1:]))
		d.i += 3
	case c == 0xdd:
		if !d.need(5) {
			return 0
		}
		n = int(binary.BigEndian.Uint32(d.b[d.i+1:]))
		d.i += 5
	default:
		d.fail("array expected")
		return 0
	}
	if n < min {
		d.fail("short record")
		return 0
	}
	if n > len(d.b)-d.i { // every element takes at least one byte
		d.fail("array longer than its data")
		return 0
	}
	return n
}

// list reads an array header for a list of records; nil input (a nil
// list) gives 0.
func (d *mpReader) list() int {
	if d.need(1) && d.b[d.i] == 0xc0 {
		d.i++
		return 0
	}
	return d.array(0)
}

// rest skips the elements of a record after the known ones.
func (d *mpReader) rest(n, known int) {
	for k := known; k < n && d.err == nil; k++ {
		d.skip(0)
	}
}

func (d *mpReader) str() string {
	if !d.need(1) {
		return ""
	}
	c := d.b[d.i]
	n := 0
	switch {
	case c&0xe0 == 0xa0:
		n = int(c & 0x1f)
		d.i++
	case c == 0xd9:
		if !d.need(2) {
			return ""
		}
		n = int(d.b[d.i+1])
		d.i += 2
	case c == 0xda:
		if !d.need(3) {
			return ""
		}
		n = int(binary.BigEndian.Uint16(d.b[d.i+1:]))
		d.i += 3
	case c == 0xdb:
		if !d.need(5) {
			return ""
		}
		n = int(binary.BigEndian.Uint32(d.b[d.i+1:]))
		d.i += 5
	case c == 0xc0:
		d.i++
		return ""
	default:
		d.fail("string expected")
		return ""
	}
	if !d.need(n) {
		return ""
	}
	str := d.s[d.i : d.i+n]
	d.i += n
	return str
}

func (d *mpReader) int64() int64 {
	if !d.need(1) {
		return 0
	}
	c := d.b[d.i]
	switch {
	case c < 0x80:
		d.i++
		return int64(c)
	case c >= 0xe0:
		d.i++
		return int64(int8(c))
	}
	var size int
	switch c {
	case 0xcc, 0xd0:
		size = 1
	case 0xcd, 0xd1:
		size = 2
	case 0xce, 0xd2:
		size = 4
	case 0xcf, 0xd3:
		size = 8
	default:
		d.fail("integer expected")
		return 0
	}
	if !d.need(1 + size) {
		return 0
	}
	p := d.b[d.i+1 : d.i+1+size]
	d.i += 1 + size
	switch c {
	case 0xcc:
		return int64(p[0])
	case 0xcd:
		return int64(binary.BigEndian.Uint16(p))
	case 0xce:
		return int64(binary.BigEndian.Uint32(p))
	case 0xcf:
		v := binary.BigEndian.Uint64(p)
		if v > math.MaxInt64 {
			d.fail("integer out of range")
			return 0
		}
		return int64(v)
	case 0xd0:
		return int64(int8(p[0]))
	case 0xd1:
		return int64(int16(binary.BigEndian.Uint16(p)))
	case 0xd2:
		return int64(int32(binary.BigEndian.Uint32(p)))
	default:
		return int64(binary.BigEndian.Uint64(p))
	}
}

// int reads an integer that becomes a Go int (counts, positions).
func (d *mpReader) int() int {
	v := d.int64()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("count out of range")
		return 0
	}
	return int(v)
}

func (d *mpReader) bool() bool {
	if !d.need(1) {
		return false
	}
	switch d.b[d.i] {
	case 0xc2:
		d.i++
		return false
	case 0xc3:
		d.i++
		return true
	}
	d.fail("bool expected")
	return false
}

func (d *mpReader) time() time.Time {
	if !d.need(1) {
		return time.Time{}
	}
	c := d.b[d.i]
	switch {
	case c == 0xc0:
		d.i++
		return time.Time{}
	case c&0xf0 == 0x90 || c == 0xdc || c == 0xdd:
		n := d.array(2)
		sec, nsec := d.int64(), d.int64()
		d.rest(n, 2)
		if nsec < 0 || nsec >= int64(time.Second) {
			d.fail("time out of range")
			return time.Time{}
		}
		return time.Unix(sec, nsec).UTC()
	}
	// The writer's milliseconds and base are within ±2⁵⁰ (msTime).
	ms := d.int64()
	if ms < -1<<52 || ms > 1<<52 || d.base < -1<<51 || d.base > 1<<51 {
		d.fail("time out of range")
		return time.Time{}
	}
	return time.UnixMilli(d.base + ms).UTC()
}

// skip skips one value of any msgpack type (fields appended by a later
// build), nested at most 32 deep.
func (d *mpReader) skip(depth int) {
	if depth > 32 {
		d.fail("nested too deep")
		return
	}
	if !d.need(1) {
		return
	}
	c := d.b[d.i]
	switch {
	case c < 0x80 || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		d.i++
	case c&0xe0 == 0xa0 || c == 0xd9 || c == 0xda || c == 0xdb:
		d.str()
	case c&0xf0 == 0x90 || c == 0xdc || c == 0xdd:
		n := d.array(0)
		for k := 0; k < n && d.err == nil; k++ {
			d.skip(depth + 1)
		}
	case c&0xf0 == 0x80 || c == 0xde || c == 0xdf:
		n := 0
		switch {
		case c&0xf0 == 0x80:
			n = int(c & 0x0f)
			d.i++
		case c == 0xde && d.need(3):
			n = int(binary.BigEndian.Uint16(d.b[d.i+1:]))
			d.i += 3
		case c == 0xdf && d.need(5):
			n = int(binary.BigEndian.Uint32(d.b[d.i+1:]))
			d.i += 5
		}
		if n > (len(d.b)-d.i)/2 {
			d.fail("map longer than its data")
			return
		}
		for k := 0; k < 2*n && d.err == nil; k++ {
			d.skip(depth + 1)
		}
	case c >= 0xcc && c <= 0xd3:
		w := 1 << ((c - 0xcc) & 3) // cc–cf and d0–d3: 1, 2, 4, 8 bytes
		if d.need(1 + w) {
			d.i += 1 + w
		}
	case c == 0xca:
		if d.need(5) {
			d.i += 5
		}
	case c == 0xcb:
		if d.need(9) {
			d.i += 9
		}
	case c == 0xc4 || c == 0xc5 || c == 0xc6: // bin
		w := 1 << (c - 0xc4)
		if !d.need(1 + w) {
			return
		}
		n := 0
		for _, x := range d.b[d.i+1 : d.i+1+w] {
			n = n<<8 | int(x)
		}
		d.i += 1 + w
		if d.need(n) {
			d.i += n
		}
	case c >= 0xd4 && c <= 0xd8: // fixext
		if n := 2 + 1<<(c-0xd4); d.need(n) {
			d.i += n
		}
	case c == 0xc7 || c == 0xc8 || c == 0xc9: // ext
		w := 1 << (c - 0xc7)
		if !d.need(2 + w) {
			return
		}
		n := 0
		for _, x := range d.b[d.i+1 : d.i+1+w] {
			n = n<<8 | int(x)
		}
		d.i += 2 + w
		if d.need(n) {
			d.i += n
		}
	default:
		d.fail("unknown msgpack code")
	}
}

func (d *mpReader) recall() (Recall, error) {
	var r Recall
	top := d.array(13)
	if d.err != nil {
		return Recall{}, d.err
	}
	if form := d.int64(); form != recallWireForm && d.err == nil {
		return Recall{}, fmt.Errorf("%w: compact recall form %d (this build reads %d)", ErrSchema, form, recallWireForm)
	}
	r.Version = d.int()
	d.base = d.int64()
	s := &r.Session
	n := d.array(14)
	s.Harness = Harness(d.str())
	s.SessionID, s.Title, s.Directory, s.GitBranch, s.Model, s.ClientVersion = d.str(), d.str(), d.str(), d.str(), d.str(), d.str()
	s.FirstActivity, s.LastActivity = d.time(), d.time()
	s.Messages, s.ToolCalls, s.Files = d.int(), d.int(), d.int()
	s.ContextTokens, s.ContextWindow = d.int64(), d.int64()
	d.rest(n, 14)
	if d.need(1) && d.b[d.i] == 0xc0 {
		d.i++
	} else {
		q := d.request()
		r.Initial = &q
	}
	if n := d.list(); n > 0 && d.alloc(n, unsafe.Sizeof(RecallRequest{})) {
		r.Requests = make([]RecallRequest, 0, n)
		for k := 0; k < n && d.err == nil; k++ {
			r.Requests = append(r.Requests, d.request())
		}
	}
	n = d.array(4)
	for _, dst := range []*[]Task{&r.Tasks.Active, &r.Tasks.Pending, &r.Tasks.Completed} {
		*dst = readRecords(d, 4, func() Task {
			return Task{ID: d.str(), Content: d.str(), ActiveForm: d.str(), Status: d.str()}
		})
	}
	r.Tasks.UpdatedAt = d.time()
	d.rest(n, 4)
	r.Files = readRecords(d, 7, func() RecallFile {
		return RecallFile{Path: d.str(), Reads: d.int(), Edits: d.int(), Writes: d.int(), Searches: d.int(), Last: d.time(), Seq: d.int()}
	})
	r.Commands = readRecords(d, 11, func() RecallCommand {
		return RecallCommand{
			Command: d.str(), Lines: d.int(), Runs: d.int(), Failures: d.int(), OK: d.bool(), Exit: d.int(),
			ExitKnown: d.bool(), Error: d.str(), NoResult: d.bool(), Last: d.time(), Seq: d.int(),
		}
	})
	r.Errors = readRecords(d, 7, func() RecallError {
		return RecallError{Tool: d.str(), Subject: d.str(), Message: d.str(), Count: d.int(), Resolved: d.bool(), Time: d.time(), Seq: d.int()}
	})
	r.Decisions = readRecords(d, 3, func() RecallDecision {
		return RecallDecision{Kind: d.str(), Text: d.str(), Time: d.time()}
	})
	r.Compactions = readRecords(d, 3, func() RecallCompaction {
		return RecallCompaction{Trigger: d.str(), PreTokens: d.int64(), Time: d.time()}
	})
	n = d.array(7)
	o := &r.Omitted
	for _, p := range []*int{&o.Requests, &o.Files, &o.Commands, &o.Errors, &o.Tasks, &o.Decisions, &o.Compactions} {
		*p = d.int()
	}
	d.rest(n, 7)
	d.rest(top, 13)
	if d.err == nil && d.i != len(d.b) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return Recall{}, d.err
	}
	return r, nil
}

// readRecords reads a list of positional records (nil for an empty or
// nil list): each an array of at least width elements, read in order by
// fields (Go evaluates a composite literal's calls left to right), later
// elements skipped.
func readRecords[T any](d *mpReader, width int, fields func() T) []T {
	n := d.list()
	if n == 0 || n > (len(d.b)-d.i)/(width+1) {
		// (each record is an array of at least width elements)
		if n != 0 {
			d.fail("more records than bytes")
		}
		return nil
	}
	var zero T
	if !d.alloc(n, unsafe.Sizeof(zero)) {
		return nil
	}
	out := make([]T, 0, n)
	for k := 0; k < n && d.err == nil; k++ {
		f := d.array(width)
		out = append(out, fields())
		d.rest(f, width)
	}
	return out
}

func (d *mpReader) request() RecallRequest {
	f := d.array(2)
	q := RecallRequest{Text: d.str(), Time: d.time()}
	d.rest(f, 2)
	return q
}
