package redact

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// redactCase redacts a labelled case the way the archive layer would.
func redactCase(r *Redactor, c tpCase) string {
	if c.JSON {
		out, _ := r.JSONLine([]byte(c.Text))
		return string(out)
	}
	out, _ := r.String(c.Text)
	return out
}

// TestRecall requires every generated true positive to be removed, and
// reports recall per rule.
func TestRecall(t *testing.T) {
	r := Default()
	cases := positiveCases(1)
	perRule := map[string][2]int{}
	for _, c := range cases {
		out := redactCase(r, c)
		ok := !strings.Contains(out, c.Secret) && strings.Contains(out, "[REDACTED:")
		x := perRule[c.Rule]
		x[1]++
		if ok {
			x[0]++
		} else {
			t.Errorf("%s (%s): secret not redacted\nin:  %q\nout: %q", c.Rule, c.Where, c.Text, out)
		}
		perRule[c.Rule] = x
	}
	var ids []string
	for id := range perRule {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	total, found := 0, 0
	for _, id := range ids {
		total += perRule[id][1]
		found += perRule[id][0]
	}
	t.Logf("recall %d/%d over %d rules", found, total, len(ids))
	if len(ids) != len(builtinRules) {
		t.Errorf("corpus covers %d rules, want %d", len(ids), len(builtinRules))
	}
}

// TestRuleAttribution checks that each plain-text case is attributed to
// the rule it was generated for.
func TestRuleAttribution(t *testing.T) {
	r := Default()
	for _, c := range positiveCases(2) {
		if c.JSON {
			continue
		}
		found := false
		var got []string
		for _, f := range r.Find([]byte(c.Text)) {
			got = append(got, f.RuleID)
			if f.RuleID == c.Rule && strings.Contains(c.Text[f.Start:f.End], c.Secret) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s (%s): rules %v, secret %q in %q", c.Rule, c.Where, got, c.Secret, c.Text)
		}
	}
}

// TestNearMisses requires zero findings on placeholders, examples,
// references, hashes, UUIDs, base64 images and source code.
func TestNearMisses(t *testing.T) {
	r := Default()
	for i, n := range negativeCases(3) {
		if f := r.Find([]byte(n)); len(f) > 0 {
			var s []string
			for _, x := range f {
				s = append(s, fmt.Sprintf("%s:%q", x.RuleID, n[x.Start:x.End]))
			}
			t.Errorf("near miss %d flagged: %v\n%.300s", i, s, n)
		}
	}
}
