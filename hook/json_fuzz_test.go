package hook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzStateEncode: a state encoding/json decodes from the fuzzed bytes is
// encoded by marshalState exactly as json.MarshalIndent(s, "", " ")
// encodes it, and unmarshalState agrees with encoding/json on the bytes.
func FuzzStateEncode(f *testing.F) {
	for _, c := range stateCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, data, freshState, unmarshalState)
		s := newState("")
		if json.Unmarshal(data, s) != nil {
			return
		}
		got, gerr := marshalState(s)
		want, werr := json.MarshalIndent(s, "", " ")
		if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q: marshalState %q, %v; encoding/json %q, %v", data, got, gerr, want, werr)
		}
	})
}
