package recall

import (
	"math/rand"
	"strings"
	"testing"
)

// oneLineRef is OneLine's definition: runs of breaks (isBreak) become one
// space, none at the ends, invalid UTF-8 becomes U+FFFD.
func oneLineRef(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if isBreak(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// OneLine equals its definition on random mixes of ASCII, controls,
// Unicode spaces and line separators, multi-byte runes and invalid bytes.
func TestOneLineMatchesDefinition(t *testing.T) {
	pieces := []string{"a", "Z", "0", " ", "  ", "\t", "\n", "\r\n", "\v", "\f", "\x00", "\x1f", "\x7f", "\u0085", "\u00a0",
		"\u2028", "\u2029", "\u3000", "\u200b", "é", "中", "😀", "\xff", "\xe2\x80", "\xc0\xaf", "`", "-", "/"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(12); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := OneLine(s), oneLineRef(s); got != want {
			t.Fatalf("OneLine(%q) = %q, want %q", s, got, want)
		}
	}
	for c := 0; c < 0x80; c++ {
		if got := isBreak(rune(c)); got != (c <= ' ' || c == 0x7f) {
			t.Fatalf("isBreak(%#x) = %v: OneLine's ASCII rule is wrong", c, got)
		}
	}
}

// A compaction summary's size and shape: lines of prose, paths and code.
func BenchmarkOneLine(b *testing.B) {
	s := strings.Repeat("This session is being continued from a previous conversation.\n  - Edited `store/atomic.go`: fsync before rename — café\n", 100)
	for _, f := range []struct {
		name string
		fn   func(string) string
	}{{"OneLine", OneLine}, {"definition", oneLineRef}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				f.fn(s)
			}
		})
	}
}
