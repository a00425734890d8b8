package recall

import (
	"sort"
	"strconv"
	"strings"
)

// Dense rendering. When the files and commands a digest could show do not
// fit its budget, long directory prefixes that many of them share (a Go
// module cache path, a checkout elsewhere on disk) are written once, in a
// legend line of the header, and replaced by a short name:
//
//	Path abbreviations: {P1} = /Users/u/go/pkg/mod/github.com/x/y@v1.2.3; {P2} = …
//	- `sed -n '1,80p' {P1}/test/corpus/create.txt` → ok
//
// The names are numbered in the order chosen (largest saving first).

const (
	// abbrevMinPrefix is the shortest prefix worth abbreviating.
	abbrevMinPrefix = 20
	// abbrevMax bounds the legend.
	abbrevMax = 9
	// abbrevScan bounds how many candidate lines are scanned for prefixes.
	abbrevScan = 2000
	// abbrevMinBudget: smaller digests are never abbreviated.
	abbrevMinBudget = 4000
)

// abbrev is one chosen prefix and its name.
type abbrev struct {
	prefix, name string
}

// pathTokens splits s at spaces, quotes, '=' and other separators into
// the tokens that hold a '/': the candidates for a shared prefix.
func pathTokens(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ' ', '\t', '"', '\'', '`', '=', '(', ')', ';', '|', '&', '<', '>', ',':
			return true
		}
		return false
	})
	out := f[:0]
	for _, t := range f {
		if strings.Contains(t, "/") && len(t) >= abbrevMinPrefix {
			out = append(out, t)
		}
	}
	return out
}

// chooseAbbrevs picks up to abbrevMax directory prefixes (ending in '/'
// but kept without it) of the tokens of texts, greedily by the characters
// they save net of their legend entry.
func chooseAbbrevs(texts []string) []abbrev {
	var toks []string
	for _, t := range texts {
		toks = append(toks, pathTokens(t)...)
	}
	if len(toks) == 0 {
		return nil
	}
	done := make([]bool, len(toks))
	var out []abbrev
	for len(out) < abbrevMax {
		name := "{P" + strconv.Itoa(len(out)+1) + "}"
		count := map[string]int{}
		for i, t := range toks {
			if done[i] {
				continue
			}
			// Every directory prefix of the token (a prefix is counted once
			// per token).
			for j := abbrevMinPrefix; j < len(t); j++ {
				if t[j] == '/' {
					count[t[:j]]++
				}
			}
		}
		best, bestSave := "", 0
		for p, n := range count {
			if n < 2 {
				continue
			}
			save := n*(len(p)-len(name)) - (len(p) + len(name) + len(" = ; "))
			if save > bestSave || save == bestSave && save > 0 && (len(p) > len(best) || len(p) == len(best) && p < best) {
				best, bestSave = p, save
			}
		}
		if bestSave < 60 {
			break
		}
		out = append(out, abbrev{prefix: best, name: name})
		for i, t := range toks {
			if strings.Contains(t, best+"/") {
				done[i] = true
			}
		}
	}
	return out
}

// abbreviate replaces each chosen prefix (followed by '/') in s by its name.
func abbreviate(s string, abbrevs []abbrev) string {
	for _, a := range abbrevs {
		if strings.Contains(s, a.prefix+"/") {
			s = strings.ReplaceAll(s, a.prefix+"/", a.name+"/")
		}
	}
	return s
}

// legendLine is the header line naming the abbreviations.
func legendLine(abbrevs []abbrev) string {
	byName := append([]abbrev(nil), abbrevs...)
	sort.Slice(byName, func(i, j int) bool {
		return len(byName[i].name) < len(byName[j].name) || len(byName[i].name) == len(byName[j].name) && byName[i].name < byName[j].name
	})
	parts := make([]string, len(byName))
	for i, a := range byName {
		parts[i] = a.name + " = " + OneLine(a.prefix)
	}
	return "Path abbreviations: " + strings.Join(parts, "; ")
}

// planAbbrevs decides the digest's abbreviations: only for a large budget
// whose file and command candidates, written out in full, would not fit.
func (d *digester) planAbbrevs() {
	if d.budget < abbrevMinBudget {
		return
	}
	var texts []string
	total := 0
	for _, s := range d.sections {
		if s.noun != "files" && s.noun != "commands" {
			continue
		}
		for k := 0; k < len(s.items) && k < abbrevScan; k++ {
			it := s.items[k]
			texts = append(texts, it.text)
			total += it.n
		}
	}
	if total <= d.budget/2 {
		return // everything fits as it is
	}
	d.abbrevs = chooseAbbrevs(texts)
	if len(d.abbrevs) == 0 {
		return
	}
	// Replace the longest prefixes first: a shorter one may be a prefix
	// of a longer one.
	sort.SliceStable(d.abbrevs, func(i, j int) bool { return len(d.abbrevs[i].prefix) > len(d.abbrevs[j].prefix) })
	for _, s := range d.sections {
		if s.noun != "files" && s.noun != "commands" {
			continue
		}
		for k := range s.items {
			s.items[k] = newItem(abbreviate(s.items[k].text, d.abbrevs), s.items[k].pos)
		}
	}
	d.header = append(d.header, legendLine(d.abbrevs))
}

// Command groups. When the command lines would not fit, commands that
// succeeded and share their first two words are written on one line per
// group, newest first, each variant with its outcome:
//
//	- `sed -n` ×3 → ok: `'1,40p' a.go` · `'41,80p' a.go` ×2 · `'1p' b.txt`
//
// A command that failed keeps its own line (with its error).

const (
	groupMin     = 2   // commands sharing a prefix before they are grouped
	groupLineCap = 700 // characters per group line; a longer group goes on more lines
)

// groupKey is the first two words of a command that has more, "" when it
// cannot be grouped (fewer words, a backtick or the variant separator).
func groupKey(cmd string) (key, rest string) {
	if strings.ContainsAny(cmd, "`") || strings.Contains(cmd, " · ") {
		return "", ""
	}
	i := strings.IndexByte(cmd, ' ')
	if i <= 0 {
		return "", ""
	}
	j := strings.IndexByte(cmd[i+1:], ' ')
	if j <= 0 {
		return "", ""
	}
	j += i + 1
	if strings.TrimSpace(cmd[j+1:]) == "" {
		return "", ""
	}
	return cmd[:j], cmd[j+1:]
}

// groupCommands turns s into grouped items when its lines, one per
// command, would take more than half of a large budget.
func (d *digester) groupCommands(s *dsection, cmds []RecallCommand, order []int32) {
	n := len(s.items)
	if d.budget < abbrevMinBudget || n < groupMin || n > abbrevScan {
		return
	}
	total := 0
	for _, it := range s.items {
		total += it.n
	}
	if total <= d.budget/2 {
		return
	}
	at := func(k int) *RecallCommand { return &cmds[order[k]] }
	members := map[string][]int{}
	var keys []string
	for k := range n {
		c := at(k)
		if !c.OK || c.NoResult || c.Lines > 1 || c.Failures > 0 {
			continue
		}
		key, _ := groupKey(OneLine(c.Command))
		if key == "" {
			continue
		}
		if members[key] == nil {
			keys = append(keys, key)
		}
		members[key] = append(members[key], k)
	}
	grouped := map[int]bool{}
	firstOf := map[int]string{} // first member → its group's key
	for _, key := range keys {
		if len(members[key]) >= groupMin {
			for _, k := range members[key] {
				grouped[k] = true
			}
			firstOf[members[key][0]] = key
		}
	}
	if len(firstOf) == 0 {
		return
	}
	var items []ditem
	for k := range n {
		switch key, first := firstOf[k]; {
		case first:
			items = append(items, groupLines(key, members[key], at, len(items))...)
		case !grouped[k]:
			it := s.items[k]
			it.pos = len(items)
			items = append(items, it)
		}
	}
	s.items = items
}

// groupLines renders one group as one or more lines of at most
// groupLineCap characters.
func groupLines(key string, ks []int, at func(int) *RecallCommand, pos int) []ditem {
	var out []ditem
	head := "- `" + OneLine(key) + "` ×"
	var vs []string
	flush := func(n int) {
		if len(vs) == 0 {
			return
		}
		out = append(out, newItem(head+strconv.Itoa(n)+" → ok: "+strings.Join(vs, " · "), pos+len(out)))
		vs = vs[:0]
	}
	n, size := 0, 0
	for _, k := range ks {
		c := at(k)
		_, rest := groupKey(OneLine(c.Command))
		v := "`" + rest + "`"
		if c.Runs > 1 {
			v += " ×" + strconv.Itoa(c.Runs)
		}
		if size+DigestLen(v)+3 > groupLineCap && len(vs) > 0 {
			flush(n)
			n, size = 0, 0
		}
		vs = append(vs, v)
		n++
		size += DigestLen(v) + 3
	}
	flush(n)
	return out
}
