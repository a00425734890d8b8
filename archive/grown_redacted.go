package archive

import (
	"bytes"
	"sort"
)

// A redacted incremental save of a file read with ReadGrown. The archive
// stores the redacted bytes, whose offsets differ from the file's wherever
// redaction changed a line, and the importer builds its model from them
// (Encoder.Stored): the encoder gives it a stored view of the grown file
// that is as sparse as the file itself. Its prefix, the reused chunks'
// stored bytes, is never read: its line starts are the file's shifted by
// what redaction changed in the lines before them, and its kept lines are
// the file's kept lines, those redaction changed redacted again (the same
// configuration redacts a line the same way, which RedactFingerprint
// vouches for; the previous archive's manifest says which lines it
// changed, and ReadGrown kept them). The rest of the file is redacted as
// in any incremental save.

// sparseStored returns the stored view of file data read with ReadGrown
// (sp; data itself when redaction changes none of its lines): the reused chunks (skip lines, origOff original bytes, storedOff
// stored ones, of previous manifest pm) followed by restStored, the
// redacted rest of the file. ok is false when the view cannot be made
// exactly (the encoder reuses other chunks than ReadGrown expected, a line
// redaction changed was not kept or does not redact to a line of the
// length the manifest implies): the save then fails before anything is
// written, and is done again reading the files whole.
func (e *encoder) sparseStored(data []byte, sp *sparseFile, pm rawManifest, skip int, origOff, storedOff int64, restStored []byte) ([]byte, bool) {
	if origOff != int64(sp.from) || storedOff <= 0 || skip <= 0 || skip > len(sp.starts) {
		return nil, false
	}
	if skip < len(sp.starts) && int64(sp.starts[skip]) != origOff {
		return nil, false
	}
	// The lines of the reused part redaction changed, redacted again.
	type redone struct {
		line  int
		bytes []byte // the stored line with its line ending
		delta int    // stored length - original length
	}
	var changed []redone
	last := -1
	shift := int64(0)
	for _, l := range pm.RedactedLines {
		if l >= skip {
			break
		}
		if l <= last {
			return nil, false // not in increasing order
		}
		last = l
		orig, ok := sp.kept.line(l)
		if !ok {
			return nil, false
		}
		body := bytes.TrimSuffix(orig, []byte{'\r'})
		red := e.opts.RedactLine(body)
		if bytes.Equal(red, body) {
			return nil, false // the manifest says redaction changed it
		}
		line := make([]byte, 0, len(red)+len(orig)-len(body)+1)
		line = append(append(append(line, red...), orig[len(body):]...), '\n')
		d := len(red) - len(body)
		changed = append(changed, redone{line: l, bytes: line, delta: d})
		shift += int64(d)
	}
	if origOff+shift != storedOff {
		return nil, false
	}
	if rest := data[origOff:]; len(changed) == 0 && len(restStored) == len(rest) && (len(rest) == 0 || &restStored[0] == &rest[0]) {
		// Redaction changes nothing in the file: the stored view is the
		// file as read (the same bytes, line starts and kept lines).
		return data, true
	}
	restStarts := lineStarts(restStored)
	if skip+len(restStarts) != len(sp.starts) {
		return nil, false
	}
	// Line starts in stored offsets.
	starts := make([]int, 0, len(sp.starts))
	if len(changed) == 0 {
		starts = append(starts, sp.starts[:skip]...)
	} else {
		d, c := 0, 0
		for l, st := range sp.starts[:skip] {
			for c < len(changed) && changed[c].line < l {
				d += changed[c].delta
				c++
			}
			starts = append(starts, st+d)
		}
	}
	for _, st := range restStarts {
		starts = append(starts, int(storedOff)+st)
	}
	// The kept lines, those redaction changed replaced.
	kept := sp.kept
	if len(changed) > 0 {
		kept = &keptLines{buf: make([]byte, 0, len(sp.kept.buf)+max(int(shift), 0))}
		c := 0
		for i, l := range sp.kept.lines {
			kept.add(l)
			for c < len(changed) && changed[c].line < l {
				c++
			}
			if c < len(changed) && changed[c].line == l {
				kept.buf = append(kept.buf, changed[c].bytes...)
				continue
			}
			end := len(sp.kept.buf)
			if i+1 < len(sp.kept.off) {
				end = sp.kept.off[i+1]
			}
			kept.buf = append(kept.buf, sp.kept.buf[sp.kept.off[i]:end]...)
		}
	}
	stored := make([]byte, storedOff+int64(len(restStored)), storedOff+int64(len(restStored))+1)
	copy(stored[storedOff:], restStored)
	registerSparse(stored, &sparseFile{from: int(storedOff), starts: starts, kept: kept})
	return stored, true
}

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
	if pf < 0 || sparseOf(data) != nil {
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
	out := redacted{changed: make(map[int]bool, len(k.changed)+len(r.changed))}
	out.starts = make([]int, 0, len(starts)+len(r.starts))
	out.starts = append(out.starts, starts...)
	for _, st := range r.starts {
		out.starts = append(out.starts, k.off+st)
	}
	// The known lines redaction changes, redacted again.
	var b []byte
	prev := 0 // data[prev:] is not copied yet
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
		if b == nil {
			b = make([]byte, 0, len(data)+len(r.data)-(len(data)-k.off)+len(red))
		}
		out.changed[l] = true
		b = append(append(b, data[prev:st]...), red...)
		prev = st + len(body) // the line ending follows
	}
	for l := range r.changed {
		out.changed[k.lines+l] = true
	}
	switch {
	case b != nil:
		out.data = append(append(b, data[prev:k.off]...), r.data...)
	case len(r.changed) == 0:
		out.data = data // nothing changed
	default:
		out.data = make([]byte, 0, k.off+len(r.data))
		out.data = append(append(out.data, data[:k.off]...), r.data...)
	}
	return out
}
