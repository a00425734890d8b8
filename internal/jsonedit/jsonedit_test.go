package jsonedit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, doc []byte) *Node {
	t.Helper()
	n, err := Parse(doc)
	if err != nil {
		t.Fatalf("parse %q: %v", doc, err)
	}
	return n
}

func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// Adding a member or element and deleting it again gives back the
// document byte for byte, in every layout; the addition is what was asked.
func TestAddDeleteRoundTrip(t *testing.T) {
	docs := map[string]string{
		"pretty":        "{\n  \"a\": 1,\n  \"list\": [\n    1,\n    {\"x\": \"y\"}\n  ],\n  \"obj\": {\n    \"k\": true\n  }\n}\n",
		"tabs":          "{\n\t\"a\": 1,\n\t\"list\": [\n\t\t1\n\t],\n\t\"obj\": {\n\t\t\"k\": true\n\t}\n}",
		"compact":       `{"a":1,"list":[1,{"x":"y"}],"obj":{"k":true}}`,
		"empty-pretty":  "{\n  \"a\": 1,\n  \"list\": [],\n  \"obj\": {}\n}\n",
		"empty-compact": `{"a":1,"list":[],"obj":{}}`,
		"odd-spacing":   "{ \"a\" : 1 ,\n      \"list\" : [ 1 ] , \"obj\" : { \"k\" : true }   }  \n",
	}
	val := map[string]any{"type": "command", "command": "ben10 hook pre-compact <x> & y", "timeout": 5}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			b := []byte(doc)
			root := mustParse(t, b)
			// member on the root object
			added, err := Set(b, root, "new", val)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(added, &m); err != nil {
				t.Fatalf("not JSON after Set: %v\n%s", err, added)
			}
			if !reflect.DeepEqual(m["new"], map[string]any{"type": "command", "command": "ben10 hook pre-compact <x> & y", "timeout": float64(5)}) {
				t.Fatalf("Set gave %s", added)
			}
			if !strings.HasPrefix(string(added), doc[:strings.LastIndex(doc, "}")-1]) && name != "empty-pretty" && name != "empty-compact" {
				// everything before the insertion point is untouched
				t.Logf("%s", added)
			}
			r2 := mustParse(t, added)
			back, err := Delete(added, r2, r2.Get("new"))
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != doc {
				t.Fatalf("Set then Delete:\n%q\nwant\n%q", back, doc)
			}
			// element on the nested array, member on the nested object
			for _, key := range []string{"list", "obj"} {
				r := mustParse(t, b)
				c := r.Get(key)
				var out []byte
				if c.Kind == Array {
					out, err = Append(b, c, val)
				} else {
					out, err = Set(b, c, "added", val)
				}
				if err != nil {
					t.Fatal(err)
				}
				r3 := mustParse(t, out)
				c3 := r3.Get(key)
				var child *Node
				if c3.Kind == Array {
					child = c3.Elems[len(c3.Elems)-1]
				} else {
					child = c3.Get("added")
				}
				if Str(out, child.Get("command")) != "ben10 hook pre-compact <x> & y" {
					t.Fatalf("%s: added child not found in\n%s", key, out)
				}
				back, err := Delete(out, c3, child)
				if err != nil {
					t.Fatal(err)
				}
				if string(back) != doc {
					t.Fatalf("%s: add then delete:\n%q\nwant\n%q", key, back, doc)
				}
			}
		})
	}
}

func TestAppendIndentsLikeSiblings(t *testing.T) {
	doc := []byte("{\n  \"list\": [\n    1\n  ]\n}\n")
	r := mustParse(t, doc)
	out, err := Append(doc, r.Get("list"), map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"list\": [\n    1,\n    {\n      \"a\": 1\n    }\n  ]\n}\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestReplaceKeepsTheRest(t *testing.T) {
	doc := []byte("{\n  \"b\": 1e3,\n  \"cmd\": \"old\",\n  \"u\": \"\\u00e9\"\n}")
	r := mustParse(t, doc)
	out, err := Replace(doc, r.Get("cmd"), "new")
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "{\n  \"b\": 1e3,\n  \"cmd\": \"new\",\n  \"u\": \"\\u00e9\"\n}" {
		t.Fatalf("%s", out)
	}
	sameJSON(t, out, `{"b":1000,"cmd":"new","u":"é"}`)
}

func TestDeleteMiddleAndFirst(t *testing.T) {
	doc := []byte(`{"l":[1, 2, 3]}`)
	r := mustParse(t, doc)
	l := r.Get("l")
	out, _ := Delete(doc, l, l.Elems[1])
	if string(out) != `{"l":[1, 3]}` {
		t.Fatalf("%s", out)
	}
	out, _ = Delete(doc, l, l.Elems[0])
	if string(out) != `{"l":[2, 3]}` {
		t.Fatalf("%s", out)
	}
	if _, err := Delete(doc, l, r); err == nil {
		t.Fatal("deleting a non-child succeeded")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, doc := range []string{"", "{", `{"a":}`, `{"a":1} x`, strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("Parse(%.20q) succeeded", doc)
		}
	}
}

func FuzzParseEdit(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"c"}]}`, "{\n  \"a\": [\n    1\n  ]\n}\n", `[1,2]`, `"s"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		r, err := Parse(doc)
		if err != nil {
			return
		}
		if r.Kind == Object {
			out, err := Set(doc, r, "ben10", []int{1})
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) {
				t.Fatalf("Set made invalid JSON: %q", out)
			}
			r2, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			if r.Get("ben10") == nil {
				back, err := Delete(out, r2, r2.Get("ben10"))
				if err != nil {
					t.Fatal(err)
				}
				if !json.Valid(back) {
					t.Fatalf("Delete made invalid JSON: %q", back)
				}
			}
		}
		if r.Kind == Array {
			out, err := Append(doc, r, "x")
			if err != nil || !json.Valid(out) {
				t.Fatalf("Append: %v %q", err, out)
			}
		}
	})
}
