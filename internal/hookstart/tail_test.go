package hookstart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// summaryText on every kind of line.
func TestSummaryText(t *testing.T) {
	tests := []struct {
		name, line, want string
		ok               bool
	}{
		{"string content", `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued.\nFiles: a.go"}}`, "This session is being continued.\nFiles: a.go", true},
		{"escapes", `{"isCompactSummary":true,"message":{"content":"tab\there \"quoted\" \u00e9 \ud83d\ude00"}}`, "tab\there \"quoted\" é 😀", true},
		{"text blocks", `{"isCompactSummary":true,"message":{"content":[{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]}}`, "one\ntwo", true},
		{"key order", `{"message":{"content":"later"},"uuid":"x","isCompactSummary":true}`, "later", true},
		{"whitespace", " { \"isCompactSummary\" : true , \"message\" : { \"content\" : \"s\" } } ", "s", true},
		{"not a summary", `{"isCompactSummary":false,"message":{"content":"x"}}`, "", false},
		{"no flag", `{"message":{"content":"x"}}`, "", false},
		{"flag not a bool", `{"isCompactSummary":"true","message":{"content":"x"}}`, "", false},
		{"empty content", `{"isCompactSummary":true,"message":{"content":""}}`, "", false},
		{"no message", `{"isCompactSummary":true}`, "", false},
		{"message not an object", `{"isCompactSummary":true,"message":"x"}`, "", false},
		{"content a number", `{"isCompactSummary":true,"message":{"content":3}}`, "", false},
		{"blocks without text", `{"isCompactSummary":true,"message":{"content":[{"type":"image"}]}}`, "", false},
		{"truncated", `{"isCompactSummary":true,"message":{"content":"cut`, "", false},
		{"trailing garbage", `{"isCompactSummary":true,"message":{"content":"x"}} {}`, "", false},
		{"not an object", `["isCompactSummary",true]`, "", false},
		{"empty", ``, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := summaryText([]byte(tt.line))
			if got != tt.want || ok != tt.ok {
				t.Errorf("summaryText = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// contentText decodes string literals as encoding/json does, including
// invalid UTF-8, lone surrogates and control characters.
func TestContentTextMatchesJSON(t *testing.T) {
	lits := []string{
		`"plain"`, `"line\nbreak \"q\" \\ \/ \b\f\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`,
		`"lone \ud800 surrogate"`, `"low first \udc00\ud800"`, "\"raw \xff\xfe bytes\"", "\"ctl \x01\"",
		`"bad \x escape"`, `"cut \u12"`, `""`, `"é 中 😀"`, `"unterminated`, `"a" "b"`,
	}
	for _, l := range lits {
		got, ok := contentText([]byte(l))
		var want string
		wok := json.Unmarshal([]byte(l), &want) == nil && want != ""
		if !wok {
			want = ""
		}
		if got != want || ok != wok {
			t.Errorf("contentText(%q) = %q, %v; encoding/json gives %q, %v", l, got, ok, want, wok)
		}
	}
}

// A summary line longer than the first reads is assembled across chunks
// by the forward read, which returns the first summary after the offset
// (a newer one further on is the backward scan's answer, not this one's).
func TestCompactSummaryAfterLongLine(t *testing.T) {
	long := strings.Repeat("This session is being continued: "+strings.Repeat("x", 60)+"\\n", 2000) // ~190 KB of JSON
	line := func(content string) string {
		return `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"` + content + `"}}` + "\n"
	}
	pre := strings.Repeat(`{"type":"user","message":{"role":"user","content":"before"}}`+"\n", 50)
	boundary := `{"type":"system","subtype":"compact_boundary"}` + "\n"
	data := pre + boundary + line(long) + strings.Repeat(`{"type":"progress"}`+"\n", 100) + boundary + line("NEWER")
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(long, `\n`, "\n")
	got, err := CompactSummaryAfter(p, int64(len(pre)))
	if err != nil || got != want {
		t.Fatalf("forward read: %d bytes %q…, %v; want the %d-byte summary", len(got), firstN(got, 40), err, len(want))
	}
	if got, _ := CompactSummary(p); got != "NEWER" {
		t.Fatalf("backward scan: %q, want the newest summary", firstN(got, 40))
	}
}

// TestCompactSummaryAfter: reading forward from PreCompact's transcript
// size finds this compaction's summary, not an older one; offsets that do
// not fit fall back to the backward scan.
func TestCompactSummaryAfter(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Index(data, []byte(`{"parentUuid":null`))
	if i := bytes.Index(data, []byte(`"subtype":"compact_boundary"`)); i >= 0 {
		b = bytes.LastIndexByte(data[:i], '\n') + 1
	}
	pre, post := data[:b], data[b:]
	// An older compaction's summary in front of the pre-compaction lines
	// must not be picked.
	older := []byte(`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"OLDER SUMMARY"}}` + "\n")
	pad := bytes.Repeat([]byte(`{"type":"progress","data":{"x":"`+strings.Repeat("y", 1000)+`"}}`+"\n"), 600)
	full := slices.Concat(older, pad, pre, post, pad)
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, full, 0o600); err != nil {
		t.Fatal(err)
	}
	off := int64(len(older) + len(pad) + len(pre))
	for _, tc := range []struct {
		name   string
		offset int64
	}{
		{"at the recorded size", off},
		{"mid-line", off - 10},
		{"unknown", 0},
		{"beyond the end (another file)", int64(len(full)) + 1},
	} {
		got, err := CompactSummaryAfter(p, tc.offset)
		if err != nil || !strings.HasPrefix(got, "This session is being continued") {
			t.Errorf("%s: %q, %v", tc.name, firstN(got, 60), err)
		}
	}
	// Nothing after the offset yet (the transcript lags): the backward scan
	// finds the newest boundary without a summary, so nothing.
	lag := slices.Concat(older, pre, post[:bytes.Index(post, []byte("\n"))+1])
	if err := os.WriteFile(p, lag, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := CompactSummaryAfter(p, int64(len(older)+len(pre))); err != nil || got != "" {
		t.Errorf("boundary without summary: %q, %v", firstN(got, 60), err)
	}
}

func TestCompactSummaryTail(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Pad the front far beyond one read chunk; the answer must not change.
	pad := bytes.Repeat([]byte(`{"type":"progress","data":{"x":"`+strings.Repeat("y", 1000)+`"}}`+"\n"), 600)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"demo", data, "This session is being continued"},
		{"padded", append(append([]byte(nil), pad...), data...), "This session is being continued"},
		{"cut before the boundary", data[:bytes.Index(data, []byte(`"subtype":"compact_boundary"`))], ""},
		{"boundary without summary yet", data[:bytes.Index(data, []byte(`"isCompactSummary":true`))-200], ""},
		{"empty", nil, ""},
		{"no newline at all", bytes.Repeat([]byte("x"), 3*tailChunk), ""},
	} {
		p := filepath.Join(dir, tc.name+".jsonl")
		os.WriteFile(p, tc.data, 0o600)
		got, err := CompactSummary(p)
		if err != nil || (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, %v", tc.name, firstN(got, 60), err)
		}
	}
	if _, err := CompactSummary(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("missing file: no error")
	}
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
