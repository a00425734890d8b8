package jscan

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// refSkipString is the plain byte-by-byte scanner skipString must agree
// with.
func refSkipString(b []byte, i int) (int, error) {
	i++
	for i < len(b) {
		switch b[i] {
		case '"':
			return i + 1, nil
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return 0, ErrBadJSON
}

func TestSkipStringMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte{'"', '\\', 'a', 'n', ' ', 0xff}
	for range 50000 {
		b := []byte{'"'}
		for n := rng.Intn(16); n > 0; n-- {
			b = append(b, alphabet[rng.Intn(len(alphabet))])
		}
		ge, gerr := skipString(b, 0)
		we, werr := refSkipString(b, 0)
		if ge != we || (gerr == nil) != (werr == nil) {
			t.Fatalf("skipString(%q) = %d, %v; want %d, %v", b, ge, gerr, we, werr)
		}
	}
}

func TestParseLineAndFields(t *testing.T) {
	b := []byte(`{"a":"x\"y","b":[1,{"c":true}],"d":"\\\\","e":-2.5e3}`)
	top, err := ParseLine(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Field(b, top, "a").Raw(b)); got != `"x\"y"` {
		t.Errorf("a = %s", got)
	}
	if got := string(Field(b, top, "d").Raw(b)); got != `"\\\\"` {
		t.Errorf("d = %s", got)
	}
	if got := Field(b, top, "e").Int64(b); got != -2500 {
		t.Errorf("e = %d", got)
	}
	n := 0
	if err := EachElem(b, Field(b, top, "b"), func(Val) { n++ }); err != nil || n != 2 {
		t.Errorf("b: %d elements, %v", n, err)
	}
	for _, bad := range []string{`{"a":"x}`, `{"a":"x\"}`, `{"a" "x"}`, `{"a":[1,}`, `{"a":1} x`, `[1]`, ``,
		`{"a":[1,]}`, `{"a":[,1]}`, `{"a":{,}}`, `{"a":[1 2]}`, `{"a":{"b"}}`, `{"a":{"b":}}`, `{"a":[}`, `{"a":{]}`, `{,}`, `{"a":1,}`,
		`{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`} {
		if _, err := ParseLine([]byte(bad)); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		}
	}
}

// TestParseLineFieldsMatchesTwoPasses: ParseLineFields accepts exactly the
// lines ParseLine accepts, returns the same value, and reports the same
// members as EachField, on valid lines and on every truncation and
// thousands of byte mutations of them.
func TestParseLineFieldsMatchesTwoPasses(t *testing.T) {
	type member struct {
		key string
		v   Val
	}
	seeds := []string{
		`{}`, ` { } `, `{"a":1}`, `{"type":"user","message":{"content":[{"type":"text","text":"a \"q\" \\"}]},"n":-1.5e3,"t":true,"x":null}`,
		`{"a":[1,2,{"b":"c"}],"d":{}}` + "\r", `{"k":"v",}`, `{"k" "v"}`, `[1]`, `{"a":1} x`, `{"a":"\u00e9\n"}`,
	}
	rng := rand.New(rand.NewSource(9))
	var lines []string
	for _, s := range seeds {
		lines = append(lines, s)
		for i := range len(s) {
			lines = append(lines, s[:i])
		}
		for range 2000 {
			b := []byte(s)
			if len(b) == 0 {
				continue
			}
			alpha := `{}[]",:\ a1-tn`
			b[rng.Intn(len(b))] = alpha[rng.Intn(len(alpha))]
			lines = append(lines, string(b))
		}
	}
	for _, l := range lines {
		b := []byte(l)
		var got []member
		v, err := ParseLineFields(b, func(k []byte, x Val) { got = append(got, member{string(k), x}) })
		wv, werr := ParseLine(b)
		if (err == nil) != (werr == nil) || v != wv {
			t.Fatalf("ParseLineFields(%q) = %v, %v; ParseLine: %v, %v", l, v, err, wv, werr)
		}
		if err != nil {
			continue
		}
		var want []member
		if err := EachField(b, wv, func(k []byte, x Val) { want = append(want, member{string(k), x}) }); err != nil {
			t.Fatalf("EachField(%q): %v", l, err)
		}
		if len(got) != len(want) {
			t.Fatalf("ParseLineFields(%q): %d members, EachField %d", l, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ParseLineFields(%q): member %d = %v, EachField %v", l, i, got[i], want[i])
			}
		}
	}
}

// TestParseLineMatchesEncodingJSON: on random objects, nested and then
// mutated with structural bytes, quotes and the digit 1, ParseLine
// accepts every JSON object encoding/json accepts, and EachField and
// EachElem walk every object and array in them as encoding/json reads it.
// (jscan takes any other run of bytes up to a delimiter as a number or
// literal, so it also accepts some lines encoding/json refuses; the
// structural errors it must refuse are listed in TestParseLineAndFields.)
func TestParseLineMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const alpha = `{}[]",:1 `
	var value func(depth int) string
	value = func(depth int) string {
		switch k := rng.Intn(5); {
		case depth < 4 && k == 0:
			var items []string
			for range rng.Intn(4) {
				items = append(items, value(depth+1))
			}
			return "[" + strings.Join(items, ",") + "]"
		case depth < 4 && k == 1 || depth == 0:
			var items []string
			for range rng.Intn(4) {
				items = append(items, `"k" : `+value(depth+1))
			}
			return "{" + strings.Join(items, ", ") + "}"
		case k == 2:
			return `"a{,]"`
		}
		return "11"
	}
	accepted, nested := 0, 0
	for range 50000 {
		b := []byte(value(0))
		for range rng.Intn(3) {
			b[rng.Intn(len(b))] = alpha[rng.Intn(len(alpha))]
		}
		if !json.Valid(b) || bytes.TrimSpace(b)[0] != '{' {
			continue
		}
		top, err := ParseLine(b)
		if err != nil {
			t.Fatalf("ParseLine(%q): %v, encoding/json accepts it", b, err)
		}
		got, want := countMembers(t, b, top), countJSON(t, b)
		if got != want {
			t.Fatalf("%q: jscan walks %d members, encoding/json %d", b, got, want)
		}
		accepted++
		if got > 3 {
			nested++
		}
	}
	if accepted < 10000 || nested < 1000 {
		t.Fatalf("%d objects accepted, %d with more than three members: the random lines test too little", accepted, nested)
	}
}

// countMembers counts the members of v and of every object and array in
// it, through EachField and EachElem.
func countMembers(t *testing.T, b []byte, v Val) int {
	n := 0
	var err error
	switch v.Kind(b) {
	case '{':
		err = EachField(b, v, func(_ []byte, x Val) { n += 1 + countMembers(t, b, x) })
	case '[':
		err = EachElem(b, v, func(x Val) { n += 1 + countMembers(t, b, x) })
	}
	if err != nil {
		t.Fatalf("%q: walking %s: %v", b, v.Raw(b), err)
	}
	return n
}

// countJSON is countMembers through encoding/json's tokens: every value
// inside an object or array but the keys.
func countJSON(t *testing.T, b []byte) int {
	d := json.NewDecoder(bytes.NewReader(b))
	n := 0
	var stack []json.Delim
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1] == '{' }
	key := true
	for {
		tok, err := d.Token()
		if err != nil {
			return n
		}
		if dl, ok := tok.(json.Delim); ok && (dl == '}' || dl == ']') {
			stack = stack[:len(stack)-1]
			key = expectKey()
			continue
		}
		if expectKey() && key {
			key = false // a key: its value is the member
			continue
		}
		if len(stack) > 0 {
			n++
		}
		key = expectKey()
		if dl, ok := tok.(json.Delim); ok {
			stack = append(stack, dl)
			key = true
		}
	}
}
