package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ben10ctx/ben10/archive"
)

// MarkdownOutputLimit bounds how much of one tool output Markdown shows.
const MarkdownOutputLimit = 4000

// Markdown writes a readable transcript of s.
func Markdown(w io.Writer, s *archive.State) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	m := s.Meta
	title := m.Title
	if title == "" {
		title = m.SessionID
	}
	if title == "" {
		title = "session"
	}
	fmt.Fprintf(bw, "# %s\n\n", oneLine(title))
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(bw, "- **%s:** %s\n", k, v)
		}
	}
	row("Assistant", string(m.Harness))
	row("Session", m.SessionID)
	row("Model", m.Model)
	row("Directory", m.DirectoryPath)
	row("Git branch", m.GitBranch)
	row("Client version", m.ClientVersion)
	row("Started", mdTime(earliest(m.FirstActivity, m.CreatedAt)))
	row("Last activity", mdTime(m.LastActivity))
	fmt.Fprintf(bw, "- **Messages:** %d · **Tool calls:** %d · **Files:** %d · **Compactions:** %d\n", len(s.Messages), len(s.Tools), len(s.Files), len(s.Compactions))
	if m.ContextTokens > 0 {
		ctx := fmt.Sprintf("%d tokens", m.ContextTokens)
		if m.ContextWindow > 0 {
			ctx += fmt.Sprintf(" of %d (%.0f%%)", m.ContextWindow, 100*float64(m.ContextTokens)/float64(m.ContextWindow))
		}
		row("Context tokens", ctx)
	}
	if m.TotalTokens > 0 {
		row("Tokens used", fmt.Sprintf("%d (all requests)", m.TotalTokens))
	}
	if len(s.Tasks.Active)+len(s.Tasks.Pending)+len(s.Tasks.Completed) > 0 {
		fmt.Fprintf(bw, "\n## Tasks\n\n")
		for _, g := range []struct {
			tasks []archive.Task
			line  string
		}{{s.Tasks.Active, "- [ ] %s *(in progress)*\n"}, {s.Tasks.Pending, "- [ ] %s\n"}, {s.Tasks.Completed, "- [x] %s\n"}} {
			for _, t := range g.tasks {
				fmt.Fprintf(bw, g.line, oneLine(t.Content))
			}
		}
	}
	fmt.Fprintf(bw, "\n## Transcript\n")
	err := Walk(s, func(e Event) error {
		switch {
		case e.Compaction != nil:
			c := e.Compaction
			fmt.Fprintf(bw, "\n---\n\n**Context compacted** (%s%s)\n\n", c.Trigger, stamp(c.Timestamp))
			if c.Summary != "" {
				quote(bw, c.Summary)
			}
			fmt.Fprintf(bw, "\n---\n")
		case e.Message != nil:
			x := e.Message
			if x.Text == "" && x.Kind == "tool_use" {
				return nil
			}
			who := map[string]string{"user": "User", "assistant": "Assistant", "system": "System"}[x.Role]
			if who == "" {
				who = x.Role
			}
			label := who
			switch x.Kind {
			case "thinking":
				label += " (thinking)"
			case "summary":
				label += " (summary)"
			case "meta":
				label += " (context)"
			case "info", "error", "warning":
				label += " (" + x.Kind + ")"
			}
			if x.Sidechain {
				label += " — subagent " + x.AgentID
			}
			fmt.Fprintf(bw, "\n### %s%s\n\n", label, stamp(x.Timestamp))
			if x.Kind == "thinking" || x.Kind == "meta" {
				quote(bw, x.Text)
			} else {
				fmt.Fprintf(bw, "%s\n", strings.TrimRight(x.Text, "\n"))
			}
		case e.Result:
			t := e.Tool
			status := "ok"
			if !t.Success {
				status = "failed"
			}
			fmt.Fprintf(bw, "\n<details><summary>Result of %s: %s</summary>\n\n", mdEscape(t.Name+" "+t.ID), status)
			fence(bw, "", clip(t.Output))
			fmt.Fprintf(bw, "</details>\n")
		default:
			t := e.Tool
			fmt.Fprintf(bw, "\n**Tool call: %s**%s\n\n", mdEscape(t.Name), stamp(t.Timestamp))
			if t.Command != "" {
				fence(bw, "sh", t.Command)
			} else {
				fence(bw, "json", clip(t.Input))
			}
			if len(t.RelatedFiles) > 0 {
				fmt.Fprintf(bw, "Files: %s\n", "`"+strings.Join(t.RelatedFiles, "`, `")+"`")
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("export: markdown: %w", err)
	}
	if len(s.Files) > 0 {
		fmt.Fprintf(bw, "\n## Files\n\n| File | Reads | Edits | Writes |\n|---|---|---|---|\n")
		for _, f := range s.Files {
			fmt.Fprintf(bw, "| `%s` | %d | %d | %d |\n", strings.ReplaceAll(f.Path, "|", "\\|"), f.Reads, f.Edits, f.Writes)
		}
	}
	return bw.Flush()
}

func mdTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " · " + t.UTC().Format("2006-01-02 15:04:05")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

var mdEscaper = strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`)

func mdEscape(s string) string { return mdEscaper.Replace(oneLine(s)) }

func clip(s string) string {
	if len(s) <= MarkdownOutputLimit {
		return s
	}
	cut := MarkdownOutputLimit
	for cut > 0 && cut < len(s) && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more bytes)", len(s)-cut)
}

// fence writes text in a code fence longer than any backtick run in it.
func fence(w io.Writer, lang, text string) {
	n, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", f, lang, strings.TrimRight(text, "\n"), f)
}

func quote(w io.Writer, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(w, "> %s\n", l)
	}
}
