package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/jscan"
)

// The hook's own JSON (its stdin, its stdout, hook-state.json) is decoded
// and encoded by hand, without encoding/json's reflection: building
// encoding/json's per-type caches was a tenth of a SessionStart(compact)
// hook's CPU. The rules are encoding/json's, for the types involved:
//
//   - the whole document is checked with json.Valid first (encoding/json's
//     own scanner, no reflection), so what it rejects is rejected;
//   - it is then walked with internal/jscan; a document jscan refuses
//     although it is valid (nested deeper than jscan's limit) is decoded
//     with encoding/json instead (errFallback);
//   - object keys are unescaped and matched exactly, then as encoding/json
//     folds them (ASCII letters and Unicode simple folding), unknown keys
//     are ignored, a repeated key is decoded again over the first;
//   - null leaves a string, number, bool or struct as it is and sets a
//     map, slice or pointer to nil; a value of the wrong type is an error;
//   - strings decode with archive.JSONString (encoding/json's rules:
//     invalid UTF-8 and lone surrogates become U+FFFD), integers with
//     strconv.ParseInt (no fraction, no exponent), time.Time with its own
//     UnmarshalJSON.
//
// The differential tests (json_fields_test.go) and the fuzz targets in
// fuzz/ compare every result with encoding/json's.

// errFallback: jscan refused a document json.Valid accepted; the caller
// decodes it with encoding/json.
var errFallback = errors.New("hook: document too deeply nested for the fast decoder")

// jsonTypeError is a value of the wrong JSON type for a field, as
// encoding/json's UnmarshalTypeError.
type jsonTypeError struct {
	field string
	value string // the JSON kind found: "string", "number", …
	want  string // the Go type
}

func (e *jsonTypeError) Error() string {
	return fmt.Sprintf("cannot unmarshal %s into field %s of type %s", e.value, e.field, e.want)
}

// jsonKind names the JSON kind of a value from its first byte.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// docValue returns the single value of a document json.Valid accepted:
// the document without its surrounding JSON whitespace.
func docValue(b []byte) jscan.Val {
	s, e := 0, len(b)
	for s < e && isJSONSpace(b[s]) {
		s++
	}
	for e > s && isJSONSpace(b[e-1]) {
		e--
	}
	return jscan.Val{S: s, E: e}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// fieldSet is the JSON names of a struct's fields, for matching keys as
// encoding/json does. The folded names are computed on the first key that
// does not match exactly (never, for what Claude Code and Ben10 write),
// not at package initialisation, which every ben10 command pays.
type fieldSet struct {
	names  []string
	once   sync.Once
	folded []string
}

func newFieldSet(names ...string) *fieldSet { return &fieldSet{names: names} }

// lookup returns the index of the field key names, or -1. key is the
// unescaped key.
func (fs *fieldSet) lookup(key []byte) int {
	for i, n := range fs.names {
		if string(key) == n {
			return i
		}
	}
	fs.once.Do(func() {
		fs.folded = make([]string, len(fs.names))
		for i, n := range fs.names {
			fs.folded[i] = string(foldName(nil, []byte(n)))
		}
	})
	var arr [64]byte
	f := foldName(arr[:0], key)
	for i, n := range fs.folded {
		if string(f) == n {
			return i
		}
	}
	return -1
}

// foldName is encoding/json's key folding: ASCII letters to upper case,
// other runes to the smallest rune of their simple-folding orbit.
func foldName(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// eachField calls fn with the index in fs of every member of the object v
// whose key is one of fs's fields (keys matched as encoding/json matches
// them); unknown members are skipped. The first error of fn stops the
// decoding. v must be an object of a document json.Valid accepted.
func eachField(b []byte, v jscan.Val, fs *fieldSet, fn func(i int, x jscan.Val) error) error {
	var ferr error
	err := jscan.EachField(b, v, func(key []byte, x jscan.Val) {
		if ferr != nil {
			return
		}
		k, ok := unescapeKey(b, key)
		if !ok {
			ferr = fmt.Errorf("invalid object key %q", key)
			return
		}
		if i := fs.lookup(k); i >= 0 {
			ferr = fn(i, x)
		}
	})
	if err != nil {
		return errFallback
	}
	return ferr
}

// unescapeKey returns the unescaped key, the raw bytes when they need no
// unescaping (the usual case, no copy).
func unescapeKey(b, key []byte) ([]byte, bool) {
	plain := true
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return key, true
	}
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	s, ok := archive.JSONString(q)
	return []byte(s), ok
}

// decString decodes a string field: null keeps *dst.
func decString(b []byte, x jscan.Val, field string, dst *string) error {
	switch c := x.Kind(b); c {
	case '"':
		s, ok := archive.JSONString(x.Raw(b))
		if !ok {
			return fmt.Errorf("invalid string in field %s", field)
		}
		*dst = s
		return nil
	case 'n':
		return nil
	default:
		return &jsonTypeError{field, jsonKind(c), "string"}
	}
}

// decInt decodes an integer field: null keeps *dst.
func decInt(b []byte, x jscan.Val, field string, dst *int64) error {
	switch c := x.Kind(b); c {
	case 'n':
		return nil
	case '"', '{', '[', 't', 'f':
		return &jsonTypeError{field, jsonKind(c), "int"}
	}
	n, err := strconv.ParseInt(string(x.Raw(b)), 10, 64)
	if err != nil {
		return &jsonTypeError{field, "number " + string(x.Raw(b)), "int"}
	}
	*dst = n
	return nil
}

// decIntN is decInt into an int.
func decIntN(b []byte, x jscan.Val, field string, dst *int) error {
	n := int64(*dst)
	if err := decInt(b, x, field, &n); err != nil {
		return err
	}
	if int64(int(n)) != n {
		return &jsonTypeError{field, "number " + string(x.Raw(b)), "int"}
	}
	*dst = int(n)
	return nil
}

// decBool decodes a bool field: null keeps *dst.
func decBool(b []byte, x jscan.Val, field string, dst *bool) error {
	switch c := x.Kind(b); c {
	case 't':
		*dst = true
	case 'f':
		*dst = false
	case 'n':
	default:
		return &jsonTypeError{field, jsonKind(c), "bool"}
	}
	return nil
}

// decTime decodes a time.Time field as encoding/json does: with
// time.Time's UnmarshalJSON on the raw value (null keeps *dst).
func decTime(b []byte, x jscan.Val, field string, dst *time.Time) error {
	if err := dst.UnmarshalJSON(x.Raw(b)); err != nil {
		return fmt.Errorf("field %s: %w", field, err)
	}
	return nil
}

// decRaw decodes a json.RawMessage field: a copy of the value's bytes,
// null included.
func decRaw(b []byte, x jscan.Val, dst *json.RawMessage) {
	*dst = append((*dst)[:0], x.Raw(b)...)
}
