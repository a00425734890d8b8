package redact

import (
	"bytes"
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

// TestWalkerEscapes: the walk accepts every escape and returns each
// string's raw bytes, and a valid line has an escape that could hide a
// keyword exactly when one of its strings does.
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
			anyEsc = anyEsc || hasASCIIEscape(raw)
		}
		if want := hasASCIIEscape(b); anyEsc != want {
			t.Fatalf("%s: strings' esc %v, line's %v", b, anyEsc, want)
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
			for _, x := range f {
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
