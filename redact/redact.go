package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// DefaultReplacement is the replacement format: %s is the rule id.
const DefaultReplacement = "[REDACTED:%s]"

// ErrConfig is wrapped by every error New returns for an invalid Config.
var ErrConfig = errors.New("redact: invalid config")

// UserRule is a rule added from configuration.
type UserRule struct {
	// ID names the rule; it must be [a-z0-9-]+ and not a built-in id.
	ID string
	// Regex is a Go regular expression. If it has a capture group, group 1
	// is the secret; otherwise the whole match is.
	Regex string
	// Keywords are strings (matched case-insensitively) of which one must
	// occur near a match; the regex runs only on the line around each hit.
	// Without keywords the regex runs over the whole input.
	Keywords []string
}

// Config selects and extends the rules. The zero Config is every built-in
// rule with the default replacement and a random fingerprint salt.
type Config struct {
	// Disabled lists rule ids to turn off.
	Disabled []string
	// Extra adds user rules.
	Extra []UserRule
	// Allow lists regular expressions; a finding whose secret matches one
	// of them is not redacted.
	Allow []string
	// AllowPaths lists globs (see Excluded for the syntax) of files whose
	// contents are never redacted; callers ask with PathAllowed.
	AllowPaths []string
	// Replacement is the replacement format; "%s" is replaced by the rule
	// id. Empty means DefaultReplacement.
	Replacement string
	// Salt keys the fingerprints. Empty means a random salt per Redactor,
	// so fingerprints can only be compared within one Redactor.
	Salt []byte
}

// Finding is one detected secret: input[Start:End].
type Finding struct {
	RuleID     string
	Start, End int
}

// Fingerprint identifies a redacted secret without revealing it: the first
// 16 hex digits of HMAC-SHA256(salt, secret).
type Fingerprint struct {
	RuleID string `json:"rule" msgpack:"rule"`
	Hash   string `json:"hash" msgpack:"hash"`
}

// Report summarizes what a call redacted. The zero Report means nothing.
type Report struct {
	Counts       map[string]int `json:"counts,omitempty" msgpack:"counts,omitempty"`
	Fingerprints []Fingerprint  `json:"fingerprints,omitempty" msgpack:"fingerprints,omitempty"`
}

// Total is the number of redactions in the report.
func (r Report) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Merge adds o's counts and fingerprints (without duplicates) to r.
func (r *Report) Merge(o Report) {
	if len(o.Counts) == 0 && len(o.Fingerprints) == 0 {
		return
	}
	if r.Counts == nil {
		r.Counts = make(map[string]int, len(o.Counts))
	}
	for k, v := range o.Counts {
		r.Counts[k] += v
	}
	for _, fp := range o.Fingerprints {
		r.addFingerprint(fp)
	}
}

func (r *Report) addFingerprint(fp Fingerprint) {
	if !slices.Contains(r.Fingerprints, fp) {
		r.Fingerprints = append(r.Fingerprints, fp)
	}
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	matchers   []matcher
	pf         *prefilter
	digits     bool // credit-card scan on
	ssn        bool // ssn scan on
	allow      []*regexp.Regexp
	allowPaths []string
	repl       string
	replPrefix []byte // literal text before %s, used to recognise our own output
	salt       []byte
	priority   map[string]int
	fullScan   []int // user matchers without keywords
	// exhaustive turns off JSONLine's shortcuts (hits ruled out from the
	// raw bytes, the line's hits and digit runs reused for a string):
	// every string with a hit is decoded and scanned again. Tests compare
	// the two paths.
	exhaustive bool
}

var ruleIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

// New compiles a Redactor from cfg.
func New(cfg Config) (*Redactor, error) {
	builtinIDs := map[string]bool{}
	for _, r := range builtinRules {
		builtinIDs[r.ID] = true
	}
	disabled := map[string]bool{}
	for _, id := range cfg.Disabled {
		if !builtinIDs[id] && !slices.ContainsFunc(cfg.Extra, func(u UserRule) bool { return u.ID == id }) {
			return nil, fmt.Errorf("%w: disabled rule %q does not exist", ErrConfig, id)
		}
		disabled[id] = true
	}
	r := &Redactor{repl: cfg.Replacement, priority: map[string]int{}}
	if r.repl == "" {
		r.repl = DefaultReplacement
	}
	if strings.Count(r.repl, "%s") > 1 {
		return nil, fmt.Errorf("%w: replacement %q has more than one %%s", ErrConfig, r.repl)
	}
	if !utf8.ValidString(r.repl) {
		return nil, fmt.Errorf("%w: replacement is not valid UTF-8", ErrConfig)
	}
	pre, _, _ := strings.Cut(r.repl, "%s")
	if len(pre) >= 3 {
		r.replPrefix = []byte(pre)
	} else {
		r.replPrefix = []byte(r.repl)
	}
	if len(cfg.Salt) > 0 {
		r.salt = append([]byte(nil), cfg.Salt...)
	} else {
		r.salt = make([]byte, 16)
		if _, err := rand.Read(r.salt); err != nil {
			return nil, fmt.Errorf("redact: generating salt: %w", err)
		}
	}
	for i, a := range cfg.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("%w: allow[%d] %q: %w", ErrConfig, i, a, err)
		}
		r.allow = append(r.allow, re)
	}
	for i, g := range cfg.AllowPaths {
		if err := checkGlob(g); err != nil {
			return nil, fmt.Errorf("%w: allow_paths[%d] %q: %w", ErrConfig, i, g, err)
		}
	}
	r.allowPaths = append([]string(nil), cfg.AllowPaths...)

	for i, rule := range builtinRules {
		p := i
		if strings.HasPrefix(rule.ID, "generic-") || rule.ID == "authorization-header" || rule.ID == "url-password" || rule.ID == "database-connection-string" {
			p += 1000
		}
		r.priority[rule.ID] = p
	}
	for _, m := range builtinMatchers() {
		var keep []string
		for _, id := range m.rules {
			if !disabled[id] {
				keep = append(keep, id)
			}
		}
		if len(keep) == 0 {
			continue
		}
		m.rules = keep
		r.matchers = append(r.matchers, m)
	}
	r.digits = !disabled["credit-card"]
	r.ssn = !disabled["us-ssn"]

	seen := map[string]bool{}
	for i, u := range cfg.Extra {
		if !ruleIDRe().MatchString(u.ID) {
			return nil, fmt.Errorf("%w: extra[%d]: rule id %q must match %s", ErrConfig, i, u.ID, ruleIDRe())
		}
		if builtinIDs[u.ID] || seen[u.ID] {
			return nil, fmt.Errorf("%w: extra[%d]: rule id %q is already defined", ErrConfig, i, u.ID)
		}
		seen[u.ID] = true
		re, err := regexp.Compile(u.Regex)
		if err != nil {
			return nil, fmt.Errorf("%w: extra[%d] %q: %w", ErrConfig, i, u.ID, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("%w: extra[%d] %q: regex matches the empty string", ErrConfig, i, u.ID)
		}
		r.priority[u.ID] = 500 + i
		if disabled[u.ID] {
			continue
		}
		var kws []string
		for _, k := range u.Keywords {
			if k == "" {
				return nil, fmt.Errorf("%w: extra[%d] %q: empty keyword", ErrConfig, i, u.ID)
			}
			kws = append(kws, strings.ToLower(k))
		}
		m := userMatcher(u.ID, kws, re)
		if len(kws) == 0 {
			r.fullScan = append(r.fullScan, len(r.matchers))
		}
		r.matchers = append(r.matchers, m)
	}

	var kws []string
	var owners []int
	for i, m := range r.matchers {
		for _, k := range m.keywords {
			kws = append(kws, k)
			owners = append(owners, i)
		}
	}
	r.pf = newPrefilter(kws, owners)
	return r, nil
}

// userMatcher runs re on the line around each keyword hit (at most 4 KiB
// either side), or on the whole input when there are no keywords.
func userMatcher(id string, keywords []string, re *regexp.Regexp) matcher {
	return matcher{
		rules:    []string{id},
		keywords: keywords,
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			ws, we := 0, len(b)
			if h.end > h.start {
				ws, we = h.start, h.end
				for ws > 0 && h.start-ws < 4096 && b[ws-1] != '\n' {
					ws--
				}
				for we < len(b) && we-h.end < 4096 && b[we] != '\n' {
					we++
				}
			}
			w := b[ws:we]
			for _, m := range re.FindAllSubmatchIndex(w, -1) {
				s, e := m[0], m[1]
				if len(m) >= 4 && m[2] >= 0 {
					s, e = m[2], m[3]
				}
				if e > s {
					f = append(f, Finding{RuleID: id, Start: ws + s, End: ws + e})
				}
			}
			return f
		},
	}
}

// defaultRedactor is built on first use, not at package init, so that
// commands that never redact do not pay for it at start-up.
var defaultRedactor = sync.OnceValue(func() *Redactor {
	r, err := New(Config{})
	if err != nil {
		panic(err) // the built-in configuration is a constant
	}
	return r
})

// Default returns a Redactor with every built-in rule, the default
// replacement and a random per-process fingerprint salt.
func Default() *Redactor { return defaultRedactor() }

// allowed reports whether secret matches the allowlist or is our own
// replacement text.
func (r *Redactor) allowed(secret []byte) bool {
	if len(r.replPrefix) > 0 && bytes.Contains(secret, r.replPrefix) {
		return true
	}
	for _, re := range r.allow {
		if re.Match(secret) {
			return true
		}
	}
	return false
}

// PathAllowed reports whether path matches Config.AllowPaths, i.e. the
// caller should store that file's contents without redaction.
func (r *Redactor) PathAllowed(path string) bool {
	return len(r.allowPaths) > 0 && Excluded(path, r.allowPaths)
}

// Find returns the secrets in b, sorted by position and not overlapping.
func (r *Redactor) Find(b []byte) []Finding {
	return r.find(b, nil)
}

// find is Find with an optional reusable hit buffer.
func (r *Redactor) find(b []byte, scratch *[]hit) []Finding {
	var hits []hit
	if scratch != nil {
		hits = r.pf.scan(b, (*scratch)[:0])
		*scratch = hits
	} else {
		hits = r.pf.scan(b, nil)
	}
	return r.findHits(b, hits)
}

// findHits is find given b's keyword hits (all of them, or at least every
// one whose matcher could find something there).
func (r *Redactor) findHits(b []byte, hits []hit) []Finding {
	var f []Finding
	for _, h := range hits {
		f = r.matchers[h.matcher].check(r, b, h, f)
	}
	for _, mi := range r.fullScan {
		f = r.matchers[mi].check(r, b, hit{matcher: mi}, f)
	}
	// Whatever scanDigits finds (an SSN's 9 digits, a card's 13 to 19,
	// in groups split by single spaces or dashes) lies in a stretch
	// hasDigitRun sees, which it finds probing every 9th byte.
	if (r.digits || r.ssn) && (hasDigitRun(b) || r.exhaustive) {
		f = r.scanDigits(b, f)
	}
	if len(f) == 0 {
		return nil
	}
	return r.normalize(b, f)
}

// normalize filters findings of disabled rules and the allowlist, aligns
// them to UTF-8 boundaries, sorts them and merges overlaps (the more
// specific rule names the merged finding).
func (r *Redactor) normalize(b []byte, f []Finding) []Finding {
	out := f[:0]
	for _, x := range f {
		if !r.enabled(x.RuleID) {
			continue
		}
		x.Start, x.End = alignUTF8(b, x.Start, x.End)
		if x.End <= x.Start || r.allowed(b[x.Start:x.End]) {
			continue
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].End > out[j].End
	})
	return mergeSpans(r, out)
}

func (r *Redactor) enabled(id string) bool {
	switch id {
	case "credit-card":
		return r.digits
	case "us-ssn":
		return r.ssn
	}
	return slices.ContainsFunc(r.matchers, func(m matcher) bool { return slices.Contains(m.rules, id) })
}

// alignUTF8 widens [s,e) so it neither starts nor ends inside a multi-byte
// UTF-8 sequence.
func alignUTF8(b []byte, s, e int) (int, int) {
	s, e = max(s, 0), min(e, len(b))
	for k := 0; s > 0 && k < 3 && !utf8.RuneStart(b[s]); k++ {
		s--
	}
	for k := 0; e < len(b) && k < 3 && !utf8.RuneStart(b[e]); k++ {
		e++
	}
	return s, e
}

// replacement renders the replacement text for rule id.
func (r *Redactor) replacement(id string) string {
	return strings.Replace(r.repl, "%s", id, 1)
}

func (r *Redactor) fingerprint(id string, secret []byte) Fingerprint {
	m := hmac.New(sha256.New, r.salt)
	m.Write(secret)
	sum := m.Sum(nil)
	return Fingerprint{RuleID: id, Hash: hex.EncodeToString(sum[:8])}
}

// maxRounds bounds the re-scan after a redaction; a round only happens when
// the previous one changed something.
const maxRounds = 4

// Bytes redacts plain text. When nothing is found it returns b itself and a
// zero Report without allocating; otherwise a new slice.
func (r *Redactor) Bytes(b []byte) ([]byte, Report) {
	f := r.Find(b)
	if len(f) == 0 {
		return b, Report{}
	}
	var rep Report
	out := b
	for round := 0; len(f) > 0 && round < maxRounds; round++ {
		out = r.apply(out, f, &rep, nil)
		f = r.Find(out)
	}
	return out, rep
}

// String is Bytes for strings.
func (r *Redactor) String(s string) (string, Report) {
	b := []byte(s)
	out, rep := r.Bytes(b)
	if rep.Total() == 0 {
		return s, rep
	}
	return string(out), rep
}

// apply replaces findings in b, recording them in rep. enc, when set,
// encodes the replacement text (JSON string context).
func (r *Redactor) apply(b []byte, f []Finding, rep *Report, enc func(dst []byte, s string) []byte) []byte {
	out := make([]byte, 0, len(b))
	prev := 0
	for _, x := range f {
		out = append(out, b[prev:x.Start]...)
		if enc != nil {
			out = enc(out, r.replacement(x.RuleID))
		} else {
			out = append(out, r.replacement(x.RuleID)...)
		}
		prev = x.End
		r.record(rep, x.RuleID, b[x.Start:x.End])
	}
	return append(out, b[prev:]...)
}

func (r *Redactor) record(rep *Report, id string, secret []byte) {
	if rep.Counts == nil {
		rep.Counts = map[string]int{}
	}
	rep.Counts[id]++
	rep.addFingerprint(r.fingerprint(id, secret))
}
