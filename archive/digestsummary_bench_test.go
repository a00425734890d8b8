package archive

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// summaryBenchInput is a session of the size the recovery digest usually
// meets — 200 files, 150 commands, a few dozen requests — and a 9 KB
// compaction summary in prose that names a third of its files and
// commands, the way the SessionStart(compact) hook calls Digest.
func summaryBenchInput() (Recall, string) {
	rng := rand.New(rand.NewSource(5))
	dirs := []string{"internal/store", "cmd/ben10", "archive", "transcript/claude", "docs", "scripts", "web/src/components"}
	words := strings.Fields("the user asked to fix and then we ran tests, which failed because a helper was missing; " +
		"after that the build passed and the next step is to update the docs with the new figures. files: see below.")
	s := &State{Meta: Metadata{DirectoryPath: "/home/dev/project", SessionID: "0f1e2d3c-aaaa", Title: "Speed up the hook"}}
	var sum strings.Builder
	for i := 0; i < 200; i++ {
		p := fmt.Sprintf("%s/file_%d.go", dirs[i%len(dirs)], i)
		if i%5 == 0 {
			p = "/home/dev/project/" + p
		}
		s.Files = append(s.Files, FileRecord{Path: p, Edits: i % 3, Reads: 1, LastAccess: at(i)})
		c := fmt.Sprintf("go test -run Test%d ./%s/...", i, dirs[i%len(dirs)])
		if i < 150 {
			s.Tools = append(s.Tools, ToolExec{Name: "Bash", Input: input("command", c), Success: i%4 != 0, Output: "ok", Timestamp: at(i)})
		}
		if i%20 == 0 {
			s.Messages = append(s.Messages, Message{Role: "user", Kind: "prompt", Text: fmt.Sprintf("please look at %s and fix it", p), Timestamp: at(i)})
		}
		if i%3 == 0 {
			fmt.Fprintf(&sum, "- `%s`: changed, and `%s` was run. ", p, c)
		}
		for j := 0; j < 3; j++ {
			sum.WriteString(words[rng.Intn(len(words))])
			sum.WriteByte(' ')
		}
	}
	summary := sum.String()
	if len(summary) > 9000 {
		summary = summary[:9000]
	}
	return BuildRecall(s), summary
}

func BenchmarkDigestSummary(b *testing.B) {
	r, summary := summaryBenchInput()
	opts := DigestOptions{Budget: RecoveryDigestBudget, Summary: summary}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = Digest(r, opts)
	}
}
