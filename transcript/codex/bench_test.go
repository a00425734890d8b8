package codex_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/codex"
)

// benchData is basic.jsonl repeated to about 1.3 MB.
func benchData(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "basic.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(data, 200)
}

func BenchmarkImport(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := codex.ImportBytes("r.jsonl", data, archive.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceDecode is the reference: decoding every line into a
// generic map with encoding/json and nothing else.
func BenchmarkReferenceDecode(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal(l, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}
