package claude_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// Save imports a transcript and writes its archive in one pass, the raw
// files compressed while the model is built.
func ExampleSave() {
	p := filepath.Join("testdata", "11111111-2222-4333-8444-555555555555.jsonl")
	var buf bytes.Buffer
	st, stats, err := claude.Save(context.Background(), &buf, p, archive.ImportOptions{}, archive.EncodeOptions{Codec: ctxfmt.CodecZstd})
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Meta.SessionID, len(st.Raw), "raw files,", stats.InlineTexts, "texts stored twice")
	// Output: 11111111-2222-4333-8444-555555555555 2 raw files, 0 texts stored twice
}
