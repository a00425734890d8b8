package alone_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
)

// A program importing only package archive writes an archive of a State
// it built itself (the conversation's texts stored as pointers into the
// raw transcript, redaction on, LevelMax) and reads every segment back:
// no importer is needed for anything archive writes.
func Example() {
	line := `{"type":"user","message":{"content":"fix the build"}}`
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := &archive.State{
		Meta: archive.Metadata{Harness: "claude", SessionID: "s1", DirectoryPath: "/src/app", FirstActivity: at, LastActivity: at},
		Messages: []archive.Message{{
			ID: "m1", Role: "user", Kind: "prompt", Text: "fix the build", Timestamp: at,
			Ref: archive.RawRef{File: 0, Line: 0}, TextSpans: []archive.Span{{Off: uint32(strings.Index(line, "fix")), Len: 13}},
		}},
		Tools:        []archive.ToolExec{{ID: "t1", Name: "Bash", Input: `{"command":"make"}`, Output: "ok", Success: true, Command: "make", Timestamp: at}},
		Files:        []archive.FileRecord{{Path: "main.go", Reads: 1, AccessCount: 1, LastAccess: at}},
		Tasks:        archive.TaskState{Active: []archive.Task{{Content: "fix the build", Status: "in_progress"}}},
		Compactions:  []archive.Compaction{{UUID: "c1", Trigger: "auto", PreTokens: 1000, Timestamp: at, Summary: "earlier work"}},
		Preferences:  []archive.Preference{{Kind: "preference", Text: "use make", Timestamp: at, MessageID: "m1"}},
		Raw:          []archive.RawFile{{Name: "s1.jsonl", Data: []byte(line + "\n")}},
		FileContents: []archive.FileContent{{Path: "main.go", Data: []byte("package main\n")}},
	}
	var buf bytes.Buffer
	opts := archive.EncodeOptions{
		Codec: ctxfmt.CodecZstd, Level: ctxfmt.LevelMax,
		RedactLine: func(l []byte) []byte { return l }, RedactText: func(s string) string { return s }, RedactFingerprint: "none",
	}
	if err := archive.Encode(context.Background(), &buf, st, opts); err != nil {
		panic(err)
	}
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.OpenOptions{})
	if err != nil {
		panic(err)
	}
	msgs, err := a.Messages()
	must(err)
	tools, err := a.Tools()
	must(err)
	files, err := a.Files()
	must(err)
	tasks, err := a.Tasks()
	must(err)
	comps, err := a.Compactions()
	must(err)
	prefs, err := a.Preferences()
	must(err)
	r, ok, err := a.Recall()
	must(err)
	raw, err := a.RawFiles()
	must(err)
	contents, err := a.FileContents()
	must(err)
	st2, err := a.Load()
	must(err)
	fmt.Println("session:", a.Meta().SessionID, "redacted:", a.Redaction().Enabled)
	fmt.Println("message:", msgs[0].Text)
	fmt.Println("tool:", tools[0].Command, tools[0].Output)
	fmt.Println("file:", files[0].Path, "task:", tasks.Active[0].Content)
	fmt.Println("compaction:", comps[0].Summary, "preference:", prefs[0].Text)
	fmt.Println("recall:", ok, r.Session.SessionID, len(r.Commands), "command")
	fmt.Println("raw:", raw[0].Name, len(raw[0].Data), "bytes; content:", contents[0].Path)
	fmt.Println("load:", len(st2.Messages), len(st2.Tools))
	// Output:
	// session: s1 redacted: true
	// message: fix the build
	// tool: make ok
	// file: main.go task: fix the build
	// compaction: earlier work preference: use make
	// recall: true s1 1 command
	// raw: s1.jsonl 54 bytes; content: main.go
	// load: 1 1
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
