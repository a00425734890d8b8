// Package imptest holds test helpers shared by the importers' tests.
package imptest

import (
	"bytes"
	"crypto/sha256"
	"os"
	"testing"

	"github.com/ben10ctx/ben10/archive"
)

// CheckRaw fails unless the State holds raw file name with exactly the
// bytes of path (compared by SHA-256).
func CheckRaw(t testing.TB, s *archive.State, name, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Raw {
		if r.Name == name {
			if sha256.Sum256(r.Data) != sha256.Sum256(want) || !bytes.Equal(r.Data, want) {
				t.Errorf("raw %s: %d bytes differ from %s (%d bytes)", name, len(r.Data), path, len(want))
			}
			return
		}
	}
	names := []string{}
	for _, r := range s.Raw {
		names = append(names, r.Name)
	}
	t.Errorf("raw %s missing; have %v", name, names)
}

// CheckRefs fails when a message or tool points outside the raw files.
func CheckRefs(t testing.TB, s *archive.State) {
	t.Helper()
	ok := func(r archive.RawRef) bool {
		return r.File == -1 && r.Line == -1 || r.File >= 0 && r.File < len(s.Raw) && r.Line >= 0 && r.Line <= bytes.Count(s.Raw[r.File].Data, []byte("\n"))
	}
	for i, m := range s.Messages {
		if !ok(m.Ref) {
			t.Errorf("message %d (%s) ref %+v out of range", i, m.ID, m.Ref)
		}
	}
	for i, x := range s.Tools {
		if !ok(x.Ref) || !ok(x.ResultRef) {
			t.Errorf("tool %d (%s) refs %+v %+v out of range", i, x.ID, x.Ref, x.ResultRef)
		}
	}
}
