package index

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ben10ctx/ben10/archive"
)

// Kinds of indexed rows.
const (
	KindUser      = "user"
	KindAssistant = "assistant"
	KindCommand   = "command"
	KindOutput    = "output"
	KindPath      = "path"
	KindError     = "error"
	KindTodo      = "todo"
	KindSummary   = "summary"
)

// Budgets for the text of one row, in bytes.
const (
	// OutputBudget bounds an indexed tool output (its head and tail).
	OutputBudget = 2048
	// TextBudget bounds an indexed message, command or summary.
	TextBudget = 32 << 10
)

// Row is one indexed piece of an archive.
type Row struct {
	Pos  int       // position in the archive, in transcript order
	Kind string    // one of the Kind constants
	Role string    // user, assistant, tool or system
	Time time.Time // when it happened (zero when unknown)
	Text string
}

// pathUse is what the tools did to one path.
type pathUse struct {
	ref    archive.RawRef
	ts     time.Time
	names  []string
	counts map[string]int
}

// entry orders the records of an archive by their raw line.
type entry struct {
	ref  archive.RawRef
	sub  int
	rows []Row
}

// Extract returns the rows of an opened archive in transcript order (raw
// file, raw line), positions numbered from 0.
func Extract(a *archive.Archive) ([]Row, error) {
	msgs, err := a.Messages()
	if err != nil {
		return nil, err
	}
	tools, err := a.Tools()
	if err != nil {
		return nil, err
	}
	comps, err := a.Compactions()
	if err != nil {
		return nil, err
	}
	tasks, err := a.Tasks()
	if err != nil {
		return nil, err
	}
	var es []entry
	paths := map[string]*pathUse{}
	var pathOrder []string
	for _, m := range msgs {
		text := strings.TrimSpace(m.Text)
		if text == "" || m.Kind == "meta" || m.Kind == "thinking" || m.Kind == "tool_use" {
			continue
		}
		kind, role := KindAssistant, m.Role
		switch {
		case m.Kind == "summary":
			kind = KindSummary
		case m.Kind == "tool_result":
			continue // the tool's output is indexed with the tool
		case m.Role == "user":
			kind = KindUser
		case m.Role == "system":
			continue
		}
		es = append(es, entry{ref: m.Ref, rows: []Row{{Kind: kind, Role: role, Time: m.Timestamp, Text: cut(text, TextBudget)}}})
	}
	for _, t := range tools {
		var rows []Row
		if c := strings.TrimSpace(t.Command); c != "" {
			rows = append(rows, Row{Kind: KindCommand, Role: "tool", Time: t.Timestamp, Text: cut(c, TextBudget)})
		}
		for _, p := range t.RelatedFiles {
			if p == "" {
				continue
			}
			pa := paths[p]
			if pa == nil {
				pa = &pathUse{ref: t.Ref, ts: t.Timestamp, counts: map[string]int{}}
				paths[p] = pa
				pathOrder = append(pathOrder, p)
			}
			if pa.counts[t.Name] == 0 {
				pa.names = append(pa.names, t.Name)
			}
			pa.counts[t.Name]++
		}
		if out := strings.TrimSpace(t.Output); out != "" && !blob(out) {
			kind := KindOutput
			if !t.Success {
				kind = KindError
			}
			rows = append(rows, Row{Kind: kind, Role: "tool", Time: t.Timestamp, Text: headTail(out, OutputBudget)})
		}
		if len(rows) > 0 {
			es = append(es, entry{ref: t.Ref, sub: 1, rows: rows})
		}
	}
	// One row per path: where it was first touched, and by which tools.
	for _, p := range pathOrder {
		pa := paths[p]
		var uses []string
		for _, n := range pa.names {
			u := n
			if c := pa.counts[n]; c > 1 {
				u += fmt.Sprintf(" ×%d", c)
			}
			uses = append(uses, u)
		}
		es = append(es, entry{ref: pa.ref, sub: 1, rows: []Row{{Kind: KindPath, Role: "tool", Time: pa.ts, Text: p + " (" + strings.Join(uses, ", ") + ")"}}})
	}
	for _, c := range comps {
		if s := strings.TrimSpace(c.Summary); s != "" {
			es = append(es, entry{ref: c.SummaryRef, sub: 2, rows: []Row{{Kind: KindSummary, Role: "system", Time: c.Timestamp, Text: cut(s, TextBudget)}}})
		}
	}
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].ref, es[j].ref
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return es[i].sub < es[j].sub
	})
	var rows []Row
	for _, e := range es {
		rows = append(rows, e.rows...)
	}
	// The todo list is state, not an event: it goes last.
	var todo []string
	for _, list := range [][]archive.Task{tasks.Active, tasks.Pending, tasks.Completed} {
		for _, t := range list {
			if c := strings.TrimSpace(t.Content); c != "" {
				todo = append(todo, "["+t.Status+"] "+c)
			}
		}
	}
	if len(todo) > 0 {
		rows = append(rows, Row{Kind: KindTodo, Role: "assistant", Time: tasks.UpdatedAt, Text: cut(strings.Join(todo, "\n"), TextBudget)})
	}
	for i := range rows {
		rows[i].Pos = i
	}
	return rows, nil
}

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " …"
}

// headTail keeps the first three quarters and the last quarter of budget.
func headTail(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	h := budget * 3 / 4
	t := budget - h
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	i := len(s) - t
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[:h] + "\n…\n" + s[i:]
}

// blob tells base64 or binary content: a long run without spaces made of
// the base64 alphabet, or control bytes.
func blob(s string) bool {
	run, ctl := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
			run++
			if run >= 1024 {
				return true
			}
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t':
			ctl++
			if ctl > 16 {
				return true
			}
			run = 0
		default:
			run = 0
		}
	}
	return false
}
