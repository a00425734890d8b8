package claude

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/jscan"
)

// TestHashSourceMatchesDefinition: hashSource.hash (decoding into a reused
// buffer, an Edit's replacement written to the hash piece by piece) gives
// the SHA-256 of the decoded content, or of strings.Replace applied to
// it, for random contents with escapes, repeated and overlapping
// patterns, an empty old string and non-string members.
func TestHashSourceMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alpha := []string{"a", "b", "aa", "\n", "\"", "\\", "é", "\t", "\u2028", "x\x01y", "ab"}
	pick := func(n int) string {
		var sb strings.Builder
		for range rng.Intn(n) {
			sb.WriteString(alpha[rng.Intn(len(alpha))])
		}
		return sb.String()
	}
	var scratch []byte
	for i := 0; i < 5000; i++ {
		orig, old, nw := pick(30), pick(3), pick(4)
		all := rng.Intn(2) == 0
		obj := map[string]any{"originalFile": orig, "oldString": old, "newString": nw, "content": orig}
		if i%50 == 0 {
			obj["originalFile"] = 12 // not a string
			obj["content"] = nil
		}
		b, _ := json.Marshal(obj)
		root := jscan.Val{S: 0, E: len(b)}
		f := func(k string) jscan.Val { return jscan.Field(b, root, k) }
		if i%50 != 0 && !f("oldString").IsString(b) {
			t.Fatalf("%s: oldString not found", b)
		}
		read := hashSource{b: b, content: f("content")}
		if got, want := read.hash(&scratch), hashString(str(b, f("content"))); got != want {
			t.Fatalf("Read %s: %s, want %s", b, got, want)
		}
		edit := hashSource{b: b, content: f("originalFile"), old: f("oldString"), new: f("newString"), replaceAll: all, edit: true}
		n := 1
		if all {
			n = -1
		}
		want := hashString(strings.Replace(str(b, f("originalFile")), str(b, f("oldString")), str(b, f("newString")), n))
		if got := edit.hash(&scratch); got != want {
			t.Fatalf("Edit %s (all %v): %s, want %s", b, all, got, want)
		}
	}
}

// TestViewMatchesStr: view (no copy for a plain string) gives str's value
// for every kind of JSON string and for non-strings.
func TestViewMatchesStr(t *testing.T) {
	cases := []string{`""`, `"user"`, `"2026-01-02T03:04:05.678Z"`, `"a\"b"`, `"tab\there"`, `"é"`, "\"\xff\"", "\"a\x01\"", `"\u0041"`, `12`, `null`, `{"a":1}`, `"x\\"`}
	rng := rand.New(rand.NewSource(3))
	for range 2000 {
		n := rng.Intn(8)
		bs := make([]byte, n)
		for i := range bs {
			const alphabet = "a\\\"\x01\x7f\x80\xc3\xa9 "
			bs[i] = alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, `"`+string(bs)+`"`)
	}
	for _, c := range cases {
		b := []byte(c)
		v := jscan.Val{S: 0, E: len(b)}
		if got, want := view(b, v), str(b, v); got != want {
			t.Fatalf("%q: view %q, str %q", c, got, want)
		}
	}
}
