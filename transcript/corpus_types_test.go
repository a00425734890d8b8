package transcript_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/internal/testcorpus"
	"github.com/ben10ctx/ben10/transcript"
)

// TestCorpusKnownLineTypes imports every session file of the shared corpus
// (each Claude Code subagent file by itself too) and lists, per file, the
// line and record types the importer did not know; there must be none.
func TestCorpusKnownLineTypes(t *testing.T) {
	dir := testcorpus.Dir(t, "")
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var rows []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		st, err := transcript.Import(context.Background(), f, "", archive.ImportOptions{NoSubagents: true})
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		var unknown []string
		for k, n := range st.Import.UnknownTypes {
			unknown = append(unknown, fmt.Sprintf("%s ×%d", k, n))
		}
		sort.Strings(unknown)
		cmds := 0
		for _, x := range st.Tools {
			if x.Command != "" {
				cmds++
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %s %s | %d | %d | %d | %s |", rel, st.Meta.Harness, st.Meta.ClientVersion,
			len(st.Messages), len(st.Tools), cmds, strings.Join(unknown, ", ")))
		if len(unknown) > 0 {
			t.Errorf("%s: unknown types %s", rel, strings.Join(unknown, ", "))
		}
	}
	if len(rows) == 0 {
		t.Skip("the corpus holds no session file")
	}
	t.Logf("\n| file | assistant | messages | tools | commands | unknown types |\n|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}
