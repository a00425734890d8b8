package archive

import (
	"encoding/json"
	"math/rand"
	"testing"
)

// refJSONString is the reference JSONString must agree with.
func refJSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false
	}
	return s, true
}

func checkJSONString(t *testing.T, lit []byte) {
	t.Helper()
	got, gok := JSONString(lit)
	want, wok := refJSONString(lit)
	if got != want || gok != wok {
		t.Fatalf("JSONString(%q) = %q, %v; encoding/json: %q, %v", lit, got, gok, want, wok)
	}
}

func TestJSONStringTable(t *testing.T) {
	for _, s := range []string{
		`""`, `"a"`, `"plain ascii text"`, `"a\nb\tc\\d\"e\/f\bg\fh\ri"`,
		`"\u00e9\u20AC"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`,
		`"\ud83d\ud83d\ude00"`, `"\u12"`, `"\u12g4"`, `"\x"`, `"\"`, `"a"b"`, "\"a\x01\"", "\"\xff\xfe\"",
		"\"caf\xc3\xa9\"", "\"\xe2\x82\"", "\"\xef\xbf\xbd\"", `"\\"`, `"\\\\\""`, `"`, `a`, `"\u0000"`,
		"\"\x7f\"", `"\uD800\uDBFF"`, `"\uDBFF\uDFFF"`, `"\ud83d\u12"`,
	} {
		checkJSONString(t, []byte(s))
	}
}

// TestJSONStringRandom compares JSONString with encoding/json on random
// literals built from the bytes that matter to the decoder.
func TestJSONStringRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "Z", " ", "\\", "\"", "n", "u", "d83d", "DE00", "dc00", "0041", "\\u", "\\n", "\\\\",
		"\xff", "\xc3", "\xa9", "\xe2\x82\xac", "\x01", "\x1f", "é", "😀", "/", "\\/", "g"}
	for range 20000 {
		b := []byte{'"'}
		for n := rng.Intn(12); n > 0; n-- {
			b = append(b, pieces[rng.Intn(len(pieces))]...)
		}
		b = append(b, '"')
		checkJSONString(t, b)
	}
}

func TestSpanTextEqual(t *testing.T) {
	line := []byte(`{"a":"x\ny","b":"plain","c":{"k":1},"d":"caf\u00e9"}`)
	spans := [][]Span{
		{{Off: 5, Len: 7}},
		{{Off: 17, Len: 7}},
		{{Off: 29, Len: 7, Verbatim: true}},
		{{Off: 5, Len: 7}, {Off: 17, Len: 7}, {Off: 41, Len: 12}},
		{{Off: 40, Len: 30}},
	}
	var scratch []byte
	for _, sp := range spans {
		want, ok := SpanText(line, sp)
		for _, text := range []string{want, want + "x", "", "x" + want} {
			if got := spanTextEqual(line, sp, text, &scratch); got != (ok && text == want) {
				t.Errorf("spanTextEqual(%v, %q) = %v", sp, text, got)
			}
		}
	}
}

// TestPlainRun checks the 8-byte plain-run scan against plainByte: every
// byte value at every position of a run, and random buffers.
func TestPlainRun(t *testing.T) {
	ref := func(b []byte) int {
		i := 0
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		return i
	}
	for n := range 20 {
		for pos := range n {
			for c := range 256 {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a'
				}
				b[pos] = byte(c)
				if got, want := plainRun(b), ref(b); got != want {
					t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
				}
				if plainASCII(b) != (ref(b) == n) {
					t.Fatalf("plainASCII(%q) disagrees with its definition", b)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(4))
	for range 100000 {
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = byte(0x1c + rng.Intn(0x70))
			if rng.Intn(20) == 0 {
				b[i] = byte(rng.Intn(256))
			}
		}
		if got, want := plainRun(b), ref(b); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
		}
	}
}
