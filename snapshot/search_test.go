package snapshot

import "testing"

// TestMatcher: a literal query matches case-insensitively (Unicode
// included) and literally (no pattern syntax), a regex query is a Go
// regular expression, and the offsets are byte offsets into the text.
func TestMatcher(t *testing.T) {
	tests := []struct {
		query  string
		regex  bool
		text   string
		lo, hi int
		ok     bool
	}{
		{"token", false, "the API TOKEN leaked", 8, 13, true},
		{"ÜBER", false, "schön über alles", 7, 12, true},
		{"a.b", false, "axb a.b", 4, 7, true},
		{"a.b", true, "axb a.b", 0, 3, true},
		{`\d{3}`, true, "id 12 and 456", 10, 13, true},
		{"absent", false, "nothing here", 0, 0, false},
	}
	for _, tt := range tests {
		match, err := matcher(tt.query, tt.regex)
		if err != nil {
			t.Fatalf("%q: %v", tt.query, err)
		}
		lo, hi, ok := match(tt.text)
		if lo != tt.lo || hi != tt.hi || ok != tt.ok {
			t.Errorf("%q (regex %v) in %q = %d, %d, %v; want %d, %d, %v", tt.query, tt.regex, tt.text, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
	for _, q := range []struct {
		query string
		regex bool
	}{{"", false}, {"(", true}} {
		if _, err := matcher(q.query, q.regex); err == nil {
			t.Errorf("matcher(%q, %v) accepted it", q.query, q.regex)
		}
	}
}
