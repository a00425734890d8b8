package recall

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Digest budgets, in characters (see DigestLen).
const (
	// DefaultDigestBudget is the budget of periodic checkpoint digests and
	// of the startup/clear injection.
	DefaultDigestBudget = 2000
	// RecoveryDigestBudget is the budget of the digest injected after a
	// compaction. Claude Code replaces any additionalContext over 10,000
	// characters with a short preview.
	RecoveryDigestBudget = 9500
	// MaxDigestBudget is the hard cap: larger budgets are lowered to it.
	MaxDigestBudget = 10000
)

// DigestOptions tune Digest.
type DigestOptions struct {
	// Budget is the maximum length of the result in characters as
	// DigestLen counts them; 0 or less means DefaultDigestBudget, and
	// anything over MaxDigestBudget is lowered to it.
	Budget int
	// Summary is the compaction summary already in the new context. Files
	// and commands it already names are left out, requests it already
	// quotes are ranked down, and the budget is spent on the rest.
	Summary string
	// Now dates the header ("2h ago"); the zero time leaves the age out.
	Now time.Time
}

// DigestLen is the length Digest budgets: UTF-16 code units, the way
// Claude Code (JavaScript) counts characters. It is never less than the
// number of runes.
func DigestLen(s string) int {
	n := 0
	for _, r := range s { // an invalid byte counts as one, like U+FFFD
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Digest renders r as a deterministic recovery text of at most
// opts.Budget characters: a header, then the sections Task, Latest
// requests, Files, Commands, Errors and Decisions, always in that order,
// each holding its most relevant items first. Every section gets a share
// of the budget (a few items each, then the rest round-robin, weighted
// towards files and commands), cut at line boundaries; a section that could
// not show everything ends with a "… N more" line, and sections left out
// entirely are named on a last "[not shown …]" line.
func Digest(r Recall, opts DigestOptions) string {
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultDigestBudget
	}
	if budget > MaxDigestBudget {
		budget = MaxDigestBudget
	}
	d := digester{r: r, summary: OneLine(opts.Summary), now: opts.Now, budget: budget}
	d.lineCap = budget / 8
	if d.lineCap < 100 {
		d.lineCap = 100
	}
	if d.lineCap > 640 {
		d.lineCap = 640
	}
	return d.run()
}

type ditem struct {
	text string
	pos  int // rendering position; items are offered in priority order
	n    int // DigestLen(text) + 1 for the newline
}

type dsection struct {
	title  string
	noun   string  // for "… N more <noun>"
	items  []ditem // the candidates in priority order
	extra  int     // entries the Recall's caps already left out
	min    int
	weight int
	// late: beyond its minimum the section gets room only once the
	// sections that are not late are complete or full (errors: a failed
	// command's outcome is on its line in Commands already).
	late    bool
	always  bool   // shown even when it has no items
	empty   string // line shown when always and no items
	taken   int
	full    bool
	itemSum int // sum of n over taken items
}

func (s *dsection) hidden() int { return len(s.items) - s.taken + s.extra }

// render renders candidates 0 to n-1 with item.
func render(n int, item func(k int) ditem) []ditem {
	out := make([]ditem, n)
	for k := range out {
		out[k] = item(k)
	}
	return out
}

// shown: a section appears with at least one item, or, when always, with
// its "empty" line if it has nothing at all.
func (s *dsection) shown() bool {
	return s.taken > 0 || (s.always && len(s.items) == 0 && s.extra == 0)
}

func (s *dsection) moreLine() string {
	return fmt.Sprintf("- … %d more %s not shown", s.hidden(), s.noun)
}

// cost is the section's rendered length with its current items.
func (s *dsection) cost() int {
	if !s.shown() {
		return 0
	}
	c := DigestLen(s.title) + 1 + s.itemSum
	if len(s.items) == 0 && s.extra == 0 {
		return c + DigestLen(s.empty) + 1
	}
	if s.hidden() > 0 {
		c += DigestLen(s.moreLine()) + 1
	}
	return c
}

type digester struct {
	r        Recall
	summary  string
	now      time.Time
	budget   int
	lineCap  int
	header   []string
	sections []*dsection
	// counts of entries left out because the summary already names them
	sumFiles, sumCmds int
	// with a summary: whether it names each of the Recall's files and
	// commands (matchSummary)
	namedFiles, namedCmds []bool
	// abbrevs: the path abbreviations of a dense digest (digest_dense.go)
	abbrevs []abbrev
}

func (d *digester) run() string {
	d.build()
	headerN := 0
	for _, h := range d.header {
		headerN += DigestLen(h) + 1
	}
	total := func() int {
		t := headerN
		for _, s := range d.sections {
			t += s.cost()
		}
		if l := d.notShownLine(); l != "" {
			t += DigestLen(l) + 1
		}
		return t
	}
	try := func(s *dsection) bool {
		if s.full || s.taken >= len(s.items) {
			return false
		}
		it := s.items[s.taken]
		s.taken++
		s.itemSum += it.n
		if total() > d.budget {
			s.itemSum -= it.n
			s.taken--
			s.full = true
			return false
		}
		return true
	}
	// Always-shown sections may not fit at all in a tiny budget.
	for _, s := range d.sections {
		if s.always && total() > d.budget {
			s.always = false
		}
	}
	// First every section's minimum, one item per section and round so
	// that a small budget is shared; then the rest, weighted.
	for round := 0; ; round++ {
		more := false
		for _, s := range d.sections {
			if round < s.min && try(s) {
				more = true
			}
		}
		if !more {
			break
		}
	}
	for _, s := range d.sections {
		s.full = false
	}
	for _, late := range []bool{false, true} {
		for {
			added := false
			for _, s := range d.sections {
				if s.late && !late {
					continue
				}
				for i := 0; i < s.weight; i++ {
					if !try(s) {
						break
					}
					added = true
				}
			}
			if !added {
				break
			}
		}
	}
	return d.render()
}

// notShownLine names the sections left out entirely ("" when none is).
func (d *digester) notShownLine() string {
	var parts []string
	for _, s := range d.sections {
		if !s.shown() && s.hidden() > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", s.noun, s.hidden()))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "[not shown for lack of space: " + strings.Join(parts, ", ") + "]"
}

func (d *digester) render() string {
	var b strings.Builder
	for _, h := range d.header {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	for _, s := range d.sections {
		if !s.shown() {
			continue
		}
		b.WriteString(s.title)
		b.WriteByte('\n')
		if len(s.items) == 0 && s.extra == 0 {
			b.WriteString(s.empty)
			b.WriteByte('\n')
			continue
		}
		chosen := append([]ditem(nil), s.items[:s.taken]...)
		sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].pos < chosen[j].pos })
		for _, it := range chosen {
			b.WriteString(it.text)
			b.WriteByte('\n')
		}
		if s.hidden() > 0 {
			b.WriteString(s.moreLine())
			b.WriteByte('\n')
		}
	}
	if l := d.notShownLine(); l != "" {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return cutToBudget(strings.TrimRight(b.String(), "\n"), d.budget)
}

// cutToBudget is the last guard: it keeps whole lines within budget and
// marks the cut. Digest's allocation normally makes it a no-op; it matters
// when the header alone is longer than a tiny budget.
func cutToBudget(s string, budget int) string {
	if DigestLen(s) <= budget {
		return s
	}
	const marker = "[… truncated]"
	lines := strings.Split(s, "\n")
	var b strings.Builder
	n := 0
	room := budget - DigestLen(marker) - 1
	for _, l := range lines {
		ln := DigestLen(l) + 1
		if n+ln > room {
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
		n += ln
	}
	if room >= 0 {
		b.WriteString(marker)
		return b.String()
	}
	return strings.TrimRight(b.String(), "\n")
}

func newItem(text string, pos int) ditem {
	return ditem{text: text, pos: pos, n: DigestLen(text) + 1}
}

// clip shortens s to at most n characters (DigestLen), ending it with "…".
func clip(s string, n int) string {
	if DigestLen(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	c := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if c+w > n-1 {
			return s[:i] + "…"
		}
		c += w
	}
	return s
}

func (d *digester) build() {
	r := d.r
	if d.summary != "" {
		d.matchSummary()
	}
	d.sections = []*dsection{
		d.taskSection(),
		d.requestSection(),
		d.fileSection(),
		d.commandSection(),
		d.errorSection(),
		d.decisionSection(),
	}
	// Header: who, where, when; then what this digest is.
	h := "# Ben10 context"
	var facts []string
	if id := r.Session.SessionID; id != "" {
		if len(id) > 8 {
			id = id[:8]
		}
		facts = append(facts, "session "+OneLine(id))
	}
	if OneLine(r.Session.Title) != "" {
		facts = append(facts, "“"+clip(OneLine(r.Session.Title), 80)+"”")
	}
	if OneLine(r.Session.GitBranch) != "" {
		facts = append(facts, "branch "+clip(OneLine(r.Session.GitBranch), 60))
	}
	if !r.Session.LastActivity.IsZero() {
		t := "last activity " + r.Session.LastActivity.UTC().Format("2006-01-02 15:04 UTC")
		if age := d.age(r.Session.LastActivity); age != "" {
			t += " (" + age + ")"
		}
		facts = append(facts, t)
	}
	if len(facts) > 0 {
		h += " · " + strings.Join(facts, " · ")
	}
	d.header = append(d.header, h)
	if d.budget < 1200 {
		return // a small budget goes to the sections
	}
	var line []string
	if OneLine(r.Session.Directory) != "" {
		line = append(line, "project "+clip(OneLine(r.Session.Directory), 160))
	}
	line = append(line, fmt.Sprintf("%d messages, %d tool calls, %d files", r.Session.Messages, r.Session.ToolCalls, r.Session.Files))
	if n := len(r.Compactions); n > 0 {
		c := r.Compactions[n-1]
		t := fmt.Sprintf("%d compaction(s), latest %s", n+r.Omitted.Compactions, OneLine(c.Trigger))
		if c.PreTokens > 0 {
			t += " at " + tokens(c.PreTokens) + " tokens"
		}
		line = append(line, t)
	}
	if r.Session.ContextTokens > 0 {
		line = append(line, "context "+tokens(r.Session.ContextTokens)+" tokens")
	}
	d.header = append(d.header, strings.Join(line, "; ")+".")
	if d.summary != "" {
		d.header = append(d.header, fmt.Sprintf("Details the compaction summary may lack; %d files and %d commands it already names are left out.", d.sumFiles, d.sumCmds))
	}
	d.planAbbrevs()
}

func (d *digester) age(t time.Time) string {
	if d.now.IsZero() || t.IsZero() {
		return ""
	}
	a := d.now.Sub(t)
	switch {
	case a < 0:
		return ""
	case a < time.Minute:
		return "just now"
	case a < time.Hour:
		return strconv.Itoa(int(a/time.Minute)) + " min ago"
	case a < 48*time.Hour:
		return strconv.Itoa(int(a/time.Hour)) + " h ago"
	default:
		return strconv.Itoa(int(a/(24*time.Hour))) + " days ago"
	}
}

func tokens(n int64) string {
	if n >= 1000 {
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func (d *digester) taskSection() *dsection {
	s := &dsection{title: "## Task and todos", noun: "todos", min: 4, weight: 1, always: true,
		empty: "- no todo list recorded; the latest request below is the current task"}
	t := d.r.Tasks
	na, np := len(t.Active), len(t.Pending)
	s.items = render(na+np+len(t.Completed), func(k int) ditem {
		var task Task
		tag := "done"
		switch {
		case k < na:
			task, tag = t.Active[k], "in progress"
			if task.Status == "pending" {
				tag = "pending"
			}
		case k < na+np:
			task, tag = t.Pending[k-na], "pending"
		default:
			task = t.Completed[len(t.Completed)-1-(k-na-np)]
		}
		text := task.Content
		if tag == "in progress" && task.ActiveForm != "" && text == "" {
			text = task.ActiveForm
		}
		return newItem(clip("- ["+tag+"] "+OneLine(text), d.lineCap), k)
	})
	s.extra = d.r.Omitted.Tasks
	return s
}

func (d *digester) requestSection() *dsection {
	s := &dsection{title: "## Latest requests (newest first)", noun: "requests", min: 2, weight: 1, always: true,
		empty: "- none recorded"}
	type req struct {
		text    string
		pos     int
		initial bool
		inSum   bool
	}
	var rs []req
	for i, q := range d.r.Requests {
		rs = append(rs, req{text: q.Text, pos: i})
	}
	if in := d.r.Initial; in != nil {
		rs = append(rs, req{text: in.Text, pos: len(rs), initial: true})
	}
	for i := range rs {
		rs[i].inSum = d.summary != "" && len(rs[i].text) >= 12 && strings.Contains(d.summary, clipBytes(OneLine(rs[i].text), 80))
	}
	// Priority: the newest request, the first one (the session's intent),
	// then the others newest first; requests the summary quotes come last.
	rank := func(q req) int {
		switch {
		case q.pos == 0:
			return 0
		case q.inSum:
			return 3
		case q.initial:
			return 1
		default:
			return 2
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rank(rs[i]) < rank(rs[j]) })
	for _, q := range rs {
		prefix := "- "
		if q.initial {
			prefix = "- first request: "
		}
		s.items = append(s.items, newItem(clip(prefix+"“"+OneLine(q.text)+"”", d.lineCap), q.pos))
	}
	s.extra = d.r.Omitted.Requests
	return s
}

func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (d *digester) fileSection() *dsection {
	s := &dsection{title: "## Files (edited first, most recent first)", noun: "files", min: 4, weight: 3}
	// Candidates: edited or written files, then read ones, then searched
	// ones, each group in the Recall's order (most recent first).
	files := d.r.Files
	var groups [3][]int32
	named := d.namedFiles
	for i := range files {
		f := &files[i]
		if named != nil && named[i] {
			d.sumFiles++
			continue
		}
		g := 2
		switch {
		case f.Modified():
			g = 0
		case f.Reads > 0:
			g = 1
		}
		groups[g] = append(groups[g], int32(i))
	}
	order := append(append(groups[0], groups[1]...), groups[2]...)
	s.items = render(len(order), func(pos int) ditem {
		f := &files[order[pos]]
		var c []string
		if f.Edits > 0 {
			c = append(c, "edit "+strconv.Itoa(f.Edits))
		}
		if f.Writes > 0 {
			c = append(c, "write "+strconv.Itoa(f.Writes))
		}
		if f.Reads > 0 {
			c = append(c, "read "+strconv.Itoa(f.Reads))
		}
		if f.Searches > 0 {
			c = append(c, "search "+strconv.Itoa(f.Searches))
		}
		line := "- " + OneLine(f.Path)
		if len(c) > 0 {
			line += " (" + strings.Join(c, ", ") + ")"
		}
		return newItem(clip(line, d.lineCap), pos)
	})
	s.extra = d.r.Omitted.Files
	return s
}

func (d *digester) commandSection() *dsection {
	s := &dsection{title: "## Commands (newest first, with outcome)", noun: "commands", min: 3, weight: 3}
	cmds := d.r.Commands
	order := make([]int32, 0, len(cmds)) // the commands the summary does not name
	for i := range cmds {
		if d.namedCmds != nil && d.namedCmds[i] {
			d.sumCmds++
			continue
		}
		order = append(order, int32(i))
	}
	s.items = render(len(order), func(pos int) ditem {
		c := &cmds[order[pos]]
		line := "- `" + OneLine(c.Command) + "`"
		if c.Lines > 1 {
			line += fmt.Sprintf(" (+%d lines)", c.Lines-1)
		}
		if c.Runs > 1 {
			line += fmt.Sprintf(" ×%d", c.Runs)
		}
		switch {
		case c.NoResult:
			line += " → no result recorded"
		case c.OK:
			line += " → ok"
		case c.ExitKnown:
			line += fmt.Sprintf(" → exit %d", c.Exit)
		default:
			line += " → failed"
		}
		if !c.OK && c.Error != "" {
			line += ": " + clip(OneLine(c.Error), 120)
		}
		if c.OK && c.Failures > 0 {
			line += fmt.Sprintf(" (failed %d of %d runs)", c.Failures, c.Runs)
		}
		// A command is one line however long; clip it only beyond the
		// Recall's own cap so that its text stays searchable.
		return newItem(clip(line, CommandBytes+160), pos)
	})
	s.extra = d.r.Omitted.Commands
	d.groupCommands(s, cmds, order)
	return s
}

func (d *digester) errorSection() *dsection {
	s := &dsection{title: "## Errors (unresolved first)", noun: "errors", min: 2, weight: 1, late: true}
	errs := d.r.Errors
	order := make([]int32, 0, len(errs)) // unresolved first, then in the Recall's order
	for _, resolved := range []bool{false, true} {
		for i := range errs {
			if errs[i].Resolved == resolved {
				order = append(order, int32(i))
			}
		}
	}
	s.items = render(len(order), func(i int) ditem {
		e := &errs[order[i]]
		state := "unresolved"
		if e.Resolved {
			state = "resolved later"
		}
		if e.Count > 1 {
			state += fmt.Sprintf(", %d×", e.Count)
		}
		subj := OneLine(e.Subject)
		if subj != "" && subj != e.Tool {
			if strings.EqualFold(e.Tool, "bash") || strings.Contains(strings.ToLower(e.Tool), "shell") || strings.Contains(strings.ToLower(e.Tool), "exec") {
				subj = "`" + clip(subj, 80) + "`"
			} else {
				subj = clip(subj, 120)
			}
			subj = OneLine(e.Tool) + " " + subj
		} else {
			subj = OneLine(e.Tool)
		}
		line := "- [" + state + "] " + subj
		if e.Message != "" {
			line += ": " + OneLine(e.Message)
		}
		return newItem(clip(line, d.lineCap), i)
	})
	s.extra = d.r.Omitted.Errors
	return s
}

func (d *digester) decisionSection() *dsection {
	s := &dsection{title: "## Decisions and preferences", noun: "decisions", min: 1, weight: 1}
	ds := d.r.Decisions
	s.items = render(len(ds), func(i int) ditem {
		return newItem(clip("- "+OneLine(ds[i].Kind)+": "+OneLine(ds[i].Text), d.lineCap), i)
	})
	s.extra = d.r.Omitted.Decisions
	return s
}

// matchSummary sets namedFiles and namedCmds: for each of the Recall's
// files whether the normalised summary names its path, as written or in
// absolute form, and for each command whether it names the command, not
// as part of a longer path or name (containsTerm). All terms are matched
// in one pass over the summary.
func (d *digester) matchSummary() {
	files, cmds := d.r.Files, d.r.Commands
	nf := len(files)
	terms := make([]string, nf+len(cmds), 2*nf+len(cmds))
	for i := range files {
		terms[i] = files[i].Path
	}
	for i := range cmds {
		terms[nf+i] = cmds[i].Command
	}
	// abs[i]: the index in terms of file i's absolute form, or -1.
	abs := make([]int32, nf)
	dir := CleanDir(d.r.Session.Directory)
	for i := range files {
		abs[i] = -1
		if p := files[i].Path; dir != "" && !strings.HasPrefix(p, "/") && !isWinAbs(p) {
			abs[i] = int32(len(terms))
			terms = append(terms, dir+"/"+p)
		}
	}
	named := make([]bool, len(terms))
	containsTerms(d.summary, terms, named)
	for i := range files {
		if !named[i] && abs[i] >= 0 {
			named[i] = named[abs[i]]
		}
	}
	d.namedFiles, d.namedCmds = named[:nf], named[nf:nf+len(cmds)]
}

func isWinAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// containsTerm reports whether text holds term as a whole: no path
// character (letter, digit, _ - . / \) right before it and no name
// character (the same but '.') right after it. "ls" is not in "tools", and
// "a.ex" is not in "a.exs", but "lib/a.ex" is in "see `lib/a.ex`.".
func containsTerm(text, p string) bool {
	if p == "" {
		return false
	}
	for off := 0; off <= len(text)-len(p); {
		i := strings.Index(text[off:], p)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(p):])
		if (i == 0 || !isPathRune(before)) && (i+len(p) == len(text) || !isNameRune(after)) {
			return true
		}
		off = i + 1
	}
	return false
}

func isNameRune(r rune) bool {
	return r == '_' || r == '/' || r == '\\' || r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
}

func isPathRune(r rune) bool { return isNameRune(r) || r == '.' }
