package redact

// scanDigits finds payment card numbers and US social security numbers:
// runs of digit groups separated by single spaces or dashes, delimited by
// bytes that are neither letters, digits, '.', '_' nor another separator.
func (r *Redactor) scanDigits(b []byte, f []Finding) []Finding {
	n := len(b)
	for i := 0; i < n; i++ {
		if b[i] < '0' || b[i] > '9' {
			continue
		}
		start := i
		if start > 0 && digitRunBlocked(b[start-1]) {
			// inside a word or a longer number: skip to its end
			for i < n && (csAlnum[b[i]] || b[i] == '.' || b[i] == '_') {
				i++
			}
			continue
		}
		var groups [8]int
		var digits [24]byte
		ng, nd := 0, 0
		var sep byte
		j := i
		ok := true
		for {
			gs := j
			for j < n && b[j] >= '0' && b[j] <= '9' {
				if nd < len(digits) {
					digits[nd] = b[j]
				}
				nd++
				j++
			}
			if ng < len(groups) {
				groups[ng] = j - gs
			}
			ng++
			if j+1 < n && (b[j] == ' ' || b[j] == '-') && b[j+1] >= '0' && b[j+1] <= '9' && (sep == 0 || sep == b[j]) && ng < len(groups) {
				sep = b[j]
				j++
				continue
			}
			break
		}
		if j < n && digitRunBlocked(b[j]) {
			ok = false
		}
		i = j
		if !ok || nd > len(digits) || ng > len(groups) {
			// advance past the rest of the blocking token
			for i < n && (csAlnum[b[i]] || b[i] == '.' || b[i] == '_') {
				i++
			}
			continue
		}
		if r.ssn && ng == 3 && sep == '-' && groups[0] == 3 && groups[1] == 2 && groups[2] == 4 && validSSN(digits[:9]) {
			f = append(f, Finding{RuleID: "us-ssn", Start: start, End: j})
			continue
		}
		if r.digits && nd >= 13 && nd <= 19 && cardGrouping(groups[:ng]) && cardNumber(digits[:nd]) {
			f = append(f, Finding{RuleID: "credit-card", Start: start, End: j})
		}
	}
	return f
}

func digitRunBlocked(c byte) bool {
	return csAlnum[c] || c == '.' || c == '_' || c == '/' || c == ':' || c == '+' || c == '%' || c == '$' || c == '#' || c == '='
}

func cardGrouping(g []int) bool {
	if len(g) == 1 {
		return true
	}
	// 4-4-4-4(-3), 4-6-5 (Amex), 4-6-4 (Diners)
	if len(g) == 3 && g[0] == 4 && g[1] == 6 && (g[2] == 5 || g[2] == 4) {
		return true
	}
	for i, n := range g {
		if i < len(g)-1 && n != 4 {
			return false
		}
		if i == len(g)-1 && (n < 1 || n > 4) {
			return false
		}
	}
	return len(g) >= 4
}

// cardNumber checks the issuer prefix, the length for that issuer and the
// Luhn digit, and rejects degenerate numbers (one repeated digit).
func cardNumber(d []byte) bool {
	n := len(d)
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	okLen := false
	switch {
	case d[0] == '4': // Visa
		okLen = n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		okLen = n == 16
	case p2 == 34 || p2 == 37: // Amex
		okLen = n == 15
	case p4 == 6011 || p2 == 65 || (p4 >= 6440 && p4 <= 6499): // Discover
		okLen = n >= 16 && n <= 19
	case p4 >= 3528 && p4 <= 3589: // JCB
		okLen = n >= 16 && n <= 19
	case p2 == 36 || p2 == 38 || p2 == 39 || (p4 >= 3000 && p4 <= 3059): // Diners
		okLen = n >= 14 && n <= 19
	}
	if !okLen || distinct(d) < 3 {
		return false
	}
	return luhn(d)
}

func validSSN(d []byte) bool {
	area := string(d[0:3])
	if area == "000" || area == "666" || d[0] == '9' {
		return false
	}
	if string(d[3:5]) == "00" || string(d[5:9]) == "0000" {
		return false
	}
	// the number printed on the 1938 sample card and the one in countless
	// examples
	s := string(d)
	return s != "078051120" && s != "123456789" && distinct(d) >= 3
}
