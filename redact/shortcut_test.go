package redact

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// refHasDigitRun is maybeDigits' definition: a run of 9 digits, where
// spaces and dashes do not break the run and anything else does.
func refHasDigitRun(b []byte) bool {
	run := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			run++
			if run >= 9 {
				return true
			}
		case c == ' ' || c == '-':
		default:
			run = 0
		}
	}
	return false
}

// refDense reports a dense part in b: 9 digits in a stretch of digits,
// spaces and dashes in which no two spaces or dashes are neighbours (what
// scanDigits's candidates are made of: digit groups joined by single
// separators). hasDigitRun and appendDigitRuns always see those; a
// stretch with 9 digits and no dense part ("12  34  56  78  9") they may
// or may not see.
func refDense(b []byte) bool {
	run, sep := 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			run++
			sep = false
			if run >= 9 {
				return true
			}
		case c == ' ' || c == '-':
			if sep {
				run = 0
			}
			sep = true
		default:
			run, sep = 0, false
		}
	}
	return false
}

// refDigitRuns lists every maximal stretch of digits, spaces and dashes
// of b holding at least 9 digits, the exhaustive way.
func refDigitRuns(b []byte) []span {
	var out []span
	for i := 0; i < len(b); {
		if !digitRunByte[b[i]] {
			i++
			continue
		}
		j := i
		for j < len(b) && digitRunByte[b[j]] {
			j++
		}
		if refHasDigitRun(b[i:j]) {
			out = append(out, span{i, j})
		}
		i = j
	}
	return out
}

func TestHasDigitRun(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"", false}, {"12345678", false}, {"123456789", true}, {"x123456789", true},
		{"1234-5678 9", true}, {"1234a56789", false}, {"         ", false},
		{"4d5611e5-241a-462a-8d15-5122611a9569", true}, {"2026-02-12T10:00:00", false},
		{"-- -- 1 2 3 4 5 6 7 8 9 --", true}, {"12345678\n9", false},
		{"--------------------------------", false}, {"      -  -  -  -  -  -  -  -  -  -  -  -", false},
	} {
		if got := hasDigitRun([]byte(c.in)); got != c.want || got && !refHasDigitRun([]byte(c.in)) || refDense([]byte(c.in)) && !got {
			t.Errorf("hasDigitRun(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewSource(7))
	alpha := []byte("0123456789 -a\"")
	sparse := 0
	for range 200000 {
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		got := hasDigitRun(b)
		if got && !refHasDigitRun(b) || !got && refDense(b) {
			t.Fatalf("hasDigitRun(%q) = %v; 9 digits: %v, dense: %v", b, got, refHasDigitRun(b), refDense(b))
		}
		if refHasDigitRun(b) && !refDense(b) {
			sparse++
		}
	}
	if sparse == 0 {
		t.Fatal("no input with 9 digits and no dense part: the test proves nothing about them")
	}
}

// TestJSONLineShortcuts checks JSONLine against its exhaustive path (every
// string with a keyword hit decoded and scanned on its own) on JSON lines
// holding the labelled corpus's secrets and non-secrets in contexts that
// exercise the shortcuts: keyword look-alikes ("task", "msg.", lower-case
// prefixes), letters and escapes right before a secret, escaped and plain
// strings, keys naming secrets.
func TestJSONLineShortcuts(t *testing.T) {
	r := Default()
	ex := *r
	ex.exhaustive = true
	var texts []string
	for _, c := range positiveCases(11) {
		texts = append(texts, c.Text, c.Secret)
	}
	texts = append(texts, negativeCases(12)...)
	before := []string{"", "task ", "msg.", "x", "\n", "\\", "A", "é", "\u0001", "ask", "sg.", "SG.", "sk", "SK"}
	after := []string{"", " done", "\n", "\"", "sk", "0123456789", "task"}
	keys := []string{"text", "task_password", "api_key", "sk", "msg.token", "content"}
	rng := rand.New(rand.NewSource(3))
	n := 0
	variants := 4
	if testing.Short() {
		variants = 1 // make test-long runs four per text
	}
	for _, txt := range texts {
		for range variants {
			s := before[rng.Intn(len(before))] + txt + after[rng.Intn(len(after))]
			k := keys[rng.Intn(len(keys))]
			v, err := json.Marshal(map[string]any{k: s, "type": "user", "n": []any{s, 1234567890123}})
			if err != nil {
				t.Fatal(err)
			}
			lines := [][]byte{v}
			// The same value with every '/' and the first letter escaped.
			esc := strings.ReplaceAll(string(v), "/", `\/`)
			if i := strings.IndexAny(esc, "SGsgkK"); i > 0 && esc[i-1] != '\\' {
				esc = esc[:i] + `\u00` + hexByte(esc[i]) + esc[i+1:]
			}
			lines = append(lines, []byte(esc), []byte(`{"plain":"`+strings.NewReplacer(`\`, ``, `"`, ``).Replace(s)+`"}`))
			for _, line := range lines {
				got, grep := r.JSONLine(line)
				want, wrep := ex.JSONLine(line)
				if !bytes.Equal(got, want) || grep.Total() != wrep.Total() {
					t.Fatalf("JSONLine(%s):\n got %s (%d)\nwant %s (%d)", line, got, grep.Total(), want, wrep.Total())
				}
				if wrep.Total() > 0 {
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no line had a secret: the comparison proves nothing")
	}
}

func hexByte(c byte) string {
	const h = "0123456789abcdef"
	return string([]byte{h[c>>4], h[c&15]})
}

// TestJSONLineEscapedSolidus: a URL written with JSON-escaped slashes
// (`https:\/\/`) hides the "://" keyword from the raw line's scan; its
// string is decoded and searched all the same.
func TestJSONLineEscapedSolidus(t *testing.T) {
	line := []byte(`{"c":"git clone https:\/\/deploy:0bOU8J*2LOxo64@git.example.net\/team\/repo.git"}`)
	out, rep := Default().JSONLine(line)
	if rep.Total() != 1 || bytes.Contains(out, []byte("0bOU8J*2LOxo64")) {
		t.Fatalf("JSONLine(%s) = %s, %v: the password is still there", line, out, rep.Counts)
	}
}

// TestHasASCIIEscape: escapes that could hide keyword bytes are reported;
// escaped backslashes followed by look-alikes are not.
func TestHasASCIIEscape(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{``, false}, {`plain`, false}, {`\n\t\"`, false}, {`\u0041`, true}, {`x\u003a`, true},
		{`\u003c\u003e\u0026\u0027\u0022\u005c`, false}, {`\u0020`, false}, {`\/`, true},
		{`https:\/\/`, true}, {`\\/`, false}, {`\\u0041`, false}, {`\u00`, false}, {`\u00zz`, false},
		{`\`, false}, {`a\\\/`, true},
	} {
		if got := hasASCIIEscape([]byte(c.in)); got != c.want {
			t.Errorf("hasASCIIEscape(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestWalkerEscapes: the walk's per-string escape flag is hasASCIIEscape
// of the string, and a valid line has such an escape exactly when one of
// its strings does (JSONLine asks the walk instead of scanning the line).
func TestWalkerEscapes(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	pieces := []string{"a", " ", "\\/", "\\\\", "\\n", "\\\"", "\\u0041", "\\u003c", "\\u003C", "\\u0020", "\\u007e",
		"\\u007f", "\\u0021", "\\u00e9", "\\u0141", "\\uD83D\\uDE00", "\\u005c", "\\u005C", "\\u0027", "\\u0026", "é", "u00", "/"}
	for range 50000 {
		var line strings.Builder
		line.WriteString(`{"k`)
		var strsRaw []string
		cur := "k"
		for range rng.Intn(5) {
			p := pieces[rng.Intn(len(pieces))]
			line.WriteString(p)
			cur += p
		}
		strsRaw = append(strsRaw, cur)
		line.WriteString(`":["`)
		cur = ""
		for range rng.Intn(8) {
			p := pieces[rng.Intn(len(pieces))]
			line.WriteString(p)
			cur += p
		}
		strsRaw = append(strsRaw, cur)
		line.WriteString(`",1]}`)
		b := []byte(line.String())
		w := jsonWalker{b: b}
		if !w.valid() {
			t.Fatalf("%s: not valid", b)
		}
		if len(w.strs) != len(strsRaw) {
			t.Fatalf("%s: %d strings, want %d", b, len(w.strs), len(strsRaw))
		}
		anyEsc := false
		for k, st := range w.strs {
			raw := b[st.start+1 : st.end-1]
			if string(raw) != strsRaw[k] {
				t.Fatalf("%s: string %d is %q, want %q", b, k, raw, strsRaw[k])
			}
			if want := hasASCIIEscape(raw); st.esc != want {
				t.Fatalf("%s: string %q: esc %v, want %v", b, raw, st.esc, want)
			}
			if want := hasASCIIEscape(b[st.start:st.end]); st.esc != want {
				t.Fatalf("%s: quoted string %q: esc %v, want %v", b, raw, st.esc, want)
			}
			anyEsc = anyEsc || st.esc
		}
		if want := hasASCIIEscape(b); anyEsc != want {
			t.Fatalf("%s: strings' esc %v, line's %v", b, anyEsc, want)
		}
	}
}

// TestAppendDigitRuns: the runs found in a line are exactly the maximal
// stretches hasDigitRun accepts, and a string holds one exactly when
// hasDigitRun accepts the string.
func TestAppendDigitRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	alpha := []byte("0123456789 -a\"\xb0")
	for range 100000 {
		b := make([]byte, rng.Intn(90))
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		runs := appendDigitRuns(nil, b)
		if (len(runs) > 0) != hasDigitRun(b) {
			t.Fatalf("appendDigitRuns(%q) = %v, hasDigitRun %v", b, runs, hasDigitRun(b))
		}
		// A subset of the maximal qualifying stretches holding every one
		// with a dense part.
		all := refDigitRuns(b)
		for _, r := range runs {
			if !slices.Contains(all, r) {
				t.Fatalf("appendDigitRuns(%q) = %v: %v is not among %v", b, runs, r, all)
			}
		}
		for _, w := range all {
			if refDense(b[w.start:w.end]) && !slices.Contains(runs, w) {
				t.Fatalf("appendDigitRuns(%q) = %v, missing %v", b, runs, w)
			}
		}
		for k, r := range runs {
			if !refHasDigitRun(b[r.start:r.end]) || (r.start > 0 && digitRunByte[b[r.start-1]]) || (r.end < len(b) && digitRunByte[b[r.end]]) || (k > 0 && runs[k-1].end >= r.start) {
				t.Fatalf("appendDigitRuns(%q): run %v is not a maximal qualifying stretch", b, r)
			}
		}
		// Every quoted piece.
		for s := 0; s < len(b); s++ {
			if b[s] != '"' {
				continue
			}
			e := bytes.IndexByte(b[s+1:], '"')
			if e < 0 {
				break
			}
			e += s + 1
			if got := spanWithin(runs, s+1, e); got && !refHasDigitRun(b[s+1:e]) || !got && refDense(b[s+1:e]) {
				t.Fatalf("%q: string %q holds a run: %v; 9 digits: %v, dense: %v", b, b[s+1:e], got, refHasDigitRun(b[s+1:e]), refDense(b[s+1:e]))
			}
			s = e
		}
	}
}

// TestPrefilterMatchesBruteForce: the trigram scan reports exactly the
// occurrences a naive case-insensitive search of every keyword finds, at
// the start, in the middle and at the very end of the input.
func TestPrefilterMatchesBruteForce(t *testing.T) {
	r := Default()
	pf := r.pf
	rng := rand.New(rand.NewSource(6))
	var frags []string
	for _, kw := range pf.kws {
		frags = append(frags, string(kw), strings.ToUpper(string(kw)), string(kw[:len(kw)/2+1]))
	}
	frags = append(frags, " ", "x", "\"", "0", "é")
	for range 20000 {
		var b []byte
		for range rng.Intn(8) {
			b = append(b, frags[rng.Intn(len(frags))]...)
		}
		got := pf.scan(b, nil)
		var want []hit
		low := bytes.ToLower(b)
		for at := range b {
			for k, kw := range pf.kws {
				if bytes.HasPrefix(low[at:], kw) {
					want = append(want, hit{matcher: pf.kwOwner[k], start: at, end: at + len(kw)})
				}
			}
		}
		key := func(h []hit) map[hit]int {
			m := map[hit]int{}
			for _, x := range h {
				m[x]++
			}
			return m
		}
		g, w := key(got), key(want)
		if len(g) != len(w) {
			t.Fatalf("scan(%q): %v, want %v", b, got, want)
		}
		for x, n := range w {
			if g[x] != n {
				t.Fatalf("scan(%q): %v, want %v", b, got, want)
			}
		}
	}
}

// TestScanDigitsNeedsDigitRun: whatever scanDigits finds lies in a text
// hasDigitRun accepts (find skips scanDigits otherwise).
func TestScanDigitsNeedsDigitRun(t *testing.T) {
	r := Default()
	frags := []string{"4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "123-45-6789", "078-05-1120",
		"5500 0000 0000 0004", "3782 822463 10005", "1", "12", " ", "-", "a", ".", "\n", "x9", "--", "  "}
	rng := rand.New(rand.NewSource(10))
	found := 0
	for range 200000 {
		var b []byte
		for range 1 + rng.Intn(6) {
			b = append(b, frags[rng.Intn(len(frags))]...)
		}
		if f := r.scanDigits(b, nil); len(f) > 0 {
			found++
			if !hasDigitRun(b) {
				t.Fatalf("scanDigits(%q) = %v but hasDigitRun is false", b, f)
			}
			// Each finding lies in one of the runs JSONLine looks at.
			runs := appendDigitRuns(nil, b)
			for _, x := range f {
				if !slices.ContainsFunc(runs, func(r span) bool { return r.start <= x.Start && x.End <= r.end }) {
					t.Fatalf("scanDigits(%q) = %v: %v lies in none of the runs %v", b, f, x, runs)
				}
				if !refDense(b[x.Start:x.End]) {
					t.Fatalf("scanDigits(%q) = %v: %v is not dense", b, f, x)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("scanDigits found nothing: the test proves nothing")
	}
}

// TestJSONLineInertDigitRuns checks JSONLine against its exhaustive path
// on lines full of digit runs next to letters (session-id look-alikes,
// dropped by dropInertRuns) and real card numbers and SSNs in the same
// contexts, with escapes before, after and inside them, in strings, keys
// and JSON numbers.
func TestJSONLineInertDigitRuns(t *testing.T) {
	r := Default()
	ex := *r
	ex.exhaustive = true
	frags := []string{
		"8d15-5122611a9569", "4d5611e5-241a-462a-8d15-5122611a9569", "a123456789b", "x123-45-6789y",
		"123-45-6789", "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "378282246310005",
		"5555 5555 5555 4444", "078-05-1120", "219-09-9999", "a4111111111111111b", "z378282246310005",
		"a", "b", "Z", "9", " ", "-", "  ", "--", ".", "_", "/", ":", "é", "\n", "\t", `\`, `"`, "\u0001",
		"123456789", "12345 6789", "1234 5678 9012 3456", "00-00-0000",
	}
	// Raw escapes spliced into the marshalled line (inside a string).
	escapes := []string{`\n`, `\u0031`, `\u0020`, `\u002d`, `\u00e9`, `\\`, `\"`, `\/`, `\t`}
	rng := rand.New(rand.NewSource(17))
	n, dropped := 0, 0
	rounds := 60000
	if testing.Short() {
		rounds = 10000 // make test-long runs all 60000
	}
	for range rounds {
		var sb strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			sb.WriteString(frags[rng.Intn(len(frags))])
		}
		s := sb.String()
		m := map[string]any{"sessionId": s, "type": "user", s: 1}
		if rng.Intn(4) == 0 {
			m["n"] = []any{4111111111111111, 1234567890123}
		}
		v, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		line := string(v)
		// Splice an escape into the first string value, at a random byte.
		if i := strings.Index(line, `"sessionId":"`); i >= 0 && rng.Intn(2) == 0 {
			start := i + len(`"sessionId":"`)
			end := start + strings.IndexByte(line[start:], '"')
			for p := start + rng.Intn(end-start+1); p <= end; p++ {
				if p == start || line[p-1] != '\\' {
					line = line[:p] + escapes[rng.Intn(len(escapes))] + line[p:]
					break
				}
			}
		}
		got, grep := r.JSONLine([]byte(line))
		want, wrep := ex.JSONLine([]byte(line))
		if !bytes.Equal(got, want) || grep.Total() != wrep.Total() {
			t.Fatalf("JSONLine(%s):\n got %s (%d)\nwant %s (%d)", line, got, grep.Total(), want, wrep.Total())
		}
		if _, num := m["n"]; wrep.Total() > 0 && !num {
			n++
		}
		runs := appendDigitRuns(nil, []byte(line))
		if len(r.dropInertRuns([]byte(line), append([]span(nil), runs...))) < len(runs) {
			dropped++
		}
	}
	if n < rounds/60 || dropped < rounds/60 {
		t.Fatalf("%d lines with a finding in a string, %d with a run dropped: the comparison proves little", n, dropped)
	}
	t.Logf("%d lines with a finding in a string, %d with a run dropped", n, dropped)
}

// FuzzJSONLineExhaustive: JSONLine with its shortcuts (the prefilter's
// hits ruled out, digit runs dropped, escapes flagged by the walk) equals
// its exhaustive path on any input.
func FuzzJSONLineExhaustive(f *testing.F) {
	for _, s := range []string{
		`{"a":"b"}`, `{"password":"hunter2hunter2"}`, `{"c":"card 4111 1111 1111 1111 end"}`,
		`{"k":"https:\/\/user:pa55w0rd@example.com"}`, `{"t":"\u0073k-proj-abcdefghijklmnopqrstuvwxyz0123456789AB"}`,
		`{"n":4111111111111111,"s":"ssn 123-45-6789"}`, `{"id":"4d5611e5-241a-462a-8d15-5122611a9569"}`,
		`["a\\u0041", "x 12345 67890 y"]`, `not json sk-ant-api03-abc`,
	} {
		f.Add([]byte(s))
	}
	r := Default()
	ex := *r
	ex.exhaustive = true
	f.Fuzz(func(t *testing.T, in []byte) {
		got, grep := r.JSONLine(in)
		want, wrep := ex.JSONLine(in)
		if !bytes.Equal(got, want) || grep.Total() != wrep.Total() {
			t.Fatalf("JSONLine(%q):\n got %q (%d)\nwant %q (%d)", in, got, grep.Total(), want, wrep.Total())
		}
	})
}

// TestPrefilterSharedCodes: with more than 63 distinct keyword bytes codes
// are shared and a trigram hit proves nothing about the bytes; with fewer
// the verification skips the trigram's bytes. Both report exactly the
// brute-force hits.
func TestPrefilterSharedCodes(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, nbytes := range []int{20, 63, 64, 90} {
		var alpha []byte
		for c := byte('!'); len(alpha) < nbytes; c++ {
			if c < 'A' || c > 'Z' {
				alpha = append(alpha, c)
			}
		}
		var kws []string
		var owners []int
		for i := range 40 {
			kw := make([]byte, 2+rng.Intn(5))
			for j := range kw {
				kw[j] = alpha[rng.Intn(len(alpha))]
			}
			kws = append(kws, string(kw))
			owners = append(owners, i)
		}
		for _, c := range alpha { // every byte in some keyword
			kws = append(kws, string([]byte{c, alpha[0], alpha[1]}))
			owners = append(owners, len(owners))
		}
		pf := newPrefilter(kws, owners)
		if want := nbytes <= 63; (pf.known == 3) != want {
			t.Fatalf("%d distinct bytes: known %d", nbytes, pf.known)
		}
		for range 3000 {
			b := make([]byte, rng.Intn(40))
			for j := range b {
				b[j] = alpha[rng.Intn(len(alpha))]
				if rng.Intn(4) == 0 {
					b[j] = byte(rng.Intn(128))
				}
			}
			got := pf.scan(b, nil)
			var want []hit
			for at := range b {
				for k, kw := range pf.kws {
					if at+len(kw) <= len(b) {
						ok := true
						for j := range kw {
							if lowerASCII(b[at+j]) != kw[j] {
								ok = false
							}
						}
						if ok {
							want = append(want, hit{matcher: pf.kwOwner[k], start: at, end: at + len(kw)})
						}
					}
				}
			}
			slices.SortStableFunc(got, func(x, y hit) int { return cmpHit(x, y) })
			slices.SortStableFunc(want, func(x, y hit) int { return cmpHit(x, y) })
			if !slices.Equal(got, want) {
				t.Fatalf("%d bytes: scan(%q) = %v, want %v", nbytes, b, got, want)
			}
		}
	}
}

func cmpHit(x, y hit) int {
	if x.start != y.start {
		return x.start - y.start
	}
	if x.end != y.end {
		return x.end - y.end
	}
	return x.matcher - y.matcher
}
