package archive

import (
	"maps"
	"slices"

	"github.com/vmihailenco/msgpack/v5"
)

// sortedCounts is a map[string]int that msgpack encodes with its keys
// sorted. msgpack v5's SetSortMapKeys sorts only map[string]string,
// map[string]bool and map[string]any: any other map comes out in Go's
// random map order, and an archive's bytes must not depend on it.
type sortedCounts map[string]int

// EncodeMsgpack writes c as a map with its keys in byte order (nil as
// nil).
func (c sortedCounts) EncodeMsgpack(e *msgpack.Encoder) error {
	if c == nil {
		return e.EncodeNil()
	}
	if err := e.EncodeMapLen(len(c)); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(c)) {
		if err := e.EncodeString(k); err != nil {
			return err
		}
		if err := e.EncodeInt(int64(c[k])); err != nil {
			return err
		}
	}
	return nil
}

// EncodeMsgpack encodes r as msgpack encodes the struct, with the keys of
// UnknownTypes sorted (see sortedCounts), so that equal reports give equal
// bytes.
func (r ImportReport) EncodeMsgpack(e *msgpack.Encoder) error {
	type wire struct {
		Lines        int          `msgpack:"lines"`
		Skipped      int          `msgpack:"skipped"`
		Partial      int          `msgpack:"partial"`
		Truncated    bool         `msgpack:"truncated"`
		InvalidUTF8  int          `msgpack:"invalid_utf8"`
		UnknownTypes sortedCounts `msgpack:"unknown_types"`
		Problems     []string     `msgpack:"problems"`
		Blank        int          `msgpack:"blank"`
		Files        int          `msgpack:"files"`
	}
	return e.Encode(wire{r.Lines, r.Skipped, r.Partial, r.Truncated, r.InvalidUTF8, sortedCounts(r.UnknownTypes), r.Problems, r.Blank, r.Files})
}

// EncodeMsgpack encodes r as msgpack encodes the struct, with the keys of
// Rules sorted (see sortedCounts), so that equal reports give equal bytes.
func (r RedactionReport) EncodeMsgpack(e *msgpack.Encoder) error {
	type wire struct {
		Enabled         bool         `msgpack:"enabled"`
		LinesChanged    int          `msgpack:"lines_changed"`
		TextsChanged    int          `msgpack:"texts_changed"`
		ContentsChanged int          `msgpack:"contents_changed,omitempty"`
		Rules           sortedCounts `msgpack:"rules,omitempty"`
	}
	return e.Encode(wire{r.Enabled, r.LinesChanged, r.TextsChanged, r.ContentsChanged, sortedCounts(r.Rules)})
}
