package fuzz

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
)

// FuzzDigestSummary checks the digest's summary matching against its
// definition: the header's counts of files and commands "the summary
// already names" must equal those counted with containsTermDef (a plain
// scan) on the whitespace-normalised summary. The candidates are the
// fuzzed terms and pieces cut out of the summary at fuzzed offsets, enough
// of them that Digest indexes the summary instead of scanning it.
func FuzzDigestSummary(f *testing.F) {
	f.Add("see `lib/a.ex`. ran go test ./... and ls", "lib/a.ex", "go test ./...", "/src/app/", uint64(0x0123456789abcdef))
	f.Add("edited /src/app/x.go, x.go.bak; tools: ls -la", "x.go", "ls", "/src/app", uint64(42))
	f.Add("\xff é 😀 a..b a_b a-b a\\b a/b", "a", "a..b", "", uint64(7))
	f.Add("", "", "", "", uint64(0))
	f.Fuzz(func(t *testing.T, summary, path, command, dir string, seed uint64) {
		r := archive.Recall{Version: archive.RecallVersion, Session: archive.RecallSession{Directory: dir}}
		r.Files = append(r.Files, archive.RecallFile{Path: path, Edits: 1})
		r.Commands = append(r.Commands, archive.RecallCommand{Command: command, Runs: 1, OK: true})
		norm := oneLineDef(summary)
		for i := 0; i < 40; i++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			term := ""
			if len(norm) > 0 {
				a := int(seed>>33) % len(norm)
				b := a + int(seed>>13)%(len(norm)-a+1)
				term = norm[a:b]
			}
			switch i % 4 {
			case 0:
				r.Files = append(r.Files, archive.RecallFile{Path: term, Reads: 1})
			case 1:
				r.Commands = append(r.Commands, archive.RecallCommand{Command: term, Runs: 1, OK: true})
			case 2:
				r.Files = append(r.Files, archive.RecallFile{Path: term + path, Searches: 1})
			default:
				r.Commands = append(r.Commands, archive.RecallCommand{Command: command + term, Runs: 1})
			}
		}
		d := archive.Digest(r, archive.DigestOptions{Budget: archive.RecoveryDigestBudget, Summary: summary})
		if norm == "" {
			if strings.Contains(d, "it already names") {
				t.Fatal("digest counts summary matches without a summary")
			}
			return
		}
		files, cmds := 0, 0
		cdir := strings.TrimSpace(dir)
		for len(cdir) > 1 && (strings.HasSuffix(cdir, "/") || strings.HasSuffix(cdir, `\`)) {
			cdir = cdir[:len(cdir)-1]
		}
		for _, fl := range r.Files {
			p := fl.Path
			abs := strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
			if containsTermDef(norm, p) || cdir != "" && !abs && containsTermDef(norm, cdir+"/"+p) {
				files++
			}
		}
		for _, c := range r.Commands {
			if containsTermDef(norm, c.Command) {
				cmds++
			}
		}
		want := fmt.Sprintf("; %d files and %d commands it already names are left out.", files, cmds)
		if !strings.Contains(d, want) {
			t.Fatalf("digest header lacks %q:\n%s", want, strings.SplitN(d, "\n## ", 2)[0])
		}
	})
}

// containsTermDef is the definition of a summary match: term occurs with
// no path character (letter, digit, _ - . / \) right before it and no name
// character (the same but '.') right after it.
func containsTermDef(text, p string) bool {
	if p == "" {
		return false
	}
	name := func(r rune) bool {
		return r == '_' || r == '/' || r == '\\' || r == '-' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	for i := 0; i+len(p) <= len(text); i++ {
		if text[i:i+len(p)] != p {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(p):])
		if (i == 0 || !(name(before) || before == '.')) && (i+len(p) == len(text) || !name(after)) {
			return true
		}
	}
	return false
}

// oneLineDef is the digest's whitespace normalisation by definition.
func oneLineDef(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
