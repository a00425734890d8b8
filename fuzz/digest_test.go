package fuzz

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
	"github.com/vmihailenco/msgpack/v5"
)

// FuzzDigest feeds hostile strings into every part of a State that
// BuildRecall reads, and checks that Digest stays within its budget, emits
// valid UTF-8, is deterministic, and survives a msgpack round trip of the
// Recall unchanged.
func FuzzDigest(f *testing.F) {
	f.Add("Fix the build", "make 2>&1", "Exit code 2\nerror: x", "/p/main.go", `{"file_path":"/p/a.go"}`, "lib/a.go", 2000, false)
	f.Add("<command-name>/review</command-name>", "git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"", "", "/p", `{"pattern":"**/*.go"}`, "", 9500, true)
	f.Add("\xff\xfe", "\x00\n\n", "<tool_use_error>bad</tool_use_error>", "😀/\u2028", `{not json`, "😀", 1, false)
	f.Add(strings.Repeat("é", 3000), strings.Repeat("a ", 2000), strings.Repeat("\n", 500), "", `{"notebook_path":1}`, strings.Repeat("`", 100), 20000, true)
	f.Fuzz(func(t *testing.T, prompt, command, output, path, toolInput, summary string, budget int, ok bool) {
		s := &archive.State{
			Meta: archive.Metadata{SessionID: prompt, DirectoryPath: path, GitBranch: command, Title: output},
			Messages: []archive.Message{
				{Role: "user", Kind: "prompt", Text: prompt},
				{Role: "user", Kind: "command", Text: output},
			},
			Tools: []archive.ToolExec{
				{Name: "Bash", Command: command, Output: output, Success: ok},
				{Name: "Bash", Input: toolInput, Output: output, Success: !ok},
				{Name: "Edit", Input: toolInput, Output: output, Success: ok, RelatedFiles: []string{path}},
				{Name: "Glob", Input: toolInput, Success: true},
				{Name: "ExitPlanMode", Input: toolInput, Success: ok},
			},
			Files:       []archive.FileRecord{{Path: path, Edits: 1}},
			Tasks:       archive.TaskState{Active: []archive.Task{{Content: prompt, Status: "in_progress"}}},
			Preferences: []archive.Preference{{Kind: command, Text: summary}},
			Compactions: []archive.Compaction{{Trigger: output, PreTokens: int64(budget)}},
		}
		if b, err := json.Marshal(map[string]string{"command": command, "file_path": path, "plan": prompt}); err == nil {
			s.Tools = append(s.Tools, archive.ToolExec{Name: "Bash", Input: string(b)}, archive.ToolExec{Name: "ExitPlanMode", Input: string(b), Success: true})
		}
		r := archive.BuildRecall(s)
		opts := archive.DigestOptions{Budget: budget, Summary: summary, Now: time.Unix(1e9, 0)}
		d := archive.Digest(r, opts)
		limit := budget
		if limit <= 0 {
			limit = archive.DefaultDigestBudget
		}
		if limit > archive.MaxDigestBudget {
			limit = archive.MaxDigestBudget
		}
		if n := archive.DigestLen(d); n > limit {
			t.Fatalf("digest %d characters over budget %d", n, limit)
		}
		if !utf8.ValidString(d) {
			t.Fatal("digest is not valid UTF-8")
		}
		if archive.Digest(r, opts) != d {
			t.Fatal("digest not deterministic")
		}
		b, err := msgpack.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := archive.DecodeRecall(b)
		if err != nil {
			t.Fatal(err)
		}
		if archive.Digest(back, opts) != d {
			t.Fatal("digest changed after the recall's msgpack round trip")
		}
	})
}

// FuzzRecallDecode: a stored Recall is read back from an archive; hostile
// bytes must give an error or a Recall whose digest is within budget.
func FuzzRecallDecode(f *testing.F) {
	r := archive.Recall{Version: archive.RecallVersion, Requests: []archive.RecallRequest{{Text: "x"}},
		Commands: []archive.RecallCommand{{Command: "make", Runs: 1, OK: true}}}
	b, _ := msgpack.Marshal(&r) // the compact form archives store
	f.Add(b)
	// The map form of older archives.
	old, _ := msgpack.Marshal(map[string]any{"v": 1, "requests": []map[string]any{{"text": "x"}},
		"commands": []map[string]any{{"cmd": "make", "runs": 1, "ok": true}}})
	f.Add(old)
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := archive.DecodeRecall(data)
		if err != nil {
			if !errors.Is(err, archive.ErrCorrupt) && !errors.Is(err, archive.ErrSchema) {
				t.Fatalf("error %v is neither ErrCorrupt nor ErrSchema", err)
			}
			return
		}
		for _, budget := range []int{0, 300, archive.RecoveryDigestBudget} {
			d := archive.Digest(r, archive.DigestOptions{Budget: budget, Summary: "make"})
			limit := budget
			if limit == 0 {
				limit = archive.DefaultDigestBudget
			}
			if archive.DigestLen(d) > limit || !utf8.ValidString(d) {
				t.Fatalf("budget %d: %d characters, valid UTF-8 %v", budget, archive.DigestLen(d), utf8.ValidString(d))
			}
		}
	})
}
