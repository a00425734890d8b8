// Package jscan is a minimal JSON walker over raw bytes that reports byte
// offsets, so that model records can point into raw transcript lines instead
// of copying their text. It never allocates for skipped values and never
// panics on malformed input: every function bounds-checks and returns
// ErrBadJSON.
package jscan

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

var ErrBadJSON = errors.New("malformed JSON")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

func ws(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string literal starting at
// b[i] == '"'. It jumps from quote to quote (bytes.IndexByte is vectorised)
// and decides whether a quote is escaped by the parity of the backslashes
// right before it; each byte is looked at a bounded number of times.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, ErrBadJSON
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
	return 0, ErrBadJSON
}

// skipValue returns the index just past the value starting at b[i]
// (after whitespace).
func skipValue(b []byte, i int, depth int) (int, error) {
	if depth > maxDepth {
		return 0, ErrBadJSON
	}
	i = ws(b, i)
	if i >= len(b) {
		return 0, ErrBadJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return members(b, i, len(b), depth, nil)
	}
	j := i
	for j < len(b) && strings.IndexByte(",}] \t\n\r", b[j]) < 0 {
		j++
	}
	if j == i {
		return 0, ErrBadJSON
	}
	return j, nil
}

// members walks the object or array starting at b[s] (a '{' or '['),
// within b[:end], its values at nesting depth+1, calling fn (when not
// nil) for each member: its key (nil for an array's element) and value.
// It returns the index just past the object or array.
func members(b []byte, s, end, depth int, fn func(key []byte, x Val)) (int, error) {
	obj := b[s] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	i := ws(b, s+1)
	if i < end && b[i] == closer {
		return i + 1, nil
	}
	for i < end {
		var key []byte
		if obj {
			i = ws(b, i)
			if i >= end || b[i] != '"' {
				return 0, ErrBadJSON
			}
			ke, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			key = b[i+1 : ke-1]
			i = ws(b, ke)
			if i >= end || b[i] != ':' {
				return 0, ErrBadJSON
			}
			i++
		}
		vs := ws(b, i)
		ve, err := skipValue(b, vs, depth+1)
		if err != nil {
			return 0, err
		}
		if fn != nil {
			fn(key, Val{S: vs, E: ve})
		}
		i = ws(b, ve)
		if i >= end {
			return 0, ErrBadJSON
		}
		if b[i] == closer {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, ErrBadJSON
		}
		i++
	}
	return 0, ErrBadJSON
}

// Val is a JSON value inside a line: b[s:e].
type Val struct{ S, E int }

// OK reports whether v was found.
func (v Val) OK() bool { return v.E > v.S }

// Kind is the first byte of the value: '{', '[', '"', 't', 'f', 'n' or a
// digit / '-'.
func (v Val) Kind(b []byte) byte {
	if !v.OK() {
		return 0
	}
	return b[v.S]
}

// EachField calls fn for every member of the object v. Keys are compared
// raw (without unescaping): Claude Code's keys never need escapes.
func EachField(b []byte, v Val, fn func(key []byte, x Val)) error {
	if v.Kind(b) != '{' {
		return ErrBadJSON
	}
	_, err := members(b, v.S, v.E, 0, fn)
	return err
}

// EachElem calls fn for every element of the array v.
func EachElem(b []byte, v Val, fn func(x Val)) error {
	if v.Kind(b) != '[' {
		return ErrBadJSON
	}
	_, err := members(b, v.S, v.E, 0, func(_ []byte, x Val) { fn(x) })
	return err
}

// Field returns the member named key of object v (zero Val when absent).
func Field(b []byte, v Val, key string) Val {
	var out Val
	_ = EachField(b, v, func(k []byte, x Val) {
		if !out.OK() && string(k) == key {
			out = x
		}
	})
	return out
}

// ParseLineFields is ParseLine that also calls fn for every member of the
// object, in the same single pass over b (ParseLine then EachField read
// every byte twice). fn may have been called for the first members when
// an error is found further on: a caller discards what it collected when
// ParseLineFields fails.
func ParseLineFields(b []byte, fn func(key []byte, x Val)) (Val, error) {
	s := ws(b, 0)
	if s >= len(b) || b[s] != '{' {
		return Val{}, ErrBadJSON
	}
	e, err := members(b, s, len(b), 0, fn)
	if err != nil {
		return Val{}, err
	}
	if ws(b, e) != len(b) {
		return Val{}, ErrBadJSON
	}
	return Val{S: s, E: e}, nil
}

// ParseLine checks that b holds exactly one JSON object and returns it.
func ParseLine(b []byte) (Val, error) { return ParseLineFields(b, nil) }

// IsString reports whether v is a string literal.
func (v Val) IsString(b []byte) bool { return v.Kind(b) == '"' }

// Raw returns the value's bytes.
func (v Val) Raw(b []byte) []byte {
	if !v.OK() {
		return nil
	}
	return b[v.S:v.E]
}

// Bool reports whether v is the literal true.
func (v Val) Bool(b []byte) bool { return string(v.Raw(b)) == "true" }

// Int64 parses a number value; non-numbers give 0.
func (v Val) Int64(b []byte) int64 {
	r := v.Raw(b)
	if len(r) == 0 || !(r[0] == '-' || (r[0] >= '0' && r[0] <= '9')) {
		return 0
	}
	if n, err := strconv.ParseInt(string(r), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(r), 64); err == nil {
		return int64(f)
	}
	return 0
}
