package jsonw

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendStringMatchesJSON compares AppendString with json.Marshal
// (HTML escaping on) and a json.Encoder without HTML escaping, on every
// single byte and on random byte strings.
func TestAppendStringMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}))
	}
	cases = append(cases, "\u2028", "\u2029", "😀", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a<b>&c")
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s, true); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := AppendString(nil, s, false); !bytes.Equal(got, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))) {
			t.Fatalf("%q without HTML escaping: %s, encoding/json %s", s, got, buf.Bytes())
		}
	}
}

func TestAppendTimeMatchesJSON(t *testing.T) {
	for _, tm := range []time.Time{{}, time.Unix(1e9, 1).UTC(), time.Unix(1e9, 0).In(time.FixedZone("", -9000)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		got, gerr := AppendTime([]byte("x"), tm)
		want, werr := json.Marshal(tm)
		if (gerr == nil) != (werr == nil) || (gerr == nil && !bytes.Equal(got, append([]byte("x"), want...))) {
			t.Fatalf("%v: %s, %v; encoding/json %s, %v", tm, got, gerr, want, werr)
		}
	}
}
