package redact

import (
	"bytes"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting; deeper lines are redacted as plain text.
const maxJSONDepth = 10000

// JSONLine redacts one JSON value (typically a JSONL transcript line).
//
// For a line that is valid JSON, secrets are searched in every decoded
// string (keys included), plus `"key": "value"` members whose key names a
// secret, and card numbers written as JSON integers. Only the bytes of a
// secret (widened to whole escape sequences) are replaced, by the
// JSON-encoded replacement text; every other byte is unchanged, so the line
// still parses to the same structure. A line that is not valid JSON is
// redacted as plain text with each replacement widened to whole escape
// sequences, so no escape is split and no quote is introduced.
//
// When nothing is found JSONLine returns line itself and a zero Report,
// without allocating.
func (r *Redactor) JSONLine(line []byte) ([]byte, Report) {
	var rep Report
	out := line
	for round := 0; round < maxRounds; round++ {
		next, changed := r.jsonOnce(out, &rep)
		if !changed {
			break
		}
		out = next
	}
	return out, rep
}

// jsonScratch holds the per-call buffers of JSONLine, so that a line in
// which nothing is found costs no allocation.
type jsonScratch struct {
	hits []hit
	fhit []hit
	strs []strTok
	nums []span
	dec  decoder
	kdec decoder
}

var jsonPool = sync.Pool{New: func() any { return new(jsonScratch) }}

func (r *Redactor) jsonOnce(line []byte, rep *Report) ([]byte, bool) {
	sc := jsonPool.Get().(*jsonScratch)
	defer func() {
		if cap(sc.dec.buf) > 1<<20 || cap(sc.strs) > 1<<16 {
			return // let oversized buffers go
		}
		jsonPool.Put(sc)
	}()
	hits := r.pf.scan(line, sc.hits[:0])
	sc.hits = hits
	// A string can hold a secret only if the line has a keyword hit, a
	// digit run or an escape that could hide either (a digit run never
	// crosses a quote, so a string holds one exactly when the line holds
	// one inside it).
	if len(hits) == 0 && len(r.fullScan) == 0 && !r.maybeDigits(line) && !hasASCIIEscape(line) {
		return line, false
	}
	w := jsonWalker{b: line, strs: sc.strs[:0], nums: sc.nums[:0]}
	ok := w.valid()
	sc.strs, sc.nums = w.strs, w.nums
	if !ok {
		f := r.Find(line)
		if len(f) == 0 {
			return line, false
		}
		for k := range f {
			f[k].Start, f[k].End = widenEscapes(line, f[k].Start, f[k].End)
		}
		f = mergeSpans(r, f)
		return r.apply(line, f, rep, appendJSONString), true
	}
	var edits []edit
	dec, kdec := &sc.dec, &sc.kdec
	for _, s := range w.strs {
		raw := line[s.start+1 : s.end-1]
		if len(r.fullScan) > 0 || hitWithin(hits, s.start, s.end) || r.maybeDigits(raw) || hasASCIIEscape(raw) {
			d := dec.decode(raw)
			for _, x := range r.find(d, &sc.fhit) {
				rs, re := dec.rawSpan(x.Start, x.End)
				edits = append(edits, edit{start: s.start + 1 + rs, end: s.start + 1 + re, rule: x.RuleID, secret: append([]byte(nil), d[x.Start:x.End]...)})
			}
		}
		// "key": "value" members whose key names a secret.
		if s.key < 0 {
			continue
		}
		k := w.strs[s.key]
		if !hitWithin(hits, k.start, k.end) && !hasASCIIEscape(line[k.start:k.end]) {
			continue
		}
		key := kdec.decode(line[k.start+1 : k.end-1])
		var low [80]byte
		if len(key) > len(low) || len(key) == 0 {
			continue
		}
		for j, c := range key {
			low[j] = lowerASCII(c)
		}
		v := dec.decode(raw)
		if len(v) == 0 {
			continue
		}
		if id := classify(low[:len(key)], v, true); id != "" && r.enabled(id) && !r.allowed(v) {
			edits = append(edits, edit{start: s.start + 1, end: s.end - 1, rule: id, secret: append([]byte(nil), v...)})
		}
	}
	if r.digits {
		for _, n := range w.nums {
			num := line[n.start:n.end]
			if len(num) >= 13 && len(num) <= 19 && allIn(num, csDigit) && cardNumber(num) {
				edits = append(edits, edit{start: n.start, end: n.end, rule: "credit-card", secret: num, number: true})
			}
		}
	}
	if len(edits) == 0 {
		return line, false
	}
	edits = mergeEdits(r, edits)
	out := make([]byte, 0, len(line))
	prev := 0
	for _, e := range edits {
		out = append(out, line[prev:e.start]...)
		if e.number {
			out = append(out, '0')
		} else {
			out = appendJSONString(out, r.replacement(e.rule))
		}
		prev = e.end
		r.record(rep, e.rule, e.secret)
	}
	out = append(out, line[prev:]...)
	return out, true
}

type edit struct {
	start, end int
	rule       string
	secret     []byte
	number     bool
}

func mergeEdits(r *Redactor, e []edit) []edit {
	// insertion sort: edits are few and nearly sorted
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && (e[j].start < e[j-1].start || e[j].start == e[j-1].start && e[j].end > e[j-1].end); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
	out := e[:1]
	for _, x := range e[1:] {
		last := &out[len(out)-1]
		if x.start < last.end {
			if x.end > last.end {
				last.end = x.end
			}
			if r.priority[x.rule] < r.priority[last.rule] {
				last.rule = x.rule
			}
			if len(x.secret) > len(last.secret) {
				last.secret = x.secret
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// mergeSpans folds sorted, possibly overlapping findings (by start, the
// longer first) into disjoint spans in place; where findings overlap, the
// rule of higher priority names the merged span.
func mergeSpans(r *Redactor, f []Finding) []Finding {
	out := f[:1]
	for _, x := range f[1:] {
		last := &out[len(out)-1]
		if x.Start < last.End {
			if x.End > last.End {
				last.End = x.End
			}
			if r.priority[x.RuleID] < r.priority[last.RuleID] {
				last.RuleID = x.RuleID
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// maybeDigits is a cheap test for a run of 9 or more digits, possibly
// separated, that could hold a card number or an SSN: a stretch of digits,
// spaces and dashes holding at least 9 digits. Whatever scanDigits finds
// (digit groups joined by single spaces or dashes) lies in such a stretch.
func (r *Redactor) maybeDigits(b []byte) bool {
	return (r.digits || r.ssn) && hasDigitRun(b)
}

// hasDigitRun reports whether b has a stretch of digits, spaces and dashes
// holding at least 9 digits.
func hasDigitRun(b []byte) bool {
	n := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if n++; n >= 9 {
				return true
			}
		case c != ' ' && c != '-':
			n = 0
		}
	}
	return false
}

// hasASCIIEscape reports a \u00XX escape of a printable ASCII byte other
// than the ones encoders commonly escape (<, >, &, ', ", \). Such an escape
// could hide a keyword from the prefilter, so the strings holding one are
// always decoded and searched. So can an escaped solidus (`:\/\/` is
// "://"), which it reports too.
func hasASCIIEscape(b []byte) bool {
	for i := 0; ; i += 2 {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return false
		}
		i += k
		if i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case '/':
			return true
		case 'u':
			if i+6 <= len(b) && b[i+2] == '0' && b[i+3] == '0' {
				v, ok := hex2(b[i+4], b[i+5])
				if ok && v >= 0x21 && v < 0x7f && v != '<' && v != '>' && v != '&' && v != '\'' && v != '"' && v != '\\' {
					return true
				}
			}
		}
	}
}

func hex2(a, b byte) (byte, bool) {
	x, ok1 := unhex(a)
	y, ok2 := unhex(b)
	return x<<4 | y, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// appendJSONString appends s as the content of a JSON string (without
// quotes).
func appendJSONString(dst []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// escLen returns the length of the JSON escape sequence starting at b[k]
// (a backslash), at least 2 and at most 6, bounded by len(b).
func escLen(b []byte, k int) int {
	n := 2
	if k+1 < len(b) && b[k+1] == 'u' {
		n = 6
	}
	if k+n > len(b) {
		n = len(b) - k
	}
	return n
}

// widenEscapes widens [s,e) so that it does not split a backslash escape
// of the surrounding (possibly invalid) JSON text.
func widenEscapes(b []byte, s, e int) (int, int) {
	// Find escape starts by scanning from a safe point before s: the
	// start of the run of backslashes-and-escape-bodies is found by
	// scanning from the nearest position at least 6 bytes back that is
	// not inside a backslash run.
	from := s - 8
	if from < 0 {
		from = 0
	}
	for from > 0 && b[from-1] == '\\' {
		from--
	}
	for k := from; k < e && k < len(b); {
		if b[k] != '\\' {
			k++
			continue
		}
		n := escLen(b, k)
		if k < s && s < k+n {
			s = k
		}
		if k < e && e < k+n {
			e = k + n
		}
		k += n
	}
	return s, e
}

// decoder decodes a JSON string body. The map from decoded to raw offsets
// is built only when asked for (rawSpan), which is rare.
type decoder struct {
	buf   []byte
	src   []int32 // src[i] = raw offset of the escape/char producing buf[i]; src[len(buf)] = len(raw)
	raw   []byte
	plain bool // raw has no escapes: buf aliases raw
	mapOK bool
}

func (d *decoder) decode(raw []byte) []byte {
	if len(raw) > 0 && len(d.raw) == len(raw) && &d.raw[0] == &raw[0] {
		if d.plain {
			return d.raw
		}
		return d.buf
	}
	d.raw = raw
	d.mapOK = false
	d.plain = bytes.IndexByte(raw, '\\') < 0
	if d.plain {
		return raw
	}
	d.buf = d.run(raw, d.buf[:0], nil)
	return d.buf
}

// run decodes raw into buf and, when src is not nil, records offsets.
func (d *decoder) run(raw, buf []byte, src *[]int32) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			buf = append(buf, c)
			if src != nil {
				*src = append(*src, int32(i))
			}
			i++
			continue
		}
		start := i
		var r rune = -1
		n := 2
		switch raw[i+1] {
		case '"', '\\', '/':
			r = rune(raw[i+1])
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if i+6 <= len(raw) {
				if v, ok := hex4(raw[i+2 : i+6]); ok {
					n = 6
					r = rune(v)
					if utf16.IsSurrogate(r) {
						r = utf8.RuneError
						if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
							if v2, ok := hex4(raw[i+8 : i+12]); ok {
								if dec := utf16.DecodeRune(rune(v), rune(v2)); dec != utf8.RuneError {
									r = dec
									n = 12
								}
							}
						}
					}
				}
			}
		}
		if r < 0 {
			buf = append(buf, c)
			if src != nil {
				*src = append(*src, int32(i))
			}
			i++
			continue
		}
		if r < utf8.RuneSelf {
			buf = append(buf, byte(r))
			if src != nil {
				*src = append(*src, int32(start))
			}
		} else {
			var tmp [4]byte
			m := utf8.EncodeRune(tmp[:], r)
			buf = append(buf, tmp[:m]...)
			if src != nil {
				for j := 0; j < m; j++ {
					*src = append(*src, int32(start))
				}
			}
		}
		i += n
	}
	return buf
}

// rawSpan maps decoded [s,e) to raw [rs,re), covering whole escapes.
func (d *decoder) rawSpan(s, e int) (int, int) {
	if d.plain {
		return s, e
	}
	if !d.mapOK {
		d.src = d.src[:0]
		d.run(d.raw, nil, &d.src)
		d.src = append(d.src, int32(len(d.raw)))
		d.mapOK = true
	}
	rs := int(d.src[s])
	// e is on a rune boundary of the decoded text, so src[e] is the start
	// of the next escape or char (or len(raw)).
	for e < len(d.src)-1 && d.src[e] == d.src[e-1] {
		e++
	}
	return rs, int(d.src[e])
}

func hex4(b []byte) (uint16, bool) {
	var v uint16
	for _, c := range b {
		x, ok := unhex(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | uint16(x)
	}
	return v, true
}

// jsonWalker validates one JSON value (with surrounding whitespace) and
// records the spans of its strings and numbers.
type jsonWalker struct {
	b    []byte
	i    int
	strs []strTok
	nums []span
}

type strTok struct {
	start, end int // raw, including quotes
	key        int // for a member value: index of its key in strs; else -1
}

type span struct{ start, end int }

// hitWithin reports whether one of hits (in increasing order of start)
// lies within [s,e).
func hitWithin(hits []hit, s, e int) bool {
	lo, hi := 0, len(hits)
	for lo < hi {
		m := (lo + hi) / 2
		if hits[m].start < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for k := lo; k < len(hits) && hits[k].start < e; k++ {
		if hits[k].end <= e {
			return true
		}
	}
	return false
}

func (w *jsonWalker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *jsonWalker) valid() bool {
	w.ws()
	if !w.value(0, -1) {
		return false
	}
	w.ws()
	return w.i == len(w.b)
}

func (w *jsonWalker) value(depth, key int) bool {
	if depth > maxJSONDepth || w.i >= len(w.b) {
		return false
	}
	switch c := w.b[w.i]; {
	case c == '{':
		w.i++
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == '}' {
			w.i++
			return true
		}
		for {
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] != '"' {
				return false
			}
			k := len(w.strs)
			if !w.str(-1) {
				return false
			}
			w.ws()
			if w.i >= len(w.b) || w.b[w.i] != ':' {
				return false
			}
			w.i++
			w.ws()
			if !w.value(depth+1, k) {
				return false
			}
			w.ws()
			if w.i >= len(w.b) {
				return false
			}
			if w.b[w.i] == ',' {
				w.i++
				continue
			}
			if w.b[w.i] == '}' {
				w.i++
				return true
			}
			return false
		}
	case c == '[':
		w.i++
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == ']' {
			w.i++
			return true
		}
		for {
			w.ws()
			if !w.value(depth+1, -1) {
				return false
			}
			w.ws()
			if w.i >= len(w.b) {
				return false
			}
			if w.b[w.i] == ',' {
				w.i++
				continue
			}
			if w.b[w.i] == ']' {
				w.i++
				return true
			}
			return false
		}
	case c == '"':
		return w.str(key)
	case c == 't':
		return w.lit("true")
	case c == 'f':
		return w.lit("false")
	case c == 'n':
		return w.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return w.num()
	}
	return false
}

func (w *jsonWalker) lit(s string) bool {
	if bytes.HasPrefix(w.b[w.i:], []byte(s)) {
		w.i += len(s)
		return true
	}
	return false
}

func (w *jsonWalker) num() bool {
	s := w.i
	b := w.b
	if b[w.i] == '-' {
		w.i++
	}
	digits := func() int {
		n := 0
		for w.i < len(b) && b[w.i] >= '0' && b[w.i] <= '9' {
			w.i++
			n++
		}
		return n
	}
	if w.i < len(b) && b[w.i] == '0' {
		w.i++
	} else if digits() == 0 {
		return false
	}
	if w.i < len(b) && b[w.i] == '.' {
		w.i++
		if digits() == 0 {
			return false
		}
	}
	if w.i < len(b) && (b[w.i] == 'e' || b[w.i] == 'E') {
		w.i++
		if w.i < len(b) && (b[w.i] == '+' || b[w.i] == '-') {
			w.i++
		}
		if digits() == 0 {
			return false
		}
	}
	if w.i-s >= 13 {
		w.nums = append(w.nums, span{s, w.i})
	}
	return true
}

// str scans a string at w.i; it accepts any byte ≥ 0x20 (as encoding/json
// does) and checks escapes.
func (w *jsonWalker) str(key int) bool {
	b := w.b
	for i := w.i + 1; i < len(b); {
		switch c := b[i]; {
		case c < 0x20:
			return false
		case c == '"':
			w.strs = append(w.strs, strTok{start: w.i, end: i + 1, key: key})
			w.i = i + 1
			return true
		case c != '\\':
			i++
		case i+1 >= len(b):
			return false
		case b[i+1] == 'u':
			if i+6 > len(b) {
				return false
			}
			if _, ok := hex4(b[i+2 : i+6]); !ok {
				return false
			}
			i += 6
		case bytes.IndexByte([]byte(`"\\/bfnrt`), b[i+1]) >= 0:
			i += 2
		default:
			return false
		}
	}
	return false
}
