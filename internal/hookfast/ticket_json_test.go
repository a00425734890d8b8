package hookfast

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// sameTicket fails unless unmarshalTicket and encoding/json agree on data:
// both refuse it, or both decode the same ticket.
func sameTicket(t *testing.T, data []byte) {
	t.Helper()
	var got, want Ticket
	gerr := unmarshalTicket(data, &got)
	werr := json.Unmarshal(data, &want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, encoding/json: %v", data, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %+v\n want %+v", data, got, want)
	}
}

var ticketCases = []string{
	`{"v":1,"project":"/p","root":"/p/.claude/context","pacing":{"auto_save":true,"checkpoint_interval":10,"checkpoint_minutes":5},"files":[{"path":"/h/.claude-code/config.yaml","exists":false},{"path":"/p/.claude/config.yaml","exists":true,"size":12,"mtime":1763694000123456789,"ino":18446744073709551615,"ctime":-1}]}`,
	`{}`, `null`, `[]`, `"x"`, `{"v":1.0}`, `{"v":"1"}`, `{"V":1}`, `{"v":1,"v":2}`, `{"project":null}`, `{"project":"a\"b"}`,
	`{"project":"\u00e9"}`, "{\"project\":\"\xff\"}", `{"files":[]}`, `{"files":null}`, `{"files":[null]}`, `{"files":[1]}`,
	`{"files":[{"ino":-1}]}`, `{"files":[{"size":9223372036854775808}]}`, `{"files":[{"exists":1}]}`, `{"pacing":{"auto_save":null}}`,
	`{"pacing":{"AUTO_SAVE":true}}`, `{"pacing":[]}`, `{"unknown":1}`, `{"v":1`, `{"v":1} x`, ` {"v":-0} `,
	`{"files":[{"path":"a"}],"files":[{"exists":true}]}`, `{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
}

func TestTicketDecodeMatchesJSON(t *testing.T) {
	for _, c := range ticketCases {
		sameTicket(t, []byte(c))
	}
	// The tickets WriteTicket writes take the fast path.
	var tk Ticket
	if !decodeTicket([]byte(ticketCases[0]), &tk) || tk.Files[1].Ino != 1<<64-1 {
		t.Fatalf("a written ticket is not decoded by the fast path: %+v", tk)
	}
	r := rand.New(rand.NewPCG(21, 22))
	strs := []string{"", "/p", "/home/u/a b", "/é/日本", "a\"b", `a\b`, "\x01", "<&>", "\xff"}
	for range 3000 {
		tk := Ticket{Version: r.IntN(3), Project: strs[r.IntN(len(strs))], Root: strs[r.IntN(len(strs))], Primary: strs[r.IntN(len(strs))],
			Pacing: Pacing{AutoSave: r.IntN(2) == 0, Interval: r.IntN(100) - 10, Minutes: int(r.Int64())}}
		for range r.IntN(4) {
			tk.Files = append(tk.Files, FileID{Path: strs[r.IntN(len(strs))], Exists: r.IntN(2) == 0, Size: r.Int64N(1e6) - 1, ModNs: r.Int64(), Ino: r.Uint64(), CtNs: -r.Int64()})
		}
		data, err := json.Marshal(&tk)
		if err != nil {
			t.Fatal(err)
		}
		sameTicket(t, data)
		var back Ticket
		if unmarshalTicket(data, &back) != nil {
			t.Fatalf("%s: not decoded", data)
		}
		for range 4 {
			m := []byte(string(data))
			for range 1 + r.IntN(3) {
				if len(m) == 0 {
					break
				}
				i := r.IntN(len(m))
				switch r.IntN(3) {
				case 0:
					m = append(m[:i], m[i+1:]...)
				case 1:
					const set = "{}[],:\"\\ntrue0-.e\xff"
					m[i] = set[r.IntN(len(set))]
				default:
					const set = "{}[],:\"\\n0"
					m = append(m[:i], append([]byte{set[r.IntN(len(set))]}, m[i:]...)...)
				}
			}
			sameTicket(t, m)
		}
	}
}

// FuzzTicketDecode: unmarshalTicket agrees with encoding/json on any
// bytes.
func FuzzTicketDecode(f *testing.F) {
	for _, c := range ticketCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameTicket(t, data) })
}
