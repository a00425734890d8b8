package jscan

import (
	"math/rand"
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
	for _, bad := range []string{`{"a":"x}`, `{"a":"x\"}`, `{"a" "x"}`, `{"a":[1,}`, `{"a":1} x`, `[1]`, ``} {
		if _, err := ParseLine([]byte(bad)); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		}
	}
}
