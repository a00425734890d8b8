package redact

import (
	"bytes"
	"encoding/hex"
	"sort"
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

// jsonScratch holds the per-call buffers of JSONLine.
type jsonScratch struct {
	hits []hit
	live []hit
	runs []span
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
	// runs are the line's stretches holding 9 digits (maybeDigits); a
	// stretch never crosses a quote, so a string holds one exactly when
	// maybeDigits of the string would say so.
	var runs []span
	if r.digits || r.ssn {
		runs = appendDigitRuns(sc.runs[:0], line)
		sc.runs = runs
		if !r.exhaustive {
			runs = r.dropInertRuns(line, runs)
		}
	}
	digits := len(runs) > 0
	if len(hits) == 0 && len(r.fullScan) == 0 && !digits && !hasASCIIEscape(line) {
		return line, false
	}
	// live are the hits whose matcher could find something there once
	// the string holding them is decoded; the others (the "sk" of "task",
	// the "sg." of "msg.") do not make a string worth decoding.
	live := sc.live[:0]
	for _, h := range hits {
		if m := &r.matchers[h.matcher]; m.rawOK == nil || r.exhaustive || m.rawOK(line, h) {
			live = append(live, h)
		}
	}
	sc.live = live
	w := jsonWalker{b: line, hits: live, strs: sc.strs[:0], nums: sc.nums[:0]}
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
		interesting := len(r.fullScan) > 0 || hitWithin(live, s.start, s.end) ||
			(digits && (spanWithin(runs, s.start+1, s.end-1) || r.exhaustive && r.maybeDigits(raw))) || s.esc || r.exhaustive && hasASCIIEscape(raw)
		if interesting {
			d := dec.decode(raw)
			var found []Finding
			if dec.plain && !r.exhaustive {
				// The string is its raw bytes: its keyword hits are the
				// line's that lie inside it (a scan of the string alone
				// finds the same ones).
				lo, hi := hitRange(live, s.start+1, s.end-1)
				fh := sc.fhit[:0]
				for _, h := range live[lo:hi] {
					if h.end <= s.end-1 {
						h.start -= s.start + 1
						h.end -= s.start + 1
						fh = append(fh, h)
					}
				}
				sc.fhit = fh
				found = r.findHits(d, fh)
			} else {
				found = r.find(d, &sc.fhit)
			}
			for _, x := range found {
				rs, re := dec.rawSpan(x.Start, x.End)
				edits = append(edits, edit{Finding: Finding{RuleID: x.RuleID, Start: s.start + 1 + rs, End: s.start + 1 + re}, secret: append([]byte(nil), d[x.Start:x.End]...)})
			}
		}
		// "key": "value" members whose key names a secret.
		if s.key < 0 {
			continue
		}
		k := w.strs[s.key]
		if !hitWithin(hits, k.start, k.end) && !k.esc && !(r.exhaustive && hasASCIIEscape(line[k.start:k.end])) {
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
			edits = append(edits, edit{Finding: Finding{RuleID: id, Start: s.start + 1, End: s.end - 1}, secret: append([]byte(nil), v...)})
		}
	}
	if r.digits {
		for _, n := range w.nums {
			num := line[n.start:n.end]
			if len(num) >= 13 && len(num) <= 19 && allIn(num, csDigit) && cardNumber(num) {
				edits = append(edits, edit{Finding: Finding{RuleID: "credit-card", Start: n.start, End: n.end}, secret: num, number: true})
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
		out = append(out, line[prev:e.Start]...)
		if e.number {
			out = append(out, '0')
		} else {
			out = appendJSONString(out, r.replacement(e.RuleID))
		}
		prev = e.End
		r.record(rep, e.RuleID, e.secret)
	}
	out = append(out, line[prev:]...)
	return out, true
}

// edit is a finding in a JSON line: the secret it replaces, and whether
// it is a number (replaced by 0, not by a string).
type edit struct {
	Finding
	secret []byte
	number bool
}

// mergeEdits sorts edits and merges them as mergeSpans does; a merged
// edit keeps the longer secret.
func mergeEdits(r *Redactor, e []edit) []edit {
	// insertion sort: edits are few and nearly sorted
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && (e[j].Start < e[j-1].Start || e[j].Start == e[j-1].Start && e[j].End > e[j-1].End); j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
	out := e[:1]
	for _, x := range e[1:] {
		last := &out[len(out)-1]
		if !r.mergeInto(&last.Finding, x.Finding) {
			out = append(out, x)
		} else if len(x.secret) > len(last.secret) {
			last.secret = x.secret
		}
	}
	return out
}

// mergeSpans folds sorted, possibly overlapping findings (by start, the
// longer first) into disjoint spans in place.
func mergeSpans(r *Redactor, f []Finding) []Finding {
	out := f[:1]
	for _, x := range f[1:] {
		if !r.mergeInto(&out[len(out)-1], x) {
			out = append(out, x)
		}
	}
	return out
}

// mergeInto widens last to cover x when x starts inside it, the rule of
// higher priority naming the merged span; false when they do not overlap.
func (r *Redactor) mergeInto(last *Finding, x Finding) bool {
	if x.Start >= last.End {
		return false
	}
	last.End = max(last.End, x.End)
	if r.priority[x.RuleID] < r.priority[last.RuleID] {
		last.RuleID = x.RuleID
	}
	return true
}

// maybeDigits is a cheap test for a run of 9 or more digits, possibly
// separated, that could hold a card number or an SSN: a stretch of digits,
// spaces and dashes holding at least 9 digits.
func (r *Redactor) maybeDigits(b []byte) bool {
	if !r.digits && !r.ssn {
		return false
	}
	return hasDigitRun(b)
}

// digitRunByte: the bytes a digit run is made of (digits and separators).
var digitRunByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t[' '], t['-'] = true, true
	return t
}()

// appendDigitRuns appends to runs every maximal stretch of digits, spaces
// and dashes in b holding at least 9 digits (those hasDigitRun finds), in
// order.
func appendDigitRuns(runs []span, b []byte) []span {
	for i := firstDigitProbe; ; {
		lo, hi, next := nextDigitRun(b, i)
		if lo < 0 {
			return runs
		}
		runs = append(runs, span{lo, hi})
		i = next
	}
}

// dropInertRuns removes from runs (in place) the digit runs that cannot
// hold a card number or an SSN wherever the line's strings are decoded:
// a run with an ASCII letter or digit right before and right after it
// (the "15-5122611" of a session id "…8d15-5122611a9569", on every line
// of a transcript), no escape reaching into it or its neighbours (no
// backslash in the 6 bytes before it; the byte after it is a letter or a
// digit, and the run has no backslash), and in which scanDigits finds
// nothing given those two neighbours. Those bytes are then the decoded
// string's own, and scanDigits's findings inside a run depend on the run
// and its two neighbours only (a candidate is made of run bytes; whether
// it starts or ends depends on the byte before and after it), so the
// string's own scan would find nothing there either. A JSON number is
// never dropped (never between two letters or digits).
func (r *Redactor) dropInertRuns(line []byte, runs []span) []span {
	out := runs[:0]
	for _, sp := range runs {
		lo, hi := sp.start, sp.end
		inert := lo > 0 && hi < len(line) && csAlnum[line[lo-1]] && csAlnum[line[hi]] &&
			bytes.IndexByte(line[max(0, lo-6):lo], '\\') < 0 &&
			len(r.scanDigits(line[lo-1:hi+1], nil)) == 0
		if !inert {
			out = append(out, sp)
		}
	}
	return out
}

// spanWithin reports whether one of spans (in order, disjoint) lies within
// [s,e).
func spanWithin(spans []span, s, e int) bool {
	k := sort.Search(len(spans), func(k int) bool { return spans[k].start >= s })
	return k < len(spans) && spans[k].end <= e
}

// hasDigitRun reports whether b has a stretch of digits, spaces and dashes
// holding at least 9 digits.
func hasDigitRun(b []byte) bool {
	lo, _, _ := nextDigitRun(b, firstDigitProbe)
	return lo >= 0
}

// firstDigitProbe is the first probe of nextDigitRun over a whole input.
const firstDigitProbe = 7

// nextDigitRun finds the first such stretch [lo,hi) around a probe at i,
// i+8, i+16, … and the probe to go on from (lo < 0: none). A probe p
// tests the pair b[p], b[p+1], and widens it to its stretch when both are
// digitRunBytes and one is a digit. Every stretch holding a dense part,
// 9 digits among which no two other bytes are neighbours (which is what
// scanDigits finds: digit groups joined by single spaces or dashes), is
// seen when it starts at or after i-7 (from i = 7: every such stretch):
// the dense part is at least 9 bytes long, so its pairs start at 8 or
// more consecutive positions, one of every 8th, and each holds a digit.
// After a stretch ending at hi the next starts at hi+1 or later, so the
// probes go on from hi+8. A stretch of 9 digits with no dense part (the
// "12      34      56 …" of an aligned table) may or may not be found,
// depending on where the probes fall: no candidate of scanDigits lies in
// it. Testing a pair rather than a byte keeps the single spaces of prose
// from stopping the probe, and asking for a digit in it keeps indentation
// and "----" rules from stopping it.
func nextDigitRun(b []byte, i int) (lo, hi, next int) {
	for i+1 < len(b) {
		if !digitRunByte[b[i]] || !digitRunByte[b[i+1]] || b[i] < '0' && b[i+1] < '0' {
			i += 8
			continue
		}
		lo, hi = i, i+2
		for lo > 0 && digitRunByte[b[lo-1]] {
			lo--
		}
		for hi < len(b) && digitRunByte[b[hi]] {
			hi++
		}
		// b[hi] ends the stretch: the next one starts after it.
		i = hi + 8
		if hi-lo >= 9 && countDigits(b[lo:hi]) >= 9 {
			return lo, hi, i
		}
	}
	return -1, -1, len(b)
}

// countDigits counts the ASCII digits of b.
func countDigits(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
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
			if i+6 <= len(b) {
				if v, ok := hex4(b[i+2 : i+6]); ok && hidingEscape(v) {
					return true
				}
			}
		}
	}
}

// hidingEscape reports whether \u escape v is of a printable ASCII byte
// other than the ones encoders commonly escape (<, >, &, ', ", \).
func hidingEscape(v uint16) bool {
	return v >= 0x21 && v < 0x7f && v != '<' && v != '>' && v != '&' && v != '\'' && v != '"' && v != '\\'
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
	from := max(s-8, 0)
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

// hex4 decodes the 4 hex digits of a \u escape.
func hex4(b []byte) (uint16, bool) {
	var v [2]byte
	if _, err := hex.Decode(v[:], b); err != nil {
		return 0, false
	}
	return uint16(v[0])<<8 | uint16(v[1]), true
}

// jsonWalker validates one JSON value (with surrounding whitespace) and
// records the spans of its strings and numbers.
type jsonWalker struct {
	b    []byte
	i    int
	hits []hit
	strs []strTok
	nums []span
}

type strTok struct {
	start, end int  // raw, including quotes
	key        int  // for a member value: index of its key in strs; else -1
	esc        bool // hasASCIIEscape of the string (found by the walk)
}

type span struct{ start, end int }

// hitWithin reports whether one of hits (in increasing order of start)
// lies within [s,e).
func hitWithin(hits []hit, s, e int) bool {
	lo, hi := hitRange(hits, s, e)
	for _, h := range hits[lo:hi] {
		if h.end <= e {
			return true
		}
	}
	return false
}

// hitRange returns the hits (in increasing order of start) that start in
// [s,e) as hits[lo:hi] (some may end after e).
func hitRange(hits []hit, s, e int) (lo, hi int) {
	lo = sort.Search(len(hits), func(k int) bool { return hits[k].start >= s })
	hi = lo
	for hi < len(hits) && hits[hi].start < e {
		hi++
	}
	return lo, hi
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
	case c == '{' || c == '[':
		// An object's members are a key, a colon and a value; an array's
		// elements are values.
		obj, end := c == '{', byte(']')
		if obj {
			end = '}'
		}
		w.i++
		w.ws()
		if w.i < len(w.b) && w.b[w.i] == end {
			w.i++
			return true
		}
		for {
			w.ws()
			k := -1
			if obj {
				if w.i >= len(w.b) || w.b[w.i] != '"' {
					return false
				}
				k = len(w.strs)
				if !w.str(-1) {
					return false
				}
				w.ws()
				if w.i >= len(w.b) || w.b[w.i] != ':' {
					return false
				}
				w.i++
				w.ws()
			}
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
			if w.b[w.i] == end {
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

// strStop marks the bytes that end a run of plain string content.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return
}()

// str scans a string at w.i; it accepts any byte ≥ 0x20 (as encoding/json
// does) and checks escapes.
func (w *jsonWalker) str(key int) bool {
	s := w.i
	b := w.b
	i := w.i + 1
	esc := false
	for {
		for i < len(b) && !strStop[b[i]] {
			i++
		}
		if i >= len(b) || b[i] < 0x20 {
			return false
		}
		if b[i] == '"' {
			w.i = i + 1
			w.strs = append(w.strs, strTok{start: s, end: w.i, key: key, esc: esc})
			return true
		}
		// escape
		if i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
		case '/':
			esc = true
			i += 2
		case 'u':
			if i+6 > len(b) {
				return false
			}
			v, ok := hex4(b[i+2 : i+6])
			if !ok {
				return false
			}
			esc = esc || hidingEscape(v)
			i += 6
		default:
			return false
		}
	}
}
