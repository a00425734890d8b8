package fmtsurvey

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript"
)

func TestSurvey(t *testing.T) {
	var files []string
	filepath.Walk("/work/shared/corpus", func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && !strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		st, err := transcript.Import(f, "", archive.ImportOptions{})
		if err != nil {
			fmt.Println(f, "ERR", err)
			continue
		}
		cmds := 0
		for _, x := range st.Tools {
			if x.Command != "" {
				cmds++
			}
		}
		fmt.Printf("%s h=%s model=%q title=%q dir=%q msgs=%d tools=%d cmds=%d comp=%d ctx=%d unknown=%v probs=%d\n", strings.TrimPrefix(f, "/work/shared/corpus/"), st.Meta.Harness, st.Meta.Model, st.Meta.Title, st.Meta.DirectoryPath, len(st.Messages), len(st.Tools), cmds, len(st.Compactions), st.Meta.ContextTokens, st.Import.UnknownTypes, len(st.Import.Problems))
	}
}
