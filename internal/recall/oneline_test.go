package recall

import (
	"strings"
	"testing"
)

// TestOneLine: breaks (ASCII controls and space, Unicode spaces,
// controls and line separators) fold into one space, none at the ends;
// invalid UTF-8 becomes U+FFFD; other runes stay.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a b", "a b"},
		{"  a \t\n b  ", "a b"},
		{"a\r\nb\vc\fd\x00e\x1ff\x7fg", "a b c d e f g"},
		{"a\u0085b\u00a0c\u3000d", "a b c d"},
		{"a\u2028b\u2029c", "a b c"},
		{"a\u200bb", "a\u200bb"},
		{"é 中 😀 `-/`", "é 中 😀 `-/`"},
		{"a\xffb\xe2\x80", "a\ufffdb\ufffd"},
		{"\n\n", ""},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
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
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		OneLine(s)
	}
}
