package archive

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// decodeToolInput gives what `_ = json.Unmarshal(b, &in)` gives, on
// hand-picked edge cases and on random mutations of them.
func TestDecodeToolInput(t *testing.T) {
	cases := []string{
		`{"command":"go test ./...","description":"run"}`,
		`{"file_path":"/a/b.go","old_string":"x","new_string":"y"}`,
		`{"pattern":"foo.*","path":"src"}`,
		`{"plan":"1. do\n2. done"}`,
		`{"command":"a","command":"b"}`,
		`{"Command":"case"}`,
		`{"COMMAND":"upper","command":"lower"}`,
		`{"command":5,"path":"p"}`,
		`{"command":null,"path":"p"}`,
		`{"command":["x"],"file_path":"f"}`,
		`{"comm\u0061nd":"escaped key"}`,
		`{"pAth":"x","path":"y"}`,
		`{"\u017fattern":"long s folds to s"}`,
		`{"patternK":"not a field"}`,
		`{"file_path":"bad \xff utf8","command":"\ud800 lone surrogate"}`,
		`{"command":"tab\there \"quoted\" \\ \/ \u00e9"}`,
		` {"command":"leading space"} `,
		`{"command":"x"} trailing`,
		`{"command":"unterminated}`,
		`[1,2]`,
		`"just a string"`,
		`{}`,
		``,
		`{"a":{"command":"nested"},"command":"top"}`,
		`{"a":[{"path":"nested"}],"path":"top","x":true,"y":null,"z":-1.5e3}`,
		`{"command":"x","bad":tru}`,
		`{"command":"x","n":01}`,
		"{\"command\":\"ctl\x01char\"}",
	}
	check := func(s string) {
		t.Helper()
		var want, got toolInput
		_ = json.Unmarshal([]byte(s), &want)
		decodeToolInput(s, &got)
		if got != want {
			t.Fatalf("%q: got %+v, want %+v", s, got, want)
		}
	}
	for _, s := range cases {
		check(s)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte(`{}[]":,\ux0aAcCdkKpPtT ` + "\xff\x01")
	for range 50000 {
		b := []byte(cases[rng.Intn(len(cases))])
		for range 1 + rng.Intn(3) {
			if len(b) == 0 {
				break
			}
			switch i := rng.Intn(len(b)); rng.Intn(3) {
			case 0:
				b[i] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, b[i:]...)...)
			}
		}
		check(string(b))
	}
}
