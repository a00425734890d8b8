package archive

import "bytes"

// countRules sets the report's per-rule totals (RedactionReport.Rules)
// when EncodeOptions.RedactCount is set: every line the redactor changed,
// in every raw file, is counted from its original bytes, the lines this
// encode redacted and those copied from the previous archive alike. The
// totals are then the archive's own, equal to those of an encode without a
// previous archive, whatever part of the previous one was reused; the cost
// is one more redaction of the changed lines only.
func (e *encoder) countRules() {
	if e.opts.RedactCount == nil || e.opts.RedactLine == nil {
		return
	}
	rules := map[string]int{}
	for i, f := range e.files {
		if i >= len(e.changed) {
			break
		}
		countChangedLines(f.Data, e.changed[i], e.opts.RedactCount, rules)
	}
	e.report.Rules = rules
}

// countChangedLines adds RedactCount's counts of the lines of data whose
// numbers (from 0) are in changed to rules.
func countChangedLines(data []byte, changed map[int]bool, count func([]byte) map[string]int, rules map[string]int) {
	left := len(changed)
	for n, off := 0, 0; left > 0 && off < len(data); n++ {
		end := len(data)
		if j := bytes.IndexByte(data[off:], '\n'); j >= 0 {
			end = off + j
		}
		if changed[n] {
			left--
			line := data[off:end]
			line = bytes.TrimSuffix(line, []byte("\r"))
			for k, v := range count(line) {
				rules[k] += v
			}
		}
		off = end + 1
	}
}

// Total returns the number of secrets the report counts in the raw
// transcript, and whether that number is exact: an archive written
// without per-rule totals (Rules) tells only how many lines changed, a
// lower bound.
func (r RedactionReport) Total() (n int, exact bool) {
	if r.Rules == nil && r.LinesChanged > 0 {
		return r.LinesChanged, false
	}
	for _, v := range r.Rules {
		n += v
	}
	return n, true
}
