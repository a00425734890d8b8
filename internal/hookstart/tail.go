package hookstart

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

var compactBoundary = []byte(`"compact_boundary"`)

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
		n := min(int64(tailChunk), end)
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
		if s, done := lastSummary(buf[start:]); done {
			return s, nil
		}
	}
	return "", nil
}

// lastSummary looks through the complete lines in region from the end for
// the newest summary or boundary line, searching for the keys over the
// whole region (not line by line). done reports that the answer is found:
// the summary's text, or "" for a boundary without a summary after it.
func lastSummary(region []byte) (string, bool) {
	for len(region) > 0 {
		i := max(lastIndex(region, summaryKey), lastIndex(region, compactBoundary))
		if i < 0 {
			return "", false
		}
		ls := bytes.LastIndexByte(region[:i], '\n') + 1
		le := i + bytes.IndexByte(region[i:], '\n')
		if le < i {
			le = len(region)
		}
		l := region[ls:le]
		if s, ok := summaryText(l); ok {
			return s, true
		}
		if isBoundary(l) {
			return "", true // a boundary newer than any summary: not written yet
		}
		region = region[:ls]
	}
	return "", false
}

// lastIndex is bytes.LastIndex by forward searches: the keys are rare, and
// bytes.Index is vectorized where bytes.LastIndex is not.
func lastIndex(b, key []byte) int {
	last := -1
	for off := 0; off < len(b); {
		i := bytes.Index(b[off:], key)
		if i < 0 {
			break
		}
		last = off + i
		off = last + 1
	}
	return last
}

// summaryKey finds isCompactSummary lines whatever the JSON spacing.
var summaryKey = []byte(`"isCompactSummary"`)

// CompactSummaryAfter returns the text of the first isCompactSummary line
// written after offset in the transcript at path: PreCompact records the
// transcript's size, and the boundary and summary Claude Code appends
// follow it, so this reads a few kilobytes however long the transcript is.
// When the transcript is shorter than offset, or no summary follows it
// within maxTailScan bytes, it falls back to CompactSummary.
func CompactSummaryAfter(path string, offset int64) (string, error) {
	if offset <= 0 {
		return CompactSummary(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() <= offset {
		f.Close()
		return CompactSummary(path)
	}
	// Claude Code writes whole lines, so offset is normally a line start;
	// if it is not, the partial first line is skipped.
	var pending []byte
	pos := offset
	chunk := int64(firstForwardChunk)
	for pos < fi.Size() && pos-offset < maxTailScan {
		n := min(chunk, fi.Size()-pos)
		chunk = forwardChunk
		buf := make([]byte, n)
		m, err := f.ReadAt(buf, pos)
		if m == 0 {
			if err != nil && err != io.EOF {
				f.Close()
				return "", err
			}
			break
		}
		pos += int64(m)
		if len(pending) == 0 {
			pending = buf[:m] // the usual case: no copy
		} else {
			pending = append(pending, buf[:m]...)
		}
		for {
			j := bytes.IndexByte(pending, '\n')
			if j < 0 {
				break
			}
			l := pending[:j]
			pending = pending[j+1:]
			if bytes.Contains(l, summaryKey) {
				if s, ok := summaryText(l); ok {
					f.Close()
					return s, nil
				}
			}
		}
		if len(pending) > maxSummaryLine {
			break
		}
	}
	if len(pending) > 0 && bytes.Contains(pending, summaryKey) {
		if s, ok := summaryText(pending); ok {
			f.Close()
			return s, nil
		}
	}
	f.Close()
	return CompactSummary(path)
}

// forwardChunk is the read size when reading forward from PreCompact's
// offset: the boundary line and the start of the summary.
const forwardChunk = 64 << 10

// firstForwardChunk is the first read: the boundary line and a typical
// summary fit, and the hook touches (page-faults in) 6 pages, not 16.
const firstForwardChunk = 24 << 10

// maxSummaryLine bounds one line held while reading forward.
const maxSummaryLine = 4 << 20

// isBoundary reports whether line is a compact_boundary system line.
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
	return contentText(h.Message.Content)
}

// contentText is the text of a message's content: a string, or the text
// blocks of an array joined by newlines.
func contentText(content []byte) (string, bool) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, s != ""
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
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
