package recall

import "strings"

// containsTerms reports containsTerm(text, terms[i]) for every i, in one
// pass over text instead of one per term (named must be as long as terms
// and all false).
//
// A match of a term at offset i has no path byte before it, so i starts a
// run (a maximal sequence of path bytes). Let k be the length of the
// term's leading path bytes. If k < len(term), term[k] is not a path byte,
// so the run at i is exactly term[:k]. If k == len(term), the byte after
// the match is not a name byte: the run ends there or continues with '.'.
// So every match starts a run whose whole text, or a prefix of it that a
// '.' follows, equals term[:k]. The terms are put in a map by term[:k],
// and text's runs and their dotted prefixes are looked up in it; each term
// found is checked at that offset with containsTerm's own rule. Terms that
// do not start with a path byte (k == 0) are searched with containsTerm.
// (Path and name runes are all ASCII, so a byte decides: a byte of a
// multi-byte or invalid sequence is neither.)
func containsTerms(text string, terms []string, named []bool) {
	byKey := map[string][]int{}
	for i, p := range terms {
		k := 0
		for k < len(p) && isPathRune(rune(p[k])) {
			k++
		}
		if k == 0 {
			named[i] = containsTerm(text, p)
			continue
		}
		byKey[p[:k]] = append(byKey[p[:k]], i)
	}
	if len(byKey) == 0 {
		return
	}
	lookup := func(start, end int) {
		for _, t := range byKey[text[start:end]] {
			p := terms[t]
			if !named[t] && strings.HasPrefix(text[start:], p) && (start+len(p) == len(text) || !isNameRune(rune(text[start+len(p)]))) {
				named[t] = true
			}
		}
	}
	for i := 0; i < len(text); {
		if !isPathRune(rune(text[i])) {
			i++
			continue
		}
		start := i
		for ; i < len(text) && isPathRune(rune(text[i])); i++ {
			if text[i] == '.' && i > start {
				lookup(start, i)
			}
		}
		lookup(start, i)
	}
}
