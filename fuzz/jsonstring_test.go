package fuzz

import (
	"encoding/json"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// FuzzJSONString checks archive.JSONString (the hand-written decoder the
// importer and the text pointers use) against encoding/json.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"a\n"`, `"\ud83d\ude00"`, "\"\xff\"", `"\u12"`, `"\ud83d\u0041"`, `"a"b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gok := archive.JSONString(b)
		var want string
		wok := len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && json.Unmarshal(b, &want) == nil
		if !wok {
			want = ""
		}
		if got != want || gok != wok {
			t.Fatalf("JSONString(%q) = %q, %v; encoding/json: %q, %v", b, got, gok, want, wok)
		}
	})
}
