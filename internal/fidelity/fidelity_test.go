package fidelity

import (
	"strings"
	"testing"
)

func TestAppears(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"run ls now", "ls", true},
		{"the tools", "ls", false},
		{"edit a.ex.", "a.ex", true},
		{"edit a.exs", "a.ex", false},
		{"path/x/y.go", "x/y.go", false},
		{"see x/y.go, then", "x/y.go", true},
		{"", "x", false},
		{"x", "", false},
	} {
		if got := Appears(tc.text, tc.term); got != tc.want {
			t.Errorf("Appears(%q, %q) = %v", tc.text, tc.term, got)
		}
	}
}

func TestCutAndMeasure(t *testing.T) {
	tr := strings.Join([]string{
		`{"type":"user","cwd":"/p","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/p/a.go"}},{"type":"tool_use","name":"Bash","input":{"command":"go   test ./...\nmore"}},{"type":"tool_use","name":"Glob","input":{"pattern":"**/*.md","path":"/p"}}]}}`,
		`{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/p/side.go"}}]}}`,
		`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":[{"type":"text","text":"We read a.go."}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/p/after.go"}}]}}`,
	}, "\n")
	s, ok := Cut([]byte(tr))
	if !ok || s.Lines != 3 || s.Root != "/p" || s.Summary != "We read a.go." {
		t.Fatalf("Cut: %+v %v", s, ok)
	}
	if strings.Join(s.Paths, ",") != "/p/a.go,**/*.md" || strings.Join(s.Commands, ",") != "go test ./..." {
		t.Fatalf("used: %q %q", s.Paths, s.Commands)
	}
	u := s.Used()
	if sh := u.Measure(s.Summary); sh.PathsOK != 1 || sh.CommandsOK != 0 || sh.Ratio() != 1.0/3 {
		t.Fatalf("summary share %+v", sh)
	}
	if sh := u.Measure(s.Summary + "\nran `go test ./...` over **/*.md"); sh.Ratio() != 1 {
		t.Fatalf("full share %+v", sh)
	}
	if _, ok := Cut([]byte(`{"type":"user"}`)); ok {
		t.Fatal("Cut without a boundary")
	}
	if (Share{}).Ratio() != 1 {
		t.Fatal("empty share")
	}
}

func TestExpand(t *testing.T) {
	d := "# Ben10 context\n" +
		"Path abbreviations: {P1} = /home/u/go/pkg/mod/example.com/m@v1; {P2} = /tmp/build-cache-dir\n" +
		"## Commands (newest first, with outcome)\n" +
		"- `sed -n` ×3 → ok: `'1,40p' {P1}/a.go` · `'2p' b.txt` ×2 · `'9p' {P2}/c.txt`\n" +
		"- `go test ./...` → exit 1: FAIL\n"
	got := Expand(d)
	for _, want := range []string{
		"sed -n '1,40p' /home/u/go/pkg/mod/example.com/m@v1/a.go",
		"sed -n '2p' b.txt",
		"sed -n '9p' /tmp/build-cache-dir/c.txt",
		"go test ./...",
	} {
		if !Appears(NormWS(got), want) {
			t.Errorf("expanded digest lacks %q:\n%s", want, got)
		}
	}
	if plain := "- `ls` → ok"; Expand(plain) != plain {
		t.Errorf("a digest without dense notation changed: %q", Expand(plain))
	}
}
