package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
)

// maxTailScan bounds how much of a transcript's end CompactSummary reads.
// The isCompactSummary line follows the boundary within a few lines; a
// summary is tens of kilobytes at most.
const maxTailScan = 8 << 20

// tailChunk is the read size when scanning backward.
const tailChunk = 256 << 10

var (
	compactSummaryKey = []byte(`"isCompactSummary":true`)
	compactBoundary   = []byte(`"compact_boundary"`)
)

// CompactSummary returns the text of the newest isCompactSummary line of
// the Claude Code transcript at path, reading backward from the end (at
// most maxTailScan bytes, never the whole file). It returns "" when the
// tail holds none, or when a newer compact_boundary has no summary yet
// (the transcript is written asynchronously and may lag).
func CompactSummary(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	end := fi.Size()
	var carry []byte // the partial line at the start of the previous chunk
	scanned := int64(0)
	for end > 0 && scanned < maxTailScan {
		n := int64(tailChunk)
		if n > end {
			n = end
		}
		buf := make([]byte, n, n+int64(len(carry)))
		if _, err := f.ReadAt(buf, end-n); err != nil && err != io.EOF {
			return "", err
		}
		end -= n
		scanned += n
		buf = append(buf, carry...)
		// Complete lines are those after the first newline (unless we are
		// at the file's start).
		start := 0
		if end > 0 {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				carry = buf
				continue
			}
			start = i + 1
			carry = append([]byte(nil), buf[:start]...)
		}
		lines := bytes.Split(buf[start:], []byte("\n"))
		for i := len(lines) - 1; i >= 0; i-- {
			l := lines[i]
			if bytes.Contains(l, compactSummaryKey) || bytes.Contains(l, []byte(`"isCompactSummary": true`)) {
				if s, ok := summaryText(l); ok {
					return s, nil
				}
			}
			if bytes.Contains(l, compactBoundary) && isBoundary(l) {
				return "", nil // a boundary newer than any summary: not written yet
			}
		}
	}
	return "", nil
}

func isBoundary(line []byte) bool {
	var h struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
	}
	return json.Unmarshal(line, &h) == nil && h.Type == "system" && h.Subtype == "compact_boundary"
}

// summaryText extracts the text of an isCompactSummary line: message.content
// as a string, or its text blocks joined.
func summaryText(line []byte) (string, bool) {
	var h struct {
		IsCompactSummary bool `json:"isCompactSummary"`
		Message          struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &h) != nil || !h.IsCompactSummary {
		return "", false
	}
	var s string
	if json.Unmarshal(h.Message.Content, &s) == nil {
		return s, s != ""
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(h.Message.Content, &blocks) != nil {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	s = strings.Join(parts, "\n")
	return s, s != ""
}
