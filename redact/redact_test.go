package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// skeleton returns the structure of a JSON value with every string and
// number replaced by its type, so two lines can be compared for shape.
func skeleton(v any) any {
	switch x := v.(type) {
	case map[string]any:
		// keys may be redacted too: keep their count, not their text
		var vals []any
		for _, e := range x {
			vals = append(vals, skeleton(e))
		}
		return map[string]any{"#keys": len(x), "#types": typeMultiset(vals)}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = skeleton(e)
		}
		return out
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	default:
		return v
	}
}

func typeMultiset(vals []any) map[string]int {
	m := map[string]int{}
	for _, v := range vals {
		b, _ := json.Marshal(v)
		m[string(b)]++
	}
	return m
}

// checkProperties asserts the redaction invariants on one input.
func checkProperties(t *testing.T, r *Redactor, in []byte) {
	t.Helper()
	out, rep := r.Bytes(in)
	if again, rep2 := r.Bytes(out); !bytes.Equal(again, out) || rep2.Total() != 0 {
		t.Fatalf("Bytes not idempotent:\nin:   %q\nout:  %q\nout2: %q", in, out, again)
	}
	if f := r.Find(out); len(f) != 0 {
		t.Fatalf("secret remains after Bytes: %v in %q", f, out)
	}
	if utf8.Valid(in) && !utf8.Valid(out) {
		t.Fatalf("valid UTF-8 became invalid: %q -> %q", in, out)
	}
	if rep.Total() == 0 && !bytes.Equal(in, out) {
		t.Fatalf("changed without a report: %q -> %q", in, out)
	}
	jout, _ := r.JSONLine(in)
	if again, _ := r.JSONLine(jout); !bytes.Equal(again, jout) {
		t.Fatalf("JSONLine not idempotent:\nin:   %q\nout:  %q\nout2: %q", in, jout, again)
	}
	if json.Valid(in) {
		if !json.Valid(jout) {
			t.Fatalf("JSONLine broke JSON:\nin:  %q\nout: %q", in, jout)
		}
		var a, b any
		if err := json.Unmarshal(in, &a); err == nil {
			if err := json.Unmarshal(jout, &b); err != nil || !reflect.DeepEqual(skeleton(a), skeleton(b)) {
				t.Fatalf("JSONLine changed structure:\nin:  %q\nout: %q", in, jout)
			}
		}
		// every decoded string is free of secrets
		var v any
		if json.Unmarshal(jout, &v) == nil {
			walkStrings(v, func(s string) {
				if f := r.Find([]byte(s)); len(f) != 0 {
					t.Fatalf("secret remains in a JSON string after JSONLine: %v %q", f, s)
				}
			})
		}
	}
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case string:
		f(x)
	}
}

func TestPropertiesOnLabelledCorpus(t *testing.T) {
	r := Default()
	for _, c := range positiveCases(4) {
		checkProperties(t, r, []byte(c.Text))
		// secret embedded between multi-byte characters
		checkProperties(t, r, []byte("é日本"+c.Text+"€🙂"))
	}
	for _, n := range negativeCases(5) {
		checkProperties(t, r, []byte(n))
	}
}

func TestInvalidUTF8(t *testing.T) {
	r := Default()
	gh := "gh" + "p_" + newGen(9).str(alnum, 36)
	for _, in := range []string{
		"\xff\xfe" + gh + "\xc3",
		"token=\xe2\x82" + gh,
		`{"a":"` + "\xff" + gh + `"}`,
		"password=\xf0\x9f\x99abcdef123!",
	} {
		out, _ := r.Bytes([]byte(in))
		if strings.Contains(string(out), gh) {
			t.Errorf("secret kept in %q", out)
		}
		checkProperties(t, r, []byte(in))
	}
}

func TestNoAllocationWhenClean(t *testing.T) {
	r := Default()
	in := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"All tests pass; the build is green."}]}}`)
	allocs := testing.AllocsPerRun(100, func() {
		out, _ := r.JSONLine(in)
		if &out[0] != &in[0] {
			t.Fatal("JSONLine copied a clean line")
		}
		out, _ = r.Bytes(in)
		if &out[0] != &in[0] {
			t.Fatal("Bytes copied clean text")
		}
	})
	if allocs != 0 {
		t.Errorf("clean input: %v allocations per run, want 0", allocs)
	}
}

func TestJSONLine(t *testing.T) {
	r := Default()
	g := newGen(11)
	ghp := "gh" + "p_" + g.str(alnum, 36)
	block, body := g.pem("RSA PRIVATE KEY")
	card := g.luhnCard("4", 16)
	pemLine, _ := json.Marshal(map[string]string{"content": "here:\n" + block + "\nend"})
	tests := []struct {
		name, in string
		gone     []string
		keep     []string
	}{
		{"token in string", `{"text":"use ` + ghp + ` please","n":1}`, []string{ghp}, []string{`"n":1`, `"text":"use [REDACTED:github-pat] please"`}},
		{"pem with escaped newlines", string(pemLine), []string{body, "BEGIN RSA"}, []string{`"content":"here:\n[REDACTED:private-key]\nend"`}},
		{"password member", `{"user":"bob","password":"Tr0ub4dor&3x"}`, []string{"Tr0ub4dor"}, []string{`"user":"bob"`, `"password":"[REDACTED:generic-password]"`}},
		{"escaped quotes in nested json", `{"c":"{\"password\": \"Tr0ub4dor&3x\"}"}`, []string{"Tr0ub4dor"}, []string{`{\"password\": \"[REDACTED:generic-password]\"}`}},
		{"unicode escape hides keyword", `{"c":"` + `\u0067hp_` + ghp[4:] + `"}`, []string{ghp[4:]}, nil},
		{"card as number", `{"card":` + card + `,"x":[1,2]}`, []string{card}, []string{`"card":0`}},
		{"escape next to secret", `{"c":"\t` + ghp + `\u00e9"}`, []string{ghp}, []string{`"c":"\t[REDACTED:github-pat]\u00e9"`}},
		{"invalid json falls back", `{"c":"` + ghp + `\"` + "\n", []string{ghp}, []string{`\"`}},
		{"clean line untouched", `{"a":"b","c":[true,false,null,1.5e3]}`, nil, []string{`{"a":"b","c":[true,false,null,1.5e3]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := r.JSONLine([]byte(tc.in))
			for _, g := range tc.gone {
				if strings.Contains(string(out), g) {
					t.Errorf("%q still in %s", g, out)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(string(out), k) {
					t.Errorf("%q missing from %s", k, out)
				}
			}
			if len(tc.gone) > 0 && rep.Total() == 0 {
				t.Errorf("empty report for %s", out)
			}
			if json.Valid([]byte(tc.in)) && !json.Valid(out) {
				t.Errorf("invalid JSON out: %s", out)
			}
			checkProperties(t, r, []byte(tc.in))
		})
	}
}

func TestWidenEscapes(t *testing.T) {
	b := []byte(`ab\u00e9cd\nef\\gh`)
	for _, tc := range []struct{ s, e, ws, we int }{
		{3, 5, 2, 8},     // inside \u00e9
		{11, 12, 10, 12}, // the n of \n
		{15, 16, 14, 16}, // second backslash of \\
		{12, 13, 12, 13},
		{0, 2, 0, 2},
	} {
		ws, we := widenEscapes(b, tc.s, tc.e)
		if ws != tc.ws || we != tc.we {
			t.Errorf("widen(%d,%d) = %d,%d want %d,%d", tc.s, tc.e, ws, we, tc.ws, tc.we)
		}
	}
}

func TestConfig(t *testing.T) {
	g := newGen(12)
	ghp := "gh" + "p_" + g.str(alnum, 36)
	in := "key " + ghp + " and ACME-" + g.str(upperNum, 20) + " and password=Xy9#kLm2pQ"

	r, err := New(Config{
		Disabled:    []string{"generic-password"},
		Extra:       []UserRule{{ID: "acme-key", Regex: `ACME-[A-Z0-9]{20}`, Keywords: []string{"acme-"}}},
		Replacement: "<%s>",
		Salt:        []byte("s"),
	})
	if err != nil {
		t.Fatal(err)
	}
	out, rep := r.String(in)
	if !strings.Contains(out, "<github-pat>") || !strings.Contains(out, "<acme-key>") || !strings.Contains(out, "password=Xy9#kLm2pQ") {
		t.Errorf("got %q", out)
	}
	if rep.Counts["acme-key"] != 1 || rep.Counts["github-pat"] != 1 || len(rep.Fingerprints) != 2 {
		t.Errorf("report %+v", rep)
	}
	for _, fp := range rep.Fingerprints {
		if strings.Contains(in, fp.Hash) || len(fp.Hash) != 16 {
			t.Errorf("bad fingerprint %+v", fp)
		}
	}
	// same salt: same fingerprints
	r2, _ := New(Config{Salt: []byte("s")})
	_, rep2 := r2.String(ghp)
	if rep2.Fingerprints[0] != rep.Fingerprints[0] && rep.Fingerprints[1] != rep2.Fingerprints[0] {
		t.Errorf("fingerprints differ with the same salt: %v vs %v", rep.Fingerprints, rep2.Fingerprints)
	}

	allow, err := New(Config{Allow: []string{`^gh` + `p_`}})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := allow.String(ghp); out != ghp {
		t.Errorf("allowlisted secret redacted: %q", out)
	}

	noKw, err := New(Config{Extra: []UserRule{{ID: "internal-id", Regex: `INT-(\d{6})`}}})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := noKw.String("ref INT-123456."); out != "ref INT-[REDACTED:internal-id]." {
		t.Errorf("capture-group user rule: %q", out)
	}

	for _, bad := range []Config{
		{Disabled: []string{"no-such-rule"}},
		{Extra: []UserRule{{ID: "Bad ID", Regex: "x"}}},
		{Extra: []UserRule{{ID: "github-pat", Regex: "x"}}},
		{Extra: []UserRule{{ID: "x", Regex: "("}}},
		{Extra: []UserRule{{ID: "x", Regex: "a*"}}},
		{Allow: []string{"["}},
		{AllowPaths: []string{"["}},
		{Replacement: "%s%s"},
	} {
		if _, err := New(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", bad, err)
		}
	}
}

func TestReportMerge(t *testing.T) {
	var a Report
	a.Merge(Report{Counts: map[string]int{"jwt": 1}, Fingerprints: []Fingerprint{{"jwt", "aa"}}})
	a.Merge(Report{Counts: map[string]int{"jwt": 2, "us-ssn": 1}, Fingerprints: []Fingerprint{{"jwt", "aa"}, {"us-ssn", "bb"}}})
	if a.Counts["jwt"] != 3 || a.Counts["us-ssn"] != 1 || len(a.Fingerprints) != 2 || a.Total() != 4 {
		t.Errorf("merge: %+v", a)
	}
}

func TestExcluded(t *testing.T) {
	def := DefaultExcludePatterns()
	for _, p := range []string{".env", "app/.env.local", "/home/u/.ssh/id_rsa", "id_ed25519.pub", "certs/server.pem", "tls.key", "/home/u/.aws/credentials", `C:\proj\.env`} {
		if !Excluded(p, def) {
			t.Errorf("%s not excluded", p)
		}
	}
	for _, p := range []string{"main.go", "environment.md", "keys.go", "docs/env.md", "aws/credentials.go"} {
		if Excluded(p, def) {
			t.Errorf("%s excluded", p)
		}
	}
	r, err := New(Config{AllowPaths: []string{"testdata/*", "*.golden"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.PathAllowed("pkg/testdata/x.txt") || !r.PathAllowed("a/b.golden") || r.PathAllowed("main.go") {
		t.Error("PathAllowed")
	}
}

// TestCorpusTranscriptsClean runs every rule over the real transcripts,
// which their authors sanitized: any finding is a false positive.
func TestCorpusTranscriptsClean(t *testing.T) {
	r := Default()
	for _, f := range corpusTranscripts(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			out, rep := r.JSONLine(line)
			if rep.Total() > 0 {
				t.Errorf("%s:%d: %v", f, i+1, rep.Counts)
			}
			if !bytes.Equal(out, line) {
				t.Errorf("%s:%d changed", f, i+1)
			}
		}
	}
}
