package redact

import (
	"bytes"
	"os"
	"testing"
)

func loadCorpus(b *testing.B) ([]byte, [][]byte) {
	var all []byte
	for _, f := range corpusTranscripts(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, data...)
	}
	return all, bytes.Split(all, []byte("\n"))
}

// BenchmarkJSONLine redacts every line of the corpus transcripts with all
// rules on, as the archive layer does for raw transcripts.
func BenchmarkJSONLine(b *testing.B) {
	all, lines := loadCorpus(b)
	r := Default()
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			r.JSONLine(l)
		}
	}
}

// BenchmarkBytes redacts the corpus transcripts as plain text in one call.
func BenchmarkBytes(b *testing.B) {
	all, _ := loadCorpus(b)
	r := Default()
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Bytes(all)
	}
}

// BenchmarkPrefilter is the keyword scan alone: the floor of the cost.
func BenchmarkPrefilter(b *testing.B) {
	all, _ := loadCorpus(b)
	r := Default()
	b.SetBytes(int64(len(all)))
	b.ResetTimer()
	var hits []hit
	for i := 0; i < b.N; i++ {
		hits = r.pf.scan(all, hits[:0])
	}
}
