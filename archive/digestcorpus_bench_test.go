package archive_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/claude"
)

// BenchmarkDigestCorpusSummary is the SessionStart(compact) hook's digest
// on a real session: the Recall of the corpus session's lines before its
// compaction, rendered with the compaction summary that follows them.
func BenchmarkDigestCorpusSummary(b *testing.B) {
	data, err := os.ReadFile(benchSession(b))
	if err != nil {
		b.Fatal(err)
	}
	var pre []byte
	summary := ""
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		if bytes.Contains(line, []byte(`"isCompactSummary":true`)) {
			var v struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if err := json.Unmarshal(line, &v); err != nil {
				b.Fatal(err)
			}
			if json.Unmarshal(v.Message.Content, &summary) != nil {
				var parts []struct{ Text string }
				if err := json.Unmarshal(v.Message.Content, &parts); err != nil {
					b.Fatal(err)
				}
				for _, p := range parts {
					summary += p.Text
				}
			}
			pre = data[:off]
			break
		}
		off += end + 1
	}
	if summary == "" {
		b.Fatal("no compaction summary in the corpus session")
	}
	s, err := claude.ImportReader(bytes.NewReader(pre), "s.jsonl", archive.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	r := archive.BuildRecall(s)
	opts := archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Summary: summary}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = archive.Digest(r, opts)
	}
	b.ReportMetric(float64(len(summary)), "summary-bytes")
	b.ReportMetric(float64(len(r.Files)+len(r.Commands)), "candidates")
}
