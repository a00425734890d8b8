// Package jsonedit edits a JSON document in place, byte for byte: a value
// is replaced, an object member or array element added or removed, and
// every other byte of the document — its indentation, key order, number
// spelling, escapes, trailing newline — stays as it was.
//
// It serves settings files that other programs and people also edit
// (Claude Code's settings.json, ~/.claude.json): adding Ben10's entries
// must not reformat the user's file, and removing them again must give
// back the file as it was. Added values are indented like their siblings
// (or one level deeper than their container when it was empty), so an
// element added and then removed leaves no trace.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// MaxDepth bounds nesting, so a hostile document cannot exhaust the stack.
const MaxDepth = 256

// ErrSyntax: the document is not valid JSON.
var ErrSyntax = errors.New("jsonedit: not valid JSON")

// Kind is a JSON value's type.
type Kind byte

// The kinds of JSON values.
const (
	Object Kind = iota + 1
	Array
	String
	Number
	Bool
	Null
)

// Node is one value of a parsed document: its kind and its byte span
// [Start, End) in the document. An object's members and an array's
// elements are in document order.
type Node struct {
	Kind       Kind
	Start, End int
	Members    []Member // Object
	Elems      []*Node  // Array
}

// Member is one name/value pair of an object; KeyStart is the offset of
// the name's opening quote.
type Member struct {
	Name     string
	KeyStart int
	Value    *Node
}

// Get returns the value of the object member named name (the last one if
// the name repeats), or nil.
func (n *Node) Get(name string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Name == name {
			return n.Members[i].Value
		}
	}
	return nil
}

// Parse parses doc, which must be one JSON value with only whitespace
// around it.
func Parse(doc []byte) (*Node, error) {
	if !json.Valid(doc) {
		return nil, ErrSyntax
	}
	p := parser{b: doc}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(doc) {
		return nil, fmt.Errorf("%w: data after the value at offset %d", ErrSyntax, p.i)
	}
	return n, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses the value at p.i; the document is known to be valid JSON,
// so only its structure is recorded.
func (p *parser) value(depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrSyntax, MaxDepth)
	}
	n := &Node{Start: p.i}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		end := byte('}')
		n.Kind = Object
		if c == '[' {
			n.Kind, end = Array, ']'
		}
		p.i++
		for {
			p.ws()
			if p.b[p.i] == end {
				p.i++
				break
			}
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
			var name string
			ks := p.i
			if n.Kind == Object {
				p.str()
				if err := json.Unmarshal(p.b[ks:p.i], &name); err != nil {
					return nil, fmt.Errorf("%w: member name at offset %d: %w", ErrSyntax, ks, err)
				}
				p.ws()
				p.i++ // ':'
				p.ws()
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if n.Kind == Object {
				n.Members = append(n.Members, Member{Name: name, KeyStart: ks, Value: v})
			} else {
				n.Elems = append(n.Elems, v)
			}
		}
	case c == '"':
		n.Kind = String
		p.str()
	case c == 't' || c == 'f':
		n.Kind = Bool
		p.i += map[byte]int{'t': 4, 'f': 5}[c]
	case c == 'n':
		n.Kind = Null
		p.i += 4
	default:
		n.Kind = Number
		for p.i < len(p.b) && bytes.IndexByte([]byte("+-0123456789.eE"), p.b[p.i]) >= 0 {
			p.i++
		}
	}
	n.End = p.i
	return n, nil
}

// str skips the string starting at p.i.
func (p *parser) str() {
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
}

// Str decodes a String node of doc ("" for any other kind).
func Str(doc []byte, n *Node) string {
	if n == nil || n.Kind != String {
		return ""
	}
	var s string
	_ = json.Unmarshal(doc[n.Start:n.End], &s)
	return s
}

// Replace returns doc with n's value replaced by v, encoded compactly when
// it is a scalar and indented like n's line otherwise.
func Replace(doc []byte, n *Node, v any) ([]byte, error) {
	raw, err := encodeAt(v, lineIndent(doc, n.Start), indentUnit(doc))
	if err != nil {
		return nil, err
	}
	return splice(doc, n.Start, n.End, raw), nil
}

// Append returns doc with v added as the last element of array arr.
func Append(doc []byte, arr *Node, v any) ([]byte, error) {
	if arr.Kind != Array {
		return nil, fmt.Errorf("jsonedit: append to a non-array at offset %d", arr.Start)
	}
	return addChild(doc, arr, nil, v)
}

// Set returns doc with obj's member name set to v: replaced in place when
// it exists, else added as the last member.
func Set(doc []byte, obj *Node, name string, v any) ([]byte, error) {
	if obj.Kind != Object {
		return nil, fmt.Errorf("jsonedit: set %q on a non-object at offset %d", name, obj.Start)
	}
	if cur := obj.Get(name); cur != nil {
		return Replace(doc, cur, v)
	}
	key, _ := json.Marshal(name)
	return addChild(doc, obj, key, v)
}

// children are the first bytes (a member's name) and the values of
// container c's children, in document order.
func children(c *Node) (starts []int, vals []*Node) {
	for _, m := range c.Members {
		starts, vals = append(starts, m.KeyStart), append(vals, m.Value)
	}
	for _, e := range c.Elems {
		starts, vals = append(starts, e.Start), append(vals, e)
	}
	return starts, vals
}

// addChild inserts v (with its member name key, for an object) after the
// last child of container c, or into c when it is empty.
func addChild(doc []byte, c *Node, key []byte, v any) ([]byte, error) {
	unit := indentUnit(doc)
	var ind string
	multiline := false
	starts, vals := children(c)
	var prev *Node
	if len(vals) > 0 {
		prev = vals[len(vals)-1]
		multiline = bytes.IndexByte(doc[c.Start:starts[0]], '\n') >= 0
		ind = lineIndent(doc, starts[0])
	} else {
		multiline = unit != ""
		ind = lineIndent(doc, c.Start) + unit
	}
	raw, err := encodeAt(v, ind, unit)
	if err != nil {
		return nil, err
	}
	item := raw
	if key != nil {
		sep := ": "
		if !multiline && prev != nil && !bytes.Contains(doc[c.Start:c.End], []byte(": ")) {
			sep = ":"
		}
		item = append(append(append([]byte{}, key...), sep...), raw...)
	}
	var ins []byte
	at := 0
	switch {
	case prev != nil && multiline:
		at = prev.End
		ins = append([]byte(",\n"+ind), item...)
	case prev != nil:
		at = prev.End
		ins = append([]byte(", "), item...)
	case multiline:
		// An empty container: the item on its own line, the closing
		// bracket on the container's line indentation.
		at = c.Start + 1
		ins = append(append([]byte("\n"+ind), item...), "\n"+lineIndent(doc, c.Start)...)
		return splice(doc, at, c.End-1, ins), nil
	default:
		at = c.Start + 1
		ins = item
		return splice(doc, at, c.End-1, ins), nil
	}
	return splice(doc, at, at, ins), nil
}

// Delete returns doc without the array element or object member whose
// value is n, a child of container c, along with the separator and
// whitespace that Append or Set would have added with it. A container
// left empty keeps no whitespace inside ("[]", "{}").
func Delete(doc []byte, c, n *Node) ([]byte, error) {
	starts, vals := children(c)
	idx := slices.Index(vals, n)
	if idx < 0 {
		return nil, fmt.Errorf("jsonedit: the value at offset %d is not a child of the container at offset %d", n.Start, c.Start)
	}
	switch {
	case len(starts) == 1:
		return splice(doc, c.Start+1, c.End-1, nil), nil
	case idx > 0:
		// From the end of the previous child: its comma, the whitespace,
		// this child.
		return splice(doc, vals[idx-1].End, vals[idx].End, nil), nil
	default:
		// The first child: it, its comma and the whitespace up to the next.
		return splice(doc, starts[0], starts[1], nil), nil
	}
}

func splice(doc []byte, from, to int, ins []byte) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(ins))
	out = append(out, doc[:from]...)
	out = append(out, ins...)
	return append(out, doc[to:]...)
}

// lineIndent is the whitespace that starts the line holding offset at.
func lineIndent(doc []byte, at int) string {
	ls := bytes.LastIndexByte(doc[:at], '\n') + 1
	e := ls
	for e < at && (doc[e] == ' ' || doc[e] == '\t') {
		e++
	}
	return string(doc[ls:e])
}

// indentUnit is the document's indentation step: the indentation of its
// first indented line, "" when the document is on one line.
func indentUnit(doc []byte) string {
	for i := bytes.IndexByte(doc, '\n'); i >= 0 && i+1 < len(doc); {
		rest := doc[i+1:]
		e := 0
		for e < len(rest) && (rest[e] == ' ' || rest[e] == '\t') {
			e++
		}
		if e > 0 && e < len(rest) && rest[e] != '\n' {
			return string(rest[:e])
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	if bytes.IndexByte(bytes.TrimSpace(doc), '\n') >= 0 {
		return "  "
	}
	return ""
}

// encodeAt encodes v as it appears at indentation ind: indented by unit
// (compact when unit is ""), without HTML escaping.
func encodeAt(v any, ind, unit string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(ind, unit)
	}
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("jsonedit: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
