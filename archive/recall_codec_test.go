package archive

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// randomRecall fills every field of a Recall with values that exercise the
// compact form's encodings: empty, short and long strings, small, negative
// and 64-bit integers, zero times, whole-millisecond times and times with
// nanoseconds, empty and long lists.
func fullRandomRecall(rng *rand.Rand) Recall {
	str := func() string {
		switch rng.IntN(5) {
		case 0:
			return ""
		case 1:
			return string(rune('a' + rng.IntN(26)))
		case 2:
			return string(bytes.Repeat([]byte("é"), 20+rng.IntN(200)))
		case 3:
			return string(bytes.Repeat([]byte("x"), 300+rng.IntN(2000)))
		}
		return "path/to/file.go"
	}
	num := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return int64(rng.IntN(128))
		case 2:
			return -int64(rng.IntN(40))
		case 3:
			return math.MaxInt64 - int64(rng.IntN(3))
		case 4:
			return math.MinInt64 + int64(rng.IntN(3))
		}
		return rng.Int64N(1<<40) - 1<<39
	}
	small := func() int { return int(num() % (1 << 30)) }
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tm := func() time.Time {
		switch rng.IntN(4) {
		case 0:
			return time.Time{}
		case 1:
			return base.Add(time.Duration(rng.Int64N(1<<40)) * time.Millisecond).Add(-time.Duration(rng.Int64N(1<<40)) * time.Millisecond)
		case 2:
			return base.Add(time.Duration(rng.Int64N(1 << 50)))
		}
		return base.Add(-time.Duration(rng.IntN(1e6)) * time.Millisecond)
	}
	n := func() int {
		if rng.IntN(3) == 0 {
			return 0
		}
		return rng.IntN(40)
	}
	r := Recall{Version: RecallVersion}
	r.Session = RecallSession{Harness: Harness(str()), SessionID: str(), Title: str(), Directory: str(), GitBranch: str(), Model: str(),
		ClientVersion: str(), FirstActivity: tm(), LastActivity: tm(), Messages: small(), ToolCalls: small(), Files: small(),
		ContextTokens: num(), ContextWindow: num()}
	if rng.IntN(2) == 0 {
		r.Initial = &RecallRequest{Text: str(), Time: tm()}
	}
	for range n() {
		r.Requests = append(r.Requests, RecallRequest{Text: str(), Time: tm()})
	}
	tasks := func() (ts []Task) {
		for range n() {
			ts = append(ts, Task{ID: str(), Content: str(), ActiveForm: str(), Status: str()})
		}
		return ts
	}
	r.Tasks = RecallTasks{Active: tasks(), Pending: tasks(), Completed: tasks(), UpdatedAt: tm()}
	for range n() {
		r.Files = append(r.Files, RecallFile{Path: str(), Reads: small(), Edits: small(), Writes: small(), Searches: small(), Last: tm(), Seq: small()})
	}
	for range n() {
		r.Commands = append(r.Commands, RecallCommand{Command: str(), Lines: small(), Runs: small(), Failures: small(), OK: rng.IntN(2) == 0,
			Exit: small(), ExitKnown: rng.IntN(2) == 0, Error: str(), NoResult: rng.IntN(2) == 0, Last: tm(), Seq: small()})
	}
	for range n() {
		r.Errors = append(r.Errors, RecallError{Tool: str(), Subject: str(), Message: str(), Count: small(), Resolved: rng.IntN(2) == 0, Time: tm(), Seq: small()})
	}
	for range n() {
		r.Decisions = append(r.Decisions, RecallDecision{Kind: str(), Text: str(), Time: tm()})
	}
	for range n() {
		r.Compactions = append(r.Compactions, RecallCompaction{Trigger: str(), PreTokens: num(), Time: tm()})
	}
	r.Omitted = RecallOmitted{Requests: small(), Files: small(), Commands: small(), Errors: small(), Tasks: small(), Decisions: small(), Compactions: small()}
	return r
}

// TestRecallCompactRoundTrip: the compact form gives back every field
// (times as the same instant, in UTC), and the bytes of a decoded Recall
// encode to the same bytes.
func TestRecallCompactRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for i := range 300 {
		r := fullRandomRecall(rng)
		if i%50 == 0 { // a string over 64 KiB (str32)
			r.Session.Title = string(bytes.Repeat([]byte("t"), 70000))
		}
		if i%7 == 0 { // times far from the epoch: [seconds, nanoseconds]
			r.Session.LastActivity = time.Unix(1<<50, 0)
			r.Requests = append(r.Requests, RecallRequest{Text: "far", Time: time.Unix(-1<<45, 5e6)}, RecallRequest{Text: "near", Time: time.Unix(1e9, 0)})
		}
		b := appendRecall(nil, &r)
		got, err := DecodeRecall(b)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if !recallEqual(r, got) {
			t.Fatalf("%d: round trip differs:\n got %+v\nwant %+v", i, got, r)
		}
		if b2 := appendRecall(nil, &got); !bytes.Equal(b, b2) {
			t.Fatalf("%d: re-encoding differs", i)
		}
	}
}

// recallEqual compares Recalls with nil and empty lists equal and times by
// instant.
func recallEqual(a, b Recall) bool {
	norm := func(r Recall) []byte {
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.SetSortMapKeys(true)
		_ = enc.Encode((*recallMapForm)(&r))
		return buf.Bytes()
	}
	// The map form writes times as msgpack timestamps: equal instants give
	// equal bytes whatever their location; nil and empty slices both
	// encode as empty arrays once normalised here.
	fix := func(r *Recall) {
		for _, p := range []*[]Task{&r.Tasks.Active, &r.Tasks.Pending, &r.Tasks.Completed} {
			if len(*p) == 0 {
				*p = nil
			}
		}
		if len(r.Requests) == 0 {
			r.Requests = nil
		}
		if len(r.Files) == 0 {
			r.Files = nil
		}
		if len(r.Commands) == 0 {
			r.Commands = nil
		}
		if len(r.Errors) == 0 {
			r.Errors = nil
		}
		if len(r.Decisions) == 0 {
			r.Decisions = nil
		}
		if len(r.Compactions) == 0 {
			r.Compactions = nil
		}
	}
	fix(&a)
	fix(&b)
	return bytes.Equal(norm(a), norm(b))
}

// recallMapForm is Recall without its msgpack methods: the map form
// pre-release builds stored.
type recallMapForm Recall

// TestRecallMapFormRefused: the map form pre-release builds wrote gives
// ErrSchema naming it (not ErrCorrupt), and is larger than the compact
// form.
func TestRecallMapFormRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	for i := range 50 {
		r := fullRandomRecall(rng)
		old, err := msgpack.Marshal((*recallMapForm)(&r))
		if err != nil {
			t.Fatal(err)
		}
		_, err = DecodeRecall(old)
		if !errors.Is(err, ErrSchema) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "map form") {
			t.Fatalf("%d: map form: %v, want ErrSchema naming the map form", i, err)
		}
		if len(appendRecall(nil, &r)) >= len(old) {
			t.Errorf("%d: compact form %d bytes, map form %d", i, len(appendRecall(nil, &r)), len(old))
		}
	}
}

// TestRecallCompactHostile: every truncation and random corruptions give
// ErrCorrupt (or decode), never a panic; an unknown form gives ErrSchema.
func TestRecallCompactHostile(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3))
	r := fullRandomRecall(rng)
	r.Files = append(r.Files, RecallFile{Path: "a", Last: time.Unix(1, 5)})
	b := appendRecall(nil, &r)
	for n := 0; n < len(b); n += 1 + n/64 {
		if _, err := DecodeRecall(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated at %d of %d: %v", n, len(b), err)
		}
	}
	if _, err := DecodeRecall(append(append([]byte(nil), b...), 0xc0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
	for range 2000 {
		c := append([]byte(nil), b...)
		for range 1 + rng.IntN(4) {
			c[rng.IntN(len(c))] = byte(rng.IntN(256))
		}
		if _, err := DecodeRecall(c); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchema) {
			t.Fatalf("corruption: %v", err)
		}
	}
	form := append([]byte(nil), b...)
	form[1] = 3 // the form number, a positive fixint
	if _, err := DecodeRecall(form); !errors.Is(err, ErrSchema) {
		t.Errorf("form 3: %v", err)
	}
	// A huge array length is refused before allocating.
	if _, err := DecodeRecall([]byte{0xdd, 0xff, 0xff, 0xff, 0xff, 2}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("huge array: %v", err)
	}
}

// TestRecallRecordWidth: a record with another number of elements than
// its form has is refused (ErrCorrupt), never partly read.
func TestRecallRecordWidth(t *testing.T) {
	r := Recall{Version: RecallVersion, Files: []RecallFile{{Path: "a.go", Reads: 2, Seq: 3}}}
	b := appendRecall(nil, &r)
	if got, err := DecodeRecall(b); err != nil || len(got.Files) != 1 || got.Files[0] != r.Files[0] {
		t.Fatalf("round trip: %+v, %v", got.Files, err)
	}
	i := bytes.Index(b, []byte{0x97, 0xa4, 'a', '.', 'g', 'o'})
	if i < 0 {
		t.Fatal("file record not found")
	}
	for name, rec := range map[string][]byte{
		"two more": {0x99, 0xa4, 'a', '.', 'g', 'o', 2, 0, 0, 0, 0xc0, 3, 0x81, 0xa1, 'k', 0x01, 0xa3, 'n', 'e', 'w'},
		"one less": {0x96, 0xa4, 'a', '.', 'g', 'o', 2, 0, 0, 0, 0xc0},
	} {
		b2 := append(append(append([]byte(nil), b[:i]...), rec...), b[i+12:]...)
		if got, err := DecodeRecall(b2); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %+v, %v", name, got.Files, err)
		}
	}
}

// TestRecallEmptyListsOneForm: empty and nil lists give the same bytes.
func TestRecallEmptyListsOneForm(t *testing.T) {
	a := Recall{Version: RecallVersion}
	b := Recall{Version: RecallVersion, Requests: []RecallRequest{}, Files: []RecallFile{}, Commands: []RecallCommand{}, Errors: []RecallError{},
		Decisions: []RecallDecision{}, Compactions: []RecallCompaction{}, Tasks: RecallTasks{Active: []Task{}, Pending: []Task{}, Completed: []Task{}}}
	if x, y := appendRecall(nil, &a), appendRecall(nil, &b); !bytes.Equal(x, y) {
		t.Fatalf("nil lists %x, empty lists %x", x, y)
	}
}

// appendRecall appends r's stored form to dst.
func appendRecall(dst []byte, r *Recall) []byte {
	b, err := r.MarshalMsgpack()
	if err != nil {
		panic(err)
	}
	return append(dst, b...)
}
