package redact

import (
	"bytes"
	"encoding/base64"
	"math"
)

// charset is a byte membership table.
type charset [256]bool

func newCharset(spec string) *charset {
	var cs charset
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for c := int(spec[i]); c <= int(spec[i+2]); c++ {
				cs[c] = true
			}
			i += 2
			continue
		}
		cs[spec[i]] = true
	}
	return &cs
}

var (
	csAlnum     = newCharset("A-Za-z0-9")
	csAlnumUS   = newCharset("A-Za-z0-9_")
	csB64URL    = newCharset("A-Za-z0-9_-")
	csB64       = newCharset("A-Za-z0-9+/=")
	csHexLower  = newCharset("0-9a-f")
	csHex       = newCharset("0-9a-fA-F")
	csUpperNum  = newCharset("A-Z0-9")
	csBech32    = newCharset("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
	csIdent     = newCharset("A-Za-z0-9_.-")
	csBearer    = newCharset("A-Za-z0-9._~+/=-")
	csDigit     = newCharset("0-9")
	csURLScheme = newCharset("A-Za-z0-9+.-")
)

func isAlnum(c byte) bool { return csAlnum[c] }

// scanSet returns the end of the run of bytes in cs starting at i, stopping
// after limit bytes.
func scanSet(b []byte, i int, cs *charset, limit int) int {
	end := min(i+limit, len(b))
	for i < end && cs[b[i]] {
		i++
	}
	return i
}

// entropy is the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	var freq [256]int
	for _, c := range b {
		freq[c]++
	}
	n := float64(len(b))
	h := 0.0
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func distinct(b []byte) int {
	var seen [256]bool
	n := 0
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n
}

// classes reports which character classes occur in b.
func classes(b []byte) (lower, upper, digit, other bool) {
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		default:
			other = true
		}
	}
	return
}

// placeholderWords mark values that are documentation, templates or
// references rather than secrets. They are matched case-insensitively as
// substrings.
var placeholderWords = [][]byte{
	[]byte("example"), []byte("your"), []byte("changeme"), []byte("change_me"),
	[]byte("change-me"), []byte("placeholder"), []byte("dummy"), []byte("sample"),
	[]byte("fake"), []byte("xxxx"), []byte("****"), []byte("...."), []byte("redacted"),
	[]byte("insert"), []byte("replace"), []byte("todo"), []byte("_here"), []byte("-here"),
	[]byte("${"), []byte("{{"), []byte("}}"), []byte("%s"), []byte("%("), []byte("<"), []byte(">"),
	[]byte("process.env"), []byte("getenv"), []byte("environ"), []byte("secretsmanager"),
	[]byte("1234567"), []byte("abcdefg"), []byte("qwerty"), []byte("foobar"),
	[]byte("password"), []byte("passwd"), []byte("secret"), []byte("token"), []byte("notreal"),
	[]byte("not-a-real"), []byte("not_a_real"), []byte("test-key"), []byte("testkey"), []byte("mock"),
}

// isPlaceholder reports whether v looks like a template, an example or a
// reference to a secret stored elsewhere.
func isPlaceholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '%', '{', '<', '[', '@', '&', '*':
		return true
	}
	var low [512]byte
	n := min(len(v), len(low))
	for i := 0; i < n; i++ {
		low[i] = lowerASCII(v[i])
	}
	l := low[:n]
	for _, w := range placeholderWords {
		if bytes.Contains(l, w) {
			return true
		}
	}
	return distinct(v) < 4
}

// hasExampleMarker is the check for provider-documented example keys, which
// end in EXAMPLE (AWS) or contain it.
func hasExampleMarker(v []byte) bool {
	return bytes.Contains(v, []byte("EXAMPLE")) || bytes.Contains(v, []byte("example"))
}

// randomLooking is the check applied to token bodies: enough entropy for
// the length and not a run of one repeated pattern.
func randomLooking(body []byte, minEntropy float64) bool {
	if len(body) == 0 {
		return false
	}
	if entropy(body) < minEntropy {
		return false
	}
	return !hasExampleMarker(body) && !bytes.Contains(body, []byte("xxxx")) && !bytes.Contains(body, []byte("XXXX"))
}

// luhn reports whether the digits pass the Luhn checksum.
func luhn(d []byte) bool {
	sum := 0
	alt := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if alt {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		alt = !alt
	}
	return sum%10 == 0
}

// jwtHeaderOK decodes the first JWT segment and checks it is a JSON object
// naming an algorithm or a type.
func jwtHeaderOK(seg []byte) bool {
	if len(seg) > 2048 {
		return false
	}
	dst := make([]byte, base64.RawURLEncoding.DecodedLen(len(seg)))
	seg = bytes.TrimRight(seg, "=")
	n, err := base64.RawURLEncoding.Decode(dst, seg)
	if err != nil {
		return false
	}
	h := dst[:n]
	return len(h) > 2 && h[0] == '{' && (bytes.Contains(h, []byte(`"alg"`)) || bytes.Contains(h, []byte(`"typ"`)))
}
