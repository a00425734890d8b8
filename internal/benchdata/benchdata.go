// Package benchdata builds large Claude Code transcripts for benchmarks by
// repeating real sessions of the shared corpus with fresh UUIDs, so that
// the 100 MB figures of docs/PERFORMANCE.md can be reproduced without
// storing a 100 MB file anywhere.
package benchdata

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
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

// secretKinds are the made-up secrets WithSecrets writes, one per kind of
// rule (package redact): a GitHub token and an Anthropic key, which their
// placeholders shorten, and an AWS access key id, which its placeholder
// lengthens. The characters after the prefix are drawn from alphabet.
var secretKinds = []struct {
	prefix, alphabet string
	n                int
}{
	{"ghp_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36},
	{"AKIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16},
	{"sk-ant-api03-", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 48},
}

// WithSecrets returns a copy of data (JSON lines) in which one line in
// every `every` that holds a "text" or "content" string value gets a
// made-up secret at the start of that value ("key <secret> "), the kinds
// of secretKinds in turn, generated from a fixed seed: the same input
// gives the same output. Every such line is one that redaction changes.
func WithSecrets(data []byte, every int) []byte {
	if every < 1 {
		every = 1
	}
	rng := rand.New(rand.NewPCG(16, 64))
	out := make([]byte, 0, len(data)+len(data)/every/4+64)
	n, kind := 0, 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		at := -1
		for _, key := range []string{`"text":"`, `"content":"`} {
			if i := bytes.Index(line, []byte(key)); i >= 0 && (at < 0 || i < at) {
				at = i + len(key)
			}
		}
		if at < 0 {
			out = append(out, line...)
			continue
		}
		if n++; n%every != 0 {
			out = append(out, line...)
			continue
		}
		k := secretKinds[kind%len(secretKinds)]
		kind++
		out = append(append(out, line[:at]...), "key "+k.prefix...)
		for range k.n {
			out = append(out, k.alphabet[rng.IntN(len(k.alphabet))])
		}
		out = append(append(out, ' '), line[at:]...)
	}
	return out
}
