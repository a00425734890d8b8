// Package benchdata builds large Claude Code transcripts for benchmarks by
// repeating real sessions of the shared corpus with fresh UUIDs, so that
// the 100 MB figures of docs/PERFORMANCE.md can be reproduced without
// storing a 100 MB file anywhere.
package benchdata

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// Transcript writes `<uuid>.jsonl` into dir holding size bytes cut back
// to the last line boundary (so a little less than size): the corpus's main
// session files (claude/*.jsonl with a UUID name) repeated in name order,
// every UUID of copy k rewritten so that copies do not share ids. It
// returns the file's path.
func Transcript(corpusClaudeDir, dir string, size int64) (string, error) {
	names, err := filepath.Glob(filepath.Join(corpusClaudeDir, "*-*-*-*-*.jsonl"))
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "", errors.New("benchdata: no corpus sessions in " + corpusClaudeDir)
	}
	type src struct {
		data []byte
		ids  [][]int
	}
	srcs := make([]src, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return "", err
		}
		srcs[i] = src{b, uuidRe.FindAllIndex(b, -1)}
	}
	out := make([]byte, 0, size+size/8)
	for k := 0; int64(len(out)) < size; k++ {
		s := srcs[k%len(srcs)]
		start := len(out)
		out = append(out, s.data...)
		if len(out) > start && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		prefix := fmt.Sprintf("%08x", k)
		for _, m := range s.ids {
			copy(out[start+m[0]:start+m[0]+8], prefix)
		}
	}
	if i := bytes.LastIndexByte(out[:size], '\n'); i > 0 {
		out = out[:i+1]
	}
	p := filepath.Join(dir, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", len(out), size))
	if err := os.WriteFile(p, out, 0o600); err != nil {
		return "", err
	}
	return p, nil
}

// Repeat returns src (JSON lines) repeated up to size bytes, cut back to
// the last line boundary, every UUID of copy k rewritten as in Transcript,
// so that copies do not share ids. For tests that need a large session
// without the corpus.
func Repeat(src []byte, size int64) []byte {
	if len(src) == 0 {
		return nil
	}
	ids := uuidRe.FindAllIndex(src, -1)
	out := make([]byte, 0, size+int64(len(src)))
	for k := 0; int64(len(out)) < size; k++ {
		start := len(out)
		out = append(out, src...)
		if out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		prefix := fmt.Sprintf("%08x", k)
		for _, m := range ids {
			copy(out[start+m[0]:start+m[0]+8], prefix)
		}
	}
	if i := bytes.LastIndexByte(out[:size], '\n'); i > 0 {
		out = out[:i+1]
	}
	return out
}
