package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The hand-written JSON of json_fields.go, state_json.go and
// input_json.go is checked here against encoding/json: a table of edge
// cases, random values, and random mutations of valid documents.

// sameDecode decodes data with the hand-written decoder and with
// encoding/json into fresh values from mk, and fails unless both fail or
// both succeed with equal values.
func sameDecode[T any](t *testing.T, data []byte, mk func() *T, mine func([]byte, *T) error) {
	t.Helper()
	got, want := mk(), mk()
	gerr := mine(data, got)
	werr := json.Unmarshal(data, want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, encoding/json: %v", data, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %+v\n want %+v", data, got, want)
	}
}

func freshState() *State { return newState("") }

// stateWithRecoveries starts with recoveries, so that the reuse of a
// slice's elements by a decoded array is compared too.
func stateWithRecoveries() *State {
	s := newState("p")
	s.Recoveries = make([]Recovery, 2, 5)
	s.Recoveries[0].ID, s.Recoveries[1].Note = "old0", "old1"
	s.Sessions["keep"] = &SessionState{Prompts: 3}
	return s
}

func freshInput() *Input { return &Input{} }

var stateCases = []string{
	`null`, `{}`, `[]`, `"x"`, `1`, `true`, ` {} `, "\t{\"version\":1}\n",
	`{"version":1,"project":"/p","sessions":{},"recoveries":[]}`,
	`{"version":1.5}`, `{"version":"1"}`, `{"version":1e2}`, `{"version":-0}`, `{"version":null}`,
	`{"version":9223372036854775807}`, `{"version":9223372036854775808}`, `{"version":-9223372036854775809}`,
	`{"Version":2}`, `{"VERSION":3}`, `{"vers\u0069on":4}`, `{"versio\u006E":5}`, `{"version":1,"version":2}`,
	`{"PROJECT":"a","project":"b"}`, `{"project":"a","project":null}`, `{"project":5}`, `{"project":{}}`,
	`{"project":"\u00e9\ud83d\ude00\ud800x\udc00"}`, "{\"project\":\"\xff\xfe a\"}", `{"project":"<&>\u2028"}`,
	`{"project":"a\nb"}`, "{\"project\":\"a\x01b\"}", `{"project":"\x"}`, `{"project":"\u12"}`,
	`{"sessions":null}`, `{"sessions":{"a":null}}`, `{"sessions":[]}`, `{"sessions":{"a":1}}`, `{"sessions":{"a":"x"}}`,
	`{"sessions":{"a":{"prompts":1},"a":{"snapshots":2}}}`, `{"sessions":{"a":{}},"sessions":{"b":{}}}`,
	`{"sessions":{"\u0061":{"prompts":7}}}`, `{"sessions":{"":{}}}`, "{\"sessions\":{\"\xff\":{}}}",
	`{"ſeſſionſ":{"x":{}}}`, `{"SESSIONS":{"x":{"PROMPTS":2,"Last_Event":"2024-05-06T07:08:09.123456789+02:00"}}}`,
	`{"sessions":{"x":{"last_event":"2024-05-06T07:08:09Z","started":null,"ended":"2024-05-06T07:08:10.5-01:30"}}}`,
	`{"sessions":{"x":{"last_event":"2024-05-06 07:08:09Z"}}}`, `{"sessions":{"x":{"last_event":123}}}`,
	`{"sessions":{"x":{"last_event":"2024-05-06T07:08:09\u005a"}}}`, `{"sessions":{"x":{"last_event":{}}}}`,
	`{"sessions":{"x":{"last_event":"0000-01-01T00:00:00Z"}}}`, `{"sessions":{"x":{"last_event":"2024-13-01T00:00:00Z"}}}`,
	`{"sessions":{"x":{"pre_compact_size":12345678901}}}`, `{"sessions":{"x":{"pre_compact_size":1.0}}}`,
	`{"sessions":{"x":{"prompts":true}}}`, `{"sessions":{"x":{"compact_summary":"s","unknown":[1,{"a":null}]}}}`,
	`{"recoveries":null}`, `{"recoveries":[]}`, `{"recoveries":[null]}`, `{"recoveries":[null,{"id":"a"}]}`,
	`{"recoveries":[1]}`, `{"recoveries":{}}`, `{"recoveries":[{"id":"a"}],"recoveries":[{"kind":"k"}]}`,
	`{"recoveries":[{"id":"a"},{"id":"b"}],"recoveries":[{"kind":"k"}],"recoveries":[{},{},{}]}`,
	`{"recoveries":[{"\u212aind":"kelvin","ID":"up","created":"2024-01-01T00:00:00Z","consumed_by_pid":42,"chars":-1}]}`,
	`{"recoveries":[{"created_by_pid":1.5}]}`, `{"recoveries":[{"consumed_at":null,"note":null}]}`,
	`{"version":1,}`, `{"version":1`, `{"version":1}}`, `{"version":1} x`, `{"version":01}`, `{"a":tru}`,
	`{"a":nul}`, `{"a":[1,]}`, `{'a':1}`, `{"a" 1}`, ``, ` `, `{"version":1}{"version":2}`,
	`{"unknown":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `,"project":"deep"}`,
	`{"unknown":` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat("}", 600) + `}`,
	`{"unknown":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

func TestStateDecodeTable(t *testing.T) {
	for _, c := range stateCases {
		sameDecode(t, []byte(c), freshState, unmarshalState)
		sameDecode(t, []byte(c), stateWithRecoveries, unmarshalState)
	}
}

var inputCases = []string{
	`null`, `{}`, `[]`, `"x"`, `{"session_id":"s","transcript_path":"/t","cwd":"/c","hook_event_name":"SessionStart","source":"compact"}`,
	`{"SESSION_ID":"s","Session_Id":"t"}`, `{"session_id":null}`, `{"session_id":1}`,
	`{"tool_input":{"a":[1,2,{"b":null}]},"tool_response":"text"}`, `{"tool_input":null}`, `{"tool_input":  [ 1 , 2 ] }`,
	`{"tool_input":1,"tool_input":{"x":1}}`, `{"tool_response":true}`,
	`{"duration_ms":12}`, `{"duration_ms":-12}`, `{"duration_ms":1.5}`, `{"duration_ms":"12"}`, `{"duration_ms":1e3}`,
	`{"duration_ms":99999999999999999999}`, `{"stop_hook_active":true}`, `{"stop_hook_active":false}`,
	`{"stop_hook_active":null}`, `{"stop_hook_active":1}`, `{"stop_hook_active":"true"}`,
	`{"prompt":"\ud83d\ude00 <b> & \u0000"}`, "{\"prompt\":\"\xc3\x28\"}", `{"prompt":"\uD800\uDBFF"}`,
	`{"compact_summary":"` + strings.Repeat("x", 5000) + `"}`, `{"reason":"other","extra":{"deep":[[[]]]}}`,
	`{"ſource":"compact"}`, `{"\u0073ource":"compact"}`, `{"source":"compact",}`, `{"source":"compact"`,
	`{"tool_input":` + strings.Repeat("[", 700) + strings.Repeat("]", 700) + `}`,
}

func TestInputDecodeTable(t *testing.T) {
	for _, c := range inputCases {
		sameDecode(t, []byte(c), freshInput, unmarshalInput)
	}
}

// randString returns strings that exercise the escaping rules.
func randString(r *rand.Rand) string {
	pieces := []string{"", "a", "plain text", "<", ">", "&", `"`, `\`, "\n", "\t", "\b", "\f", "\r", "\x00", "\x1f", "\x7f",
		"é", "日本", "😀", "\u2028", "\u2029", "\xff", "\xc3", "\xed\xa0\x80", "/", "'", " ", "{}", "[]", "\u00a0"}
	n := r.IntN(6)
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randTime(r *rand.Rand) time.Time {
	switch r.IntN(6) {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(r.Int64N(4e9), 0).UTC()
	case 2:
		return time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("", 60*(r.IntN(1500)-750)))
	case 3:
		return time.Unix(r.Int64N(4e9), r.Int64N(1e9)).Local()
	case 4:
		return time.Date(r.IntN(9999), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), time.UTC)
	default:
		return time.Unix(r.Int64N(4e9), r.Int64N(1e9)*int64(r.IntN(2))).UTC()
	}
}

func randInt(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return r.IntN(100)
	case 2:
		return -r.IntN(1000)
	default:
		return int(r.Uint64())
	}
}

func randState(r *rand.Rand) *State {
	s := &State{Version: randInt(r), Project: randString(r)}
	if r.IntN(8) > 0 {
		s.Sessions = map[string]*SessionState{}
		for range r.IntN(5) {
			if r.IntN(8) == 0 {
				s.Sessions[randString(r)] = nil
				continue
			}
			s.Sessions[randString(r)] = &SessionState{
				Transcript: randString(r), Started: randTime(r), LastEvent: randTime(r), Ended: randTime(r),
				EndReason: randString(r), Prompts: randInt(r), SinceCheckpoint: randInt(r), Modifications: randInt(r),
				LastCheckpoint: randTime(r), Checkpoints: randInt(r), Snapshots: randInt(r), CompactSummary: randString(r),
				PreCompactSize: int64(randInt(r)), PreCompactTranscript: randString(r), LastCheckpointErr: randString(r), PID: randInt(r), PIDStart: int64(randInt(r)),
			}
		}
	}
	if r.IntN(8) > 0 {
		s.Recoveries = []Recovery{}
		for range r.IntN(4) {
			s.Recoveries = append(s.Recoveries, Recovery{
				ID: randString(r), Kind: randString(r), State: randString(r), SourceSession: randString(r),
				TargetSession: randString(r), Snapshot: randString(r), Path: randString(r), Key: randString(r),
				Created: randTime(r), CreatedBy: randInt(r), ConsumedAt: randTime(r), ConsumedBy: randString(r),
				ConsumedPID: randInt(r), Chars: randInt(r), Note: randString(r),
			})
		}
	}
	return s
}

// TestStateEncodeRandom: marshalState is json.MarshalIndent(s, "", " ")
// byte for byte, and decoding its output gives what encoding/json gives.
func TestStateEncodeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		s := randState(r)
		got, gerr := marshalState(s)
		want, werr := json.MarshalIndent(s, "", " ")
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("case %d: error %v, encoding/json: %v", i, gerr, werr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got  %s\n want %s", i, got, want)
		}
		if gerr == nil {
			sameDecode(t, got, freshState, unmarshalState)
			mutate(t, r, got, func(b []byte) { sameDecode(t, b, stateWithRecoveries, unmarshalState) })
		}
	}
}

// TestStateEncodeErrors: a time encoding/json refuses is refused too.
func TestStateEncodeErrors(t *testing.T) {
	bad := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []*State{
		{Sessions: map[string]*SessionState{"a": {LastEvent: bad}}},
		{Sessions: map[string]*SessionState{"a": {Started: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{Recoveries: []Recovery{{Created: bad}}},
		{Recoveries: []Recovery{{ConsumedAt: bad}}},
	} {
		_, gerr := marshalState(s)
		_, werr := json.MarshalIndent(s, "", " ")
		if gerr == nil || werr == nil {
			t.Fatalf("%+v: error %v, encoding/json: %v", s, gerr, werr)
		}
	}
	if got, _ := marshalState(nil); string(got) != "null" {
		t.Fatalf("nil state: %q", got)
	}
}

// mutate calls fn with random mutations of the valid document b.
func mutate(t *testing.T, r *rand.Rand, b []byte, fn func([]byte)) {
	t.Helper()
	alphabet := []byte("{}[],:\" \\nul0123456789.-+eE\ttrue\xff\xc3")
	for range 4 {
		m := append([]byte(nil), b...)
		for range 1 + r.IntN(3) {
			if len(m) == 0 {
				break
			}
			i := r.IntN(len(m))
			switch r.IntN(5) {
			case 0:
				m = append(m[:i], m[i+1:]...)
			case 1:
				m = append(m[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, m[i:]...)...)
			case 2:
				m[i] = alphabet[r.IntN(len(alphabet))]
			case 3:
				j := i + r.IntN(len(m)-i)
				m = append(m[:j], append(append([]byte(nil), m[i:j]...), m[j:]...)...)
			default:
				m = m[:i]
			}
		}
		fn(m)
	}
}

func randInput(r *rand.Rand) *Input {
	raws := []string{"", "null", `{"a":1}`, `[1,"x",{"b":[]}]`, `"s"`, "12.5", "true"}
	return &Input{
		SessionID: randString(r), TranscriptPath: randString(r), Cwd: randString(r), HookEventName: randString(r),
		PermissionMode: randString(r), AgentID: randString(r), AgentType: randString(r), Source: randString(r),
		Model: randString(r), Prompt: randString(r), ToolName: randString(r),
		ToolInput: json.RawMessage(raws[r.IntN(len(raws))]), ToolResponse: json.RawMessage(raws[r.IntN(len(raws))]),
		ToolUseID: randString(r), DurationMS: int64(randInt(r)), Trigger: randString(r),
		CustomInstructions: randString(r), CompactSummary: randString(r), StopHookActive: r.IntN(2) == 0,
		Reason: randString(r),
	}
}

// TestInputDecodeRandom decodes random inputs (as encoding/json writes
// them, keys in random letter case) and random mutations of them.
func TestInputDecodeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		in := randInput(r)
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if r.IntN(3) == 0 {
			b = bytes.ToUpper(b) // keys match whatever their letter case
		}
		sameDecode(t, b, freshInput, unmarshalInput)
		mutate(t, r, b, func(m []byte) { sameDecode(t, m, freshInput, unmarshalInput) })
	}
}

// encoderOutput is what Output.Write wrote before: a json.Encoder without
// HTML escaping.
func encoderOutput(o *Output) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func TestOutputEncodeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	yes, no := true, false
	for i := range 3000 {
		o := &Output{SystemMessage: randString(r), SuppressOutput: r.IntN(2) == 0}
		switch r.IntN(3) {
		case 0:
			o.Continue = &yes
		case 1:
			o.Continue = &no
		}
		if r.IntN(3) > 0 {
			o.HookSpecificOutput = &SpecificOutput{HookEventName: Event(randString(r)), AdditionalContext: randString(r)}
		}
		if got, want := appendOutput(nil, o), encoderOutput(o); !bytes.Equal(got, want) {
			t.Fatalf("case %d: %+v:\n got  %s\n want %s", i, o, got, want)
		}
		var w bytes.Buffer
		if err := o.Write(&w); err != nil {
			t.Fatal(err)
		}
		if !o.IsEmpty() && !bytes.Equal(w.Bytes(), encoderOutput(o)) {
			t.Fatalf("case %d: Write wrote %s", i, w.Bytes())
		}
	}
	if got, want := appendOutput(nil, nil), encoderOutput(nil); !bytes.Equal(got, want) {
		t.Fatalf("nil output: %q, encoding/json %q", got, want)
	}
}

// TestSummaryDecodeAgrees: the compaction summary's content and the
// boundary test agree with their encoding/json versions.
func TestSummaryDecodeAgrees(t *testing.T) {
	contents := []string{`"text"`, `""`, `null`, `1`, `{}`, `[]`, `[null]`, `[{"type":"text","text":"a"},{"text":"b"}]`,
		`[{"type":1,"text":"a"}]`, `[{"TEXT":"up"},{"text":null}]`, `[1]`, `["x"]`, `[{"text":"a","text":"b"}]`,
		`"bad\x"`, "\"\xff\"", `[{"text":"a"},]`, ``, `[{"text":"ok","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}]`}
	lines := []string{`{"type":"system","subtype":"compact_boundary"}`, `{"TYPE":"system","Subtype":"compact_boundary"}`,
		`{"type":"system","subtype":"compact_boundary","subtype":"x"}`, `{"type":"system","subtype":"compact_boundary","type":null}`,
		`{"type":"system","subtype":1}`, `null`, `[]`, `{"type":"system","subtype":"compact_boundary"`, `{"type":"system","subtype":"compact_boundary","a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`}
	r := rand.New(rand.NewPCG(7, 8))
	checkContent := func(c []byte) {
		gs, gok := contentText(c)
		ws, wok := contentTextJSON(c)
		if gs != ws || gok != wok {
			t.Fatalf("contentText(%q) = %q, %v; encoding/json: %q, %v", c, gs, gok, ws, wok)
		}
	}
	checkLine := func(l []byte) {
		if g, w := isBoundary(l), isBoundaryJSON(l); g != w {
			t.Fatalf("isBoundary(%q) = %v; encoding/json: %v", l, g, w)
		}
	}
	for _, c := range contents {
		checkContent([]byte(c))
		mutate(t, r, []byte(c), checkContent)
	}
	for _, l := range lines {
		checkLine([]byte(l))
		mutate(t, r, []byte(l), checkLine)
	}
}

// TestReadStateSentinel: a state file encoding/json refuses is
// ErrStateCorrupt, and a refused stdin ErrBadInput.
func TestReadStateSentinel(t *testing.T) {
	for _, c := range []string{`{"version":`, `[]`, `{"sessions":{"a":1}}`, `{"version":"1"}`, "\xff"} {
		root := t.TempDir()
		if err := writeState(root, []byte(c)); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadState(root); !errors.Is(err, ErrStateCorrupt) {
			t.Fatalf("%q: ReadState error %v, want ErrStateCorrupt", c, err)
		}
	}
	for _, c := range []string{`{"cwd":`, `[]`, `{"cwd":1}`, `{"duration_ms":"1"}`, "\xff", `{"source":"a"} x`} {
		if _, err := ParseInput([]byte(c)); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%q: ParseInput error %v, want ErrBadInput", c, err)
		}
	}
}

func Example_marshalState() {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	s := &State{Version: 1, Project: "/p<&>", Sessions: map[string]*SessionState{"s1": {LastEvent: at, Prompts: 2}}}
	b, _ := marshalState(s)
	fmt.Println(string(b))
	// Output:
	// {
	//  "version": 1,
	//  "project": "/p\u003c\u0026\u003e",
	//  "sessions": {
	//   "s1": {
	//    "last_event": "2026-01-02T03:04:05.000000006Z",
	//    "prompts": 2,
	//    "prompts_since_checkpoint": 0,
	//    "modifications_since_checkpoint": 0,
	//    "checkpoints": 0,
	//    "snapshots": 0
	//   }
	//  },
	//  "recoveries": null
	// }
}
