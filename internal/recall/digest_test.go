package recall

import (
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var sectionTitles = []string{
	"## Task and todos",
	"## Latest requests (newest first)",
	"## Files (edited first, most recent first)",
	"## Commands (newest first, with outcome)",
	"## Errors (unresolved first)",
	"## Decisions and preferences",
}

func TestContainsTerm(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"see `lib/a.ex`.", "lib/a.ex", true},
		{"see lib/a.exs", "lib/a.ex", false},
		{"see /x/lib/a.ex", "lib/a.ex", false},
		{"some tools", "ls", false},
		{"ran ls and git status", "ls", true},
		{"git push --set-upstream", "git push", true},
		{"lib/a.ex", "lib/a.ex", true},
		{"x", "", false},
		{"prefix-lib/a.ex", "lib/a.ex", false},
		{"lib/a.ex lib/a.ex", "lib/a.ex", true},
		{"xlib/a.ex, lib/a.ex", "lib/a.ex", true},
	} {
		if got := containsTerm(tc.text, tc.term); got != tc.want {
			t.Errorf("containsTerm(%q, %q) = %v, want %v", tc.text, tc.term, got, tc.want)
		}
	}
}

func TestMoreLineCost(t *testing.T) {
	for _, hidden := range []int{1, 9, 10, 12345} {
		s := &dsection{title: "## Files", noun: "files", items: make([]ditem, hidden+1), taken: 1}
		s.items[0] = newItem("- x", 0)
		s.itemSum = s.items[0].n
		want := DigestLen(s.title) + 1 + s.itemSum + DigestLen(s.moreLine()) + 1
		if got := s.cost(); got != want || s.hidden() != hidden {
			t.Errorf("hidden %d: cost %d, want %d", s.hidden(), got, want)
		}
	}
}

func TestDigestLen(t *testing.T) {
	if n := DigestLen("aé😀"); n != 4 {
		t.Fatalf("DigestLen = %d, want 4 (the emoji is two UTF-16 units)", n)
	}
	if got := clip("ab😀cd", 4); got != "ab…" && DigestLen(got) > 4 {
		t.Fatalf("clip = %q", got)
	}
}

func checkSectionOrder(t *testing.T, d string) {
	t.Helper()
	last := -1
	for _, title := range sectionTitles {
		i := strings.Index(d, "\n"+title+"\n")
		if i < 0 {
			continue
		}
		if i < last {
			t.Fatalf("section %q out of order:\n%s", title, d)
		}
		last = i
	}
}

// randomRecall builds a Recall with random sizes and hostile strings
// (archive's tests check the same properties on recalls BuildRecall makes).
func randomRecall(rng *rand.Rand) Recall {
	words := []string{"a", "é", "😀", "lib/x.go", "\x00", "\xff", "`", "\n", "  ", strings.Repeat("w", 300), "☃", "\u2028"}
	str := func() string {
		var b strings.Builder
		for i := rng.Intn(12); i >= 0; i-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		return b.String()
	}
	at := func(i int) time.Time {
		return time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	}
	r := Recall{Version: 1, Session: RecallSession{SessionID: str(), Directory: "/p", GitBranch: str(), Title: str(), LastActivity: at(99)}}
	for i := rng.Intn(14); i >= 0; i-- {
		r.Requests = append(r.Requests, RecallRequest{Text: str(), Time: at(i)})
	}
	for i := rng.Intn(80); i >= 0; i-- {
		switch rng.Intn(3) {
		case 0:
			r.Commands = append(r.Commands, RecallCommand{Command: str(), Runs: 1 + rng.Intn(3), OK: rng.Intn(2) == 0, ExitKnown: true, Exit: 1, Error: str(), Seq: i})
		case 1:
			r.Files = append(r.Files, RecallFile{Path: str(), Edits: rng.Intn(2), Reads: rng.Intn(3), Seq: i})
		default:
			r.Errors = append(r.Errors, RecallError{Tool: "Bash", Subject: str(), Message: str(), Count: 1 + rng.Intn(2), Resolved: rng.Intn(2) == 0, Seq: i})
		}
	}
	for i := rng.Intn(10); i >= 0; i-- {
		r.Tasks.Active = append(r.Tasks.Active, Task{Content: str(), Status: "in_progress"})
		r.Tasks.Completed = append(r.Tasks.Completed, Task{Content: str(), Status: "completed"})
		r.Decisions = append(r.Decisions, RecallDecision{Kind: "correction", Text: str()})
	}
	return r
}

// TestDigestProperties: for random recalls and budgets the digest is within
// budget, valid UTF-8, deterministic, keeps the section order, and is made
// of whole lines of the unconstrained digest plus "more"/marker lines.
func TestDigestProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		r := randomRecall(rng)
		budget := rng.Intn(MaxDigestBudget+2000) - 50
		summary := ""
		if rng.Intn(2) == 0 {
			summary = "lib/x.go `a` é"
		}
		opts := DigestOptions{Budget: budget, Summary: summary}
		d := Digest(r, opts)
		limit := budget
		if limit <= 0 {
			limit = DefaultDigestBudget
		}
		if limit > MaxDigestBudget {
			limit = MaxDigestBudget
		}
		if n := DigestLen(d); n > limit {
			t.Fatalf("case %d: %d characters over budget %d", i, n, limit)
		}
		if !utf8.ValidString(d) {
			t.Fatalf("case %d: invalid UTF-8", i)
		}
		if d2 := Digest(r, opts); d2 != d {
			t.Fatalf("case %d: not deterministic", i)
		}
		checkSectionOrder(t, d)
		full := unboundedDigest(r, summary)
		fullLines := map[string]bool{}
		for _, l := range strings.Split(full, "\n") {
			fullLines[l] = true
		}
		for _, l := range denseLines(d) {
			if fullLines[l] || strings.HasPrefix(l, "- … ") || strings.HasPrefix(l, "[not shown") || l == "[… truncated]" || l == "" {
				continue
			}
			if clippedOf(l, fullLines) {
				continue // smaller budgets clip long lines shorter
			}
			t.Fatalf("case %d (budget %d): line %q is not a whole line of the full digest", i, budget, l)
		}
	}
}

// unboundedDigest renders every candidate line, with the longest line cap.
func unboundedDigest(r Recall, summary string) string {
	d := digester{r: r, summary: OneLine(summary), budget: 1 << 30, lineCap: 640}
	return d.run()
}

func clippedOf(l string, full map[string]bool) bool {
	p, ok := strings.CutSuffix(l, "…")
	if !ok {
		return false
	}
	for f := range full {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

// denseLines returns d's lines with its dense notation (digest_dense.go)
// written out: abbreviations expanded, the legend left out, and each
// command group line replaced by the lines of its commands, as the
// digest writes them when it does not group.
func denseLines(d string) []string {
	var pairs []string
	for _, l := range strings.Split(d, "\n") {
		if legend, ok := strings.CutPrefix(l, "Path abbreviations: "); ok {
			for _, e := range strings.Split(legend, "; ") {
				if name, prefix, ok := strings.Cut(e, " = "); ok {
					pairs = append(pairs, name+"/", prefix+"/")
				}
			}
		}
	}
	if len(pairs) > 0 {
		d = strings.NewReplacer(pairs...).Replace(d)
	}
	var out []string
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "Path abbreviations: ") {
			continue
		}
		key, rest, ok := strings.Cut(strings.TrimPrefix(l, "- `"), "` ×")
		_, variants, grouped := strings.Cut(rest, " → ok: ")
		if !strings.HasPrefix(l, "- `") || !ok || !grouped {
			out = append(out, l)
			continue
		}
		for _, v := range strings.Split(variants, " · ") {
			cmd, runs, _ := strings.Cut(strings.TrimPrefix(v, "`"), "`")
			out = append(out, "- `"+key+" "+cmd+"`"+runs+" → ok")
		}
	}
	return out
}
