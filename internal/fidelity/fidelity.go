package fidelity

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/internal/testcorpus"
)

// CorpusDir locates the shared corpus (package testcorpus).
func CorpusDir() (dir string, ok bool) { return testcorpus.Find("") }

// Session is a Claude Code transcript cut at its first compact_boundary.
type Session struct {
	Pre      []byte // the lines before the boundary, as written, newline-terminated
	Lines    int    // how many lines Pre holds
	Summary  string // the isCompactSummary text after the boundary ("" if none)
	Root     string // the project directory: the cwd of the first line that has one
	Paths    []string
	Commands []string
}

// Cut cuts a transcript at its first compact_boundary and collects the
// paths and commands used before it. ok is false without a boundary.
func Cut(data []byte) (s Session, ok bool) {
	all := CutAll(data)
	if len(all) == 0 {
		return s, false
	}
	return all[0], true
}

// CutAll cuts a transcript at each of its compact_boundary lines: the
// k-th Session holds the lines before the k-th boundary, the summary
// that follows it, and the paths and commands used in all those lines
// (earlier segments included: they were in some context before).
func CutAll(data []byte) []Session {
	lines := bytes.Split(data, []byte("\n"))
	var out []Session
	pending := -1 // index in out of the boundary waiting for its summary
	for i, l := range lines {
		var h struct {
			Type             string `json:"type"`
			Subtype          string `json:"subtype"`
			IsCompactSummary bool   `json:"isCompactSummary"`
			IsSidechain      bool   `json:"isSidechain"`
			Message          struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if !bytes.Contains(l, []byte(`ompact`)) || json.Unmarshal(l, &h) != nil || h.IsSidechain {
			continue
		}
		switch {
		case h.Type == "system" && h.Subtype == "compact_boundary":
			s := Session{Pre: append(bytes.Join(lines[:i], []byte("\n")), '\n'), Lines: i}
			u := CollectUsed(lines[:i])
			s.Root, s.Paths, s.Commands = u.Root, u.Paths, u.Commands
			out = append(out, s)
			pending = len(out) - 1
		case h.IsCompactSummary && pending >= 0:
			out[pending].Summary = contentText(h.Message.Content)
			pending = -1
		}
	}
	return out
}

func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// Used is what a session used: its root and distinct paths and commands.
type Used struct {
	Root     string
	Paths    []string
	Commands []string
}

// CollectUsed collects, from the main chain's tool calls in lines, the
// distinct file paths and Bash commands (by CommandIdentity).
func CollectUsed(lines [][]byte) Used {
	var u Used
	seenP, seenC := map[string]bool{}, map[string]bool{}
	for _, l := range lines {
		var h struct {
			Type        string `json:"type"`
			Cwd         string `json:"cwd"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &h) != nil {
			continue
		}
		if u.Root == "" && h.Cwd != "" {
			u.Root = h.Cwd
		}
		if h.Type != "assistant" || h.IsSidechain {
			continue
		}
		var blocks []struct {
			Type  string         `json:"type"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}
		if json.Unmarshal(h.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_use" {
				continue
			}
			keys := []string{"file_path", "notebook_path", "path"}
			if b.Name == "Glob" {
				keys = append(keys, "pattern")
			}
			for _, k := range keys {
				p, _ := b.Input[k].(string)
				if p == "" || strings.TrimSuffix(p, "/") == u.Root || seenP[p] {
					continue
				}
				seenP[p] = true
				u.Paths = append(u.Paths, p)
			}
			if b.Name == "Bash" {
				c, _ := b.Input["command"].(string)
				if id := CommandIdentity(c); id != "" && !seenC[id] {
					seenC[id] = true
					u.Commands = append(u.Commands, id)
				}
			}
		}
	}
	return u
}

// NormWS collapses every run of whitespace to one space.
func NormWS(s string) string { return strings.Join(strings.Fields(s), " ") }

// CommandIdentity is what must appear for a command to count as present:
// its first line, whitespace-normalised.
func CommandIdentity(c string) string {
	c = strings.TrimSpace(c)
	if i := strings.IndexByte(c, '\n'); i >= 0 {
		c = c[:i]
	}
	return NormWS(c)
}

// Appears reports whether term occurs in text as a whole: not preceded by
// a letter, digit or one of _ - . / \ and not followed by a letter, digit
// or one of _ - / \ ("ls" is not in "tools", "a.ex" not in "a.exs").
func Appears(text, term string) bool {
	if term == "" {
		return false
	}
	pathRune := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./\\", r)
	}
	for off := 0; ; {
		i := strings.Index(text[off:], term)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(term):])
		okBefore := i == 0 || !pathRune(before)
		okAfter := i+len(term) == len(text) || after == '.' || !pathRune(after)
		if okBefore && okAfter {
			return true
		}
		off = i + 1
	}
}

// PathPresent: the path as used, or its form relative to root, appears in
// the (whitespace-normalised) text.
func PathPresent(text, root, p string) bool {
	if Appears(text, p) {
		return true
	}
	if r := strings.TrimSuffix(root, "/") + "/"; strings.HasPrefix(p, r) {
		return Appears(text, p[len(r):])
	}
	return false
}

// Share counts the paths and commands a text holds.
type Share struct{ Paths, Commands, PathsOK, CommandsOK int }

// Ratio is the share of paths and commands together (1 when there are
// none).
func (s Share) Ratio() float64 {
	if s.Paths+s.Commands == 0 {
		return 1
	}
	return float64(s.PathsOK+s.CommandsOK) / float64(s.Paths+s.Commands)
}

// Measure counts the paths and commands of u present in text.
func (u Used) Measure(text string) Share {
	n := NormWS(text)
	s := Share{Paths: len(u.Paths), Commands: len(u.Commands)}
	for _, p := range u.Paths {
		if PathPresent(n, u.Root, p) {
			s.PathsOK++
		}
	}
	for _, c := range u.Commands {
		if Appears(n, c) {
			s.CommandsOK++
		}
	}
	return s
}

// Used returns what the session used before its boundary.
func (s Session) Used() Used { return Used{Root: s.Root, Paths: s.Paths, Commands: s.Commands} }

// Expand rewrites a digest's dense notation back into the items it
// stands for, so that Measure counts what the digest names:
//
//   - the "Path abbreviations: {P1} = /a/b; {P2} = …" legend's names are
//     replaced by their prefixes;
//   - a command group line "- `sed -n` ×3 → ok: `'1p' a` · `'2p' b` ×2 · …"
//     stands for the commands "sed -n '1p' a", "sed -n '2p' b", …, which
//     are appended one per line.
func Expand(digest string) string {
	var pairs []string
	for _, l := range strings.Split(digest, "\n") {
		if legend, ok := strings.CutPrefix(l, "Path abbreviations: "); ok {
			for _, e := range strings.Split(legend, "; ") {
				name, prefix, ok := strings.Cut(e, " = ")
				if ok && strings.HasPrefix(name, "{P") {
					pairs = append(pairs, name+"/", prefix+"/")
				}
			}
			break
		}
	}
	if len(pairs) > 0 {
		digest = strings.NewReplacer(pairs...).Replace(digest)
	}
	var extra []string
	for _, l := range strings.Split(digest, "\n") {
		rest, ok := strings.CutPrefix(l, "- `")
		if !ok {
			continue
		}
		key, rest, ok := strings.Cut(rest, "` ×")
		if !ok {
			continue
		}
		_, variants, ok := strings.Cut(rest, " → ok: ")
		if !ok {
			continue
		}
		for _, v := range strings.Split(variants, " · ") {
			v = strings.TrimPrefix(v, "`")
			if i := strings.LastIndex(v, "`"); i >= 0 {
				v = v[:i]
			}
			extra = append(extra, key+" "+v)
		}
	}
	if len(extra) == 0 {
		return digest
	}
	return digest + "\n" + strings.Join(extra, "\n")
}
