package imp

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Line
	}{
		{"", nil},
		{"a", []Line{{N: 0, Data: []byte("a")}}},
		{"a\n", []Line{{N: 0, Data: []byte("a"), Terminated: true}}},
		{"a\r\nb\r\n\nc", []Line{{0, []byte("a"), true}, {1, []byte("b"), true}, {2, []byte{}, true}, {3, []byte("c"), false}}},
	} {
		b := NewBuilder(context.Background(), archive.HarnessCodex)
		b.AddRaw("x", []byte(tc.in))
		got := slices.Collect(b.Lines(0))
		if len(got) != len(tc.want) {
			t.Fatalf("%q: %d lines", tc.in, len(got))
		}
		for i := range got {
			if got[i].N != tc.want[i].N || string(got[i].Data) != string(tc.want[i].Data) || got[i].Terminated != tc.want[i].Terminated {
				t.Errorf("%q line %d: %+v", tc.in, i, got[i])
			}
		}
	}
}

func TestShellCommand(t *testing.T) {
	for in, want := range map[string]string{
		`"ls -la"`:                       "ls -la",
		`["bash","-lc","go test ./..."]`: "go test ./...",
		`["git","commit","-m","a b"]`:    "git commit -m 'a b'",
		`["echo","it's"]`:                `echo 'it'\''s'`,
		`{"x":1}`:                        "",
		`[]`:                             "",
	} {
		if got := ShellCommand(json.RawMessage(in)); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	paths, ops := PatchFiles("*** Begin Patch\r\n*** Add File: a.go\n+x\n*** Update File: b.go\n*** Move to: c.go\n*** Delete File: d.go\n*** Add File: \n*** End Patch")
	if !reflect.DeepEqual(paths, []string{"a.go", "b.go", "c.go", "d.go"}) || !reflect.DeepEqual(ops, []FileOp{OpWrite, OpEdit, OpWrite, OpEdit}) {
		t.Errorf("%v %v", paths, ops)
	}
}

func TestSetTodos(t *testing.T) {
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(context.Background(), archive.HarnessCodex)
	b.SetTodos([]Todo{
		{Title: "a", Status: "Done"}, {Content: "b", Status: "In Progress"}, {Description: "c", Status: "pending"},
		{Step: "d", Status: "cancelled"}, {Title: "e", Content: "not this", Status: "TODO"},
	}, ts)
	want := archive.TaskState{
		Completed: []archive.Task{{Content: "a", Status: "completed"}},
		Active:    []archive.Task{{Content: "b", Status: "in_progress"}},
		Pending:   []archive.Task{{Content: "c", Status: "pending"}, {Content: "e", Status: "pending"}},
		UpdatedAt: ts,
	}
	if !reflect.DeepEqual(b.S.Tasks, want) {
		t.Errorf("tasks %+v, want %+v", b.S.Tasks, want)
	}
	b.SetTodos(nil, ts.Add(time.Hour)) // no list: the state stays
	if !reflect.DeepEqual(b.S.Tasks, want) {
		t.Errorf("after a nil list: %+v", b.S.Tasks)
	}
}

func TestRelAndTouch(t *testing.T) {
	b := NewBuilder(context.Background(), archive.HarnessCodex)
	b.Root, b.Cwd = "/p", "/p/sub"
	for in, want := range map[string]string{"/p/a.go": "a.go", "x.go": "sub/x.go", "../y.go": "y.go", "/q/z.go": "/q/z.go", "/p": ".", "": ""} {
		if got := b.Rel(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Touch("/p/a.go", OpRead, ts)
	b.Touch("a.go", OpEdit, ts.Add(time.Hour)) // relative to Cwd: sub/a.go
	b.Touch("/p/a.go", OpWrite, ts.Add(-time.Hour))
	s, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 2 || s.Files[0] != (archive.FileRecord{Path: "a.go", AccessCount: 2, Reads: 1, Writes: 1, LastAccess: ts}) {
		t.Errorf("files %+v", s.Files)
	}
}

func TestJSONText(t *testing.T) {
	for in, want := range map[string]string{`{"a":1}`: `{"a":1}`, `not json`: `"not json"`, ``: `null`, ` [1] `: `[1]`} {
		if got := JSONText([]byte(in)); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

func TestProblemsBounded(t *testing.T) {
	b := NewBuilder(context.Background(), archive.HarnessKimi)
	f := b.AddRaw("x", nil)
	for i := 0; i < 100; i++ {
		b.Problem(f, i, "p%d", i)
	}
	if len(b.S.Import.Problems) != MaxProblems || b.S.Import.Problems[0] != "x:1: p0" {
		t.Errorf("%d problems: %q", len(b.S.Import.Problems), b.S.Import.Problems[0])
	}
}

func TestEpochTime(t *testing.T) {
	if !EpochTime(1761000000.5).Equal(time.Unix(1761000000, 5e8)) || !EpochTime(-1).IsZero() || !EpochTime(1e300).IsZero() {
		t.Error("epoch conversion")
	}
}
