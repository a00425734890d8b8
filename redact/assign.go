package redact

import (
	"bytes"
)

// assignmentKeywords trigger the assignment matcher: a key naming a secret,
// an operator, and a value.
var assignmentKeywords = []string{
	"password", "passwd", "passphrase", "pwd", "secret", "token", "api_key", "apikey", "api-key",
	"access_key", "accesskey", "auth_key", "private_key", "aws_secret", "secretaccesskey",
	"private_key_id", "datadog", "dd_api", "dd_app", "dd-api", "dd-app", "twilio", "mailgun", "discord",
}

// assignmentKeywordBytes are assignmentKeywords as byte slices.
var assignmentKeywordBytes = func() [][]byte {
	out := make([][]byte, len(assignmentKeywords))
	for i, kw := range assignmentKeywords {
		out[i] = []byte(kw)
	}
	return out
}()

var assignmentRules = []string{
	"generic-password", "generic-secret", "generic-token", "generic-api-key", "aws-secret-access-key",
	"gcp-service-account", "datadog-api-key", "twilio-api-key", "mailgun-api-key", "discord-bot-token",
}

// keyStopWords mark keys that name something about a secret (its length,
// file, type, …) rather than the secret itself.
var keyStopWords = [][]byte{
	[]byte("hash"), []byte("digest"), []byte("file"), []byte("path"), []byte("name"), []byte("type"),
	[]byte("url"), []byte("uri"), []byte("length"), []byte("count"), []byte("expir"), []byte("limit"),
	[]byte("max_"), []byte("_max"), []byte("min_"), []byte("_min"), []byte("usage"), []byte("tokens"), []byte("endpoint"), []byte("header"),
	[]byte("prefix"), []byte("field"), []byte("policy"), []byte("rotation"), []byte("param"), []byte("label"),
	[]byte("hint"), []byte("prompt"), []byte("regex"), []byte("pattern"), []byte("format"), []byte("schema"),
	[]byte("version"), []byte("scope"), []byte("mode"), []byte("enabled"), []byte("provider"), []byte("location"),
	[]byte("_ref"), []byte("-ref"), []byte("secretref"), []byte("size"), []byte("dir"), []byte("timeout"), []byte("ttl"), []byte("kind"),
	[]byte("class"), []byte("method"), []byte("strategy"), []byte("reset"), []byte("forgot"), []byte("error"),
	[]byte("message"), []byte("title"), []byte("description"), []byte("help"), []byte("placeholder"),
	[]byte("text"), []byte("manager"), []byte("source"), []byte("_id"), []byte("-id"), []byte("uuid"), []byte("index"),
	[]byte("budget"), []byte("template"), []byte("input"), []byte("output"), []byte("cache"), []byte("_at"),
	[]byte("validat"), []byte("strength"), []byte("rule"), []byte("required"), []byte("list"), []byte("env"),
}

var (
	bPass     = []byte("pass")
	bSecret   = []byte("secret")
	bToken    = []byte("token")
	bPrivKeyI = []byte("private_key_id")
	bAWS      = []byte("aws")
)

var apiKeyWords = [][]byte{[]byte("api_key"), []byte("apikey"), []byte("api-key"), []byte("access_key"), []byte("accesskey"), []byte("auth_key"), []byte("private_key")}

var ddWords = [][]byte{[]byte("datadog"), []byte("dd_api"), []byte("dd_app"), []byte("dd-api"), []byte("dd-app")}

func containsAny(s []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(s, w) {
			return true
		}
	}
	return false
}

// classify decides which rule, if any, reports value v assigned to key
// (given lower-cased). quoted says whether the value was quoted in the
// source.
func classify(key, v []byte, quoted bool) string {
	if len(key) == 0 || len(key) > 80 || len(v) == 0 {
		return ""
	}
	if bytes.Contains(key, bPrivKeyI) {
		if len(v) == 40 && allIn(v, csHexLower) && entropy(v) >= 3 {
			return "gcp-service-account"
		}
		return ""
	}
	if (bytes.Contains(key, bAWS) && bytes.Contains(key, bSecret)) || bytes.Contains(key, []byte("secretaccesskey")) || bytes.Contains(key, []byte("secret_access_key")) {
		if len(v) == 40 && allIn(v, csB64) && entropy(v) >= 3.5 && !hasExampleMarker(v) {
			return "aws-secret-access-key"
		}
	}
	if containsAny(key, ddWords) && (len(v) == 32 || len(v) == 40) && allIn(v, csHexLower) && entropy(v) >= 3 {
		return "datadog-api-key"
	}
	if bytes.Contains(key, []byte("twilio")) && len(v) == 32 && allIn(v, csHexLower) && entropy(v) >= 3 {
		return "twilio-api-key"
	}
	if bytes.Contains(key, []byte("mailgun")) && reMailgunNew().Match(v) {
		return "mailgun-api-key"
	}
	if bytes.Contains(key, []byte("discord")) && reDiscordBot().Match(v) && entropy(v) >= 3.5 {
		return "discord-bot-token"
	}
	if containsAny(key, keyStopWords) || (bytes.HasSuffix(key, []byte("id")) && !bytes.HasSuffix(key, []byte("passwd"))) {
		return ""
	}
	id := ""
	switch {
	case bytes.Contains(key, bPass) || bytes.Equal(key, []byte("pwd")) || bytes.HasSuffix(key, []byte("_pwd")) || bytes.HasSuffix(key, []byte("-pwd")) || bytes.HasSuffix(key, []byte(".pwd")):
		id = "generic-password"
	case bytes.Contains(key, bSecret):
		id = "generic-secret"
	case bytes.Contains(key, bToken):
		id = "generic-token"
	case containsAny(key, apiKeyWords):
		id = "generic-api-key"
	default:
		return ""
	}
	if !genericValueOK(v, quoted, id == "generic-password") {
		return ""
	}
	return id
}

func allIn(v []byte, cs *charset) bool {
	for _, c := range v {
		if !cs[c] {
			return false
		}
	}
	return true
}

// genericValueOK applies the placeholder, reference and entropy checks to
// a value assigned to a secret-sounding key.
func genericValueOK(v []byte, quoted, password bool) bool {
	min := 10
	if password {
		min = 6
	}
	if len(v) < min || len(v) > 4096 || isPlaceholder(v) {
		return false
	}
	if bytes.Contains(v, []byte("://")) || v[0] == '/' || v[0] == '.' || v[0] == '~' || v[0] == '-' {
		return false
	}
	if allIn(v, csDigit) {
		return false
	}
	lower, upper, digit, other := classes(v)
	letters := !digit && !other
	if !digit && reCodeRef().Match(v) && (len(v) < 20 || bytes.ContainsAny(v, "._$") || entropy(v) < 4.2) {
		// identifiers and dotted references: code, not a literal
		return false
	}
	if password {
		if letters && (len(v) < 8 || entropy(v) < 2.8) {
			return false
		}
		return distinct(v) >= 5
	}
	if letters && !(lower && upper && len(v) >= 16) {
		return false
	}
	return entropy(v) >= 3.0
}

var (
	csUnquotedStop      = newCharset(" \t\r\n\"'`;,)]}<>\\([")
	csUnquotedStopQuery = newCharset(" \t\r\n\"'`;&,)]}<>\\([#")
)

// assignmentMatcher finds `key <op> value` where key contains one of the
// assignment keywords.
func assignmentMatcher() matcher {
	return matcher{
		rules:    assignmentRules,
		keywords: assignmentKeywords,
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			ks, ke := h.start, h.end
			for ks > 0 && h.start-ks < 64 && csIdent[b[ks-1]] {
				ks--
			}
			for ke < len(b) && ke-h.end < 64 && csIdent[b[ke]] {
				ke++
			}
			key := b[ks:ke]
			flag := key[0] == '-'
			i := skipQuotes(b, ke)
			sp := skipSpaces(b, i)
			if sp >= len(b) {
				return f
			}
			switch {
			case b[sp] == ':' && !(sp+1 < len(b) && b[sp+1] == ':'):
				i = sp + 1
				if i < len(b) && b[i] == '=' {
					i++
				}
			case b[sp] == '=' && !(sp+1 < len(b) && (b[sp+1] == '=' || b[sp+1] == '~')):
				i = sp + 1
				if i < len(b) && b[i] == '>' {
					i++
				}
			case (b[sp] == '?' || b[sp] == '+') && sp+1 < len(b) && b[sp+1] == '=':
				i = sp + 2
			case flag && sp > i:
				i = sp
			default:
				return f
			}
			i = skipSpaces(b, i)
			if i >= len(b) {
				return f
			}
			// Only the first keyword inside a key does the work. (Checked
			// once an operator follows the key: most keyword hits have
			// none, and the outcome is the same in either order.)
			if first := firstKeywordIn(key); first >= 0 && ks+first != h.start {
				return f
			}
			query := ks > 0 && (b[ks-1] == '?' || b[ks-1] == '&')
			vs, ve, quoted := valueSpan(b, i, query)
			if ve <= vs {
				return f
			}
			var low [80]byte
			if len(key) > len(low) {
				return f
			}
			for j, c := range key {
				low[j] = lowerASCII(c)
			}
			id := classify(low[:len(key)], b[vs:ve], quoted)
			if id == "" || r.allowed(b[vs:ve]) {
				return f
			}
			return append(f, Finding{RuleID: id, Start: vs, End: ve})
		},
	}
}

// firstKeywordIn returns the offset of the first assignment keyword in key
// (case-insensitive), or -1.
func firstKeywordIn(key []byte) int {
	best := -1
	var low [64 + 64 + 16]byte
	if len(key) > len(low) {
		return -1
	}
	for i, c := range key {
		low[i] = lowerASCII(c)
	}
	l := low[:len(key)]
	for _, kw := range assignmentKeywordBytes {
		if k := bytes.Index(l, kw); k >= 0 && (best < 0 || k < best) {
			best = k
		}
	}
	return best
}

// valueSpan parses a quoted (", ', `, or JSON-escaped \") or bare value
// starting at i.
// In a query string (query), '&' and '#' also end a bare value.
func valueSpan(b []byte, i int, query bool) (start, end int, quoted bool) {
	var q byte
	switch b[i] {
	case '"', '\'', '`':
		q = b[i]
		i++
	case '\\':
		j := i
		for j < len(b) && b[j] == '\\' {
			j++
		}
		if j < len(b) && (b[j] == '"' || b[j] == '\'') {
			q = '\\'
			i = j + 1
		} else {
			return i, i, false
		}
	}
	if q != 0 {
		start = i
		limit := min(i+4096, len(b))
		for i < limit {
			c := b[i]
			if c == q || (q == '\\' && (c == '"' || c == '\'')) {
				return start, i, true
			}
			if c == '\n' || c == '\r' || c == ' ' || c == '\t' || (c == '\\' && q != '\\') {
				return start, start, true
			}
			i++
		}
		return start, start, true
	}
	start = i
	stop := csUnquotedStop
	if query {
		stop = csUnquotedStopQuery
	}
	for limit := min(i+4096, len(b)); i < limit && !stop[b[i]]; {
		i++
	}
	if i < len(b) && (b[i] == '(' || b[i] == '[') {
		return start, start, false
	}
	return start, i, false
}
