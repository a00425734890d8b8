package hook

import (
	"encoding/json"
	"testing"
)

// summaryText (jscan) gives encoding/json's answer on every kind of line.
func TestSummaryTextMatchesJSON(t *testing.T) {
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
			jgot, jok := summaryTextJSON([]byte(tt.line))
			if got != jgot || ok != jok {
				t.Errorf("summaryText = %q, %v; encoding/json gives %q, %v", got, ok, jgot, jok)
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
