package fuzz

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/redact"
)

func redactSeeds(f *testing.F) {
	for _, s := range []string{
		"",
		"password=Xy9#kLm2pQ",
		`{"password":"Tr0ub4dor&3x","n":[1,2,{"k":"v"}]}`,
		`{"c":"-----` + `BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"}`,
		"https://u:p4ss-w0rd!@host/x",
		"Authorization: Bearer abcDEF123456789xyz",
		"gh" + "p_0123456789abcdefghijABCDEFGHIJ012345",
		"card 4539 1488 0343 6467 ssn 123-45-6780",
		"\xff\xfe\xc3token=\xe2\x82abcdef12345678",
		`{"a":"\u0067hp_x\ud800"}`,
		"é日本 secret: 'ab12cd34ef56gh78' 🙂",
	} {
		f.Add([]byte(s))
	}
}

// FuzzRedactBytes checks the plain-text invariants: no panic, idempotence,
// nothing detectable left, valid UTF-8 stays valid.
func FuzzRedactBytes(f *testing.F) {
	redactSeeds(f)
	r := redact.Default()
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := r.Bytes(in)
		again, rep := r.Bytes(out)
		if !bytes.Equal(again, out) || rep.Total() != 0 {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		if fs := r.Find(out); len(fs) != 0 {
			t.Fatalf("secret left: %v in %q", fs, out)
		}
		if utf8.Valid(in) && !utf8.Valid(out) {
			t.Fatalf("UTF-8 broken: %q -> %q", in, out)
		}
	})
}

// FuzzRedactJSONLine checks that a valid JSON line stays valid JSON with
// the same number of values, and that JSONLine is idempotent.
func FuzzRedactJSONLine(f *testing.F) {
	redactSeeds(f)
	r := redact.Default()
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := r.JSONLine(in)
		again, _ := r.JSONLine(out)
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("JSON broken: %q -> %q", in, out)
		}
		var a, b any
		if json.Unmarshal(in, &a) != nil {
			return
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("unmarshal after redaction: %v", err)
		}
		if shape(a) != shape(b) {
			t.Fatalf("structure changed: %q -> %q", in, out)
		}
	})
}

// shape renders a JSON value's structure: types and container sizes.
func shape(v any) string {
	var b bytes.Buffer
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			b.WriteString("{")
			// value types, order-independent count only
			n := map[string]int{}
			for _, e := range x {
				var sb bytes.Buffer
				sb.WriteString(shape(e))
				n[sb.String()]++
			}
			enc, _ := json.Marshal(n)
			b.Write(enc)
			b.WriteString("}")
		case []any:
			b.WriteString("[")
			for _, e := range x {
				walk(e)
				b.WriteString(",")
			}
			b.WriteString("]")
		case string:
			b.WriteString("s")
		case float64:
			b.WriteString("n")
		case bool:
			b.WriteString("b")
		case nil:
			b.WriteString("0")
		}
	}
	walk(v)
	return b.String()
}
