package archive

import (
	"bytes"
	"sort"
)

// A file an incremental redacted save does not copy from the previous
// archive (a subagent file compressed with the main file's tail, for one)
// is still redacted only from where the previous archive's knowledge of
// it ends: its leading whole lines whose original bytes match the
// previous archive's chunk digests redact as they did then, so only those
// redaction changed (the manifest's RedactedLines) are redacted again.

// knownLines is the part of a file known from the previous archive: its
// first off bytes, lines lines, of which redaction changed changed.
type knownLines struct {
	off, lines int
	changed    []int
}

// knownPrefix returns the leading whole lines of file i (not planned by
// planAppend) that the previous archive, redacted with the same non-empty
// fingerprint, holds unchanged (off 0: none).
func (e *encoder) knownPrefix(i int) knownLines {
	prev := e.opts.Previous
	fp := e.opts.RedactFingerprint
	if prev == nil || !prev.meta.Redacted || fp == "" || prev.meta.RedactFP != fp {
		return knownLines{}
	}
	data := e.files[i].Data
	pf := prevFile(prev, e.files[i].Name)
	if pf < 0 {
		return knownLines{}
	}
	pm := &prev.meta.Raw[pf]
	matched := prev.matchedOriginal(pf, data)
	var off, end int64
	for _, c := range pm.Chunks {
		if c.OrigLen < 0 || off+c.OrigLen > matched {
			break
		}
		off += c.OrigLen
		if off > 0 && data[off-1] == '\n' {
			end = off
		}
	}
	if end == 0 {
		return knownLines{}
	}
	k := knownLines{off: int(end), lines: bytes.Count(data[:end], []byte{'\n'})}
	for _, l := range pm.RedactedLines {
		if l >= 0 && l < k.lines {
			k.changed = append(k.changed, l)
		}
	}
	sort.Ints(k.changed)
	return k
}

// join makes file data's redaction result from r, that of data[k.off:]:
// the known lines as they are but those redaction changed before, redacted
// again with fn.
func (k *knownLines) join(data []byte, r redacted, fn func([]byte) []byte) redacted {
	starts := lineStarts(data[:k.off])
	out := redacted{changed: make(map[int]bool, len(k.changed)+len(r.changed)), size: k.off + r.size}
	out.starts = make([]int, 0, len(starts)+len(r.starts))
	out.starts = append(out.starts, starts...)
	for _, st := range r.starts {
		out.starts = append(out.starts, k.off+st)
	}
	// The known lines redaction changes, redacted again.
	for j, l := range k.changed {
		if j > 0 && l == k.changed[j-1] {
			continue
		}
		st, end := starts[l], k.off-1
		if l+1 < len(starts) {
			end = starts[l+1] - 1
		}
		body := bytes.TrimSuffix(data[st:end], []byte{'\r'})
		red := fn(body)
		if bytes.Equal(red, body) {
			continue
		}
		out.changed[l] = true
		ed := lineEdit(st, body, red)
		out.edits = append(out.edits, ed)
		out.size += len(ed.repl) - ed.n
	}
	for l := range r.changed {
		out.changed[k.lines+l] = true
	}
	for _, ed := range r.edits {
		ed.off += k.off
		out.edits = append(out.edits, ed)
	}
	return out
}
