package main

import "testing"

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, a, b, want string }{
		{"equal", "x\n", "x\n", ""},
		{"insert", "a\nb\nc\n", "a\nb\nX\nc\n", "--- f\n+++ f (after)\n@@ -1,3 +1,4 @@\n a\n b\n+X\n c\n"},
		{"replace", "a\nb\n", "a\nc\n", "--- f\n+++ f (after)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			"--- f\n+++ f (after)\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -10,3 +11,4 @@\n 10\n 11\n 12\n+13\n"},
		{"from nothing", "", "{}\n", "--- f\n+++ f (after)\n@@ -0,0 +1 @@\n+{}\n"},
	} {
		if got := unifiedDiff("f", []byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
