package redact

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestScratchCorpus(t *testing.T) {
	r := Default()
	var total int
	var rep Report
	start := time.Now()
	var lines [][]byte
	for _, f := range corpusTranscripts(t) {
		b, _ := os.ReadFile(f)
		total += len(b)
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	for _, l := range lines {
		out, rp := r.JSONLine(l)
		if rp.Total() > 0 {
			for _, x := range r.Find(l) {
				s, e := x.Start-40, x.End+20
				if s < 0 {
					s = 0
				}
				if e > len(l) {
					e = len(l)
				}
				fmt.Printf("%s: %q\n", x.RuleID, l[s:e])
			}
			_ = out
		}
		rep.Merge(rp)
	}
	el := time.Since(start)
	fmt.Printf("%d bytes in %v = %.1f MB/s; %v\n", total, el, float64(total)/el.Seconds()/1e6, rep.Counts)
}
