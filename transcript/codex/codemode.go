package codex

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/internal/imp"
)

// Codex 0.14x "code mode": the model runs JavaScript cells through a
// custom tool named "exec"; a cell calls the harness's tools, shell
// commands through
//
//	await tools.exec_command({cmd: "go test ./...", workdir: "/repo"});
//
// and its output comes back in the matching custom_tool_call_output.
// Each exec_command call of a cell is read as a command: the cell's tool
// execution carries the first, the others get a tool execution each
// ("<call_id>#2", …) that shares the cell's output and outcome.

// codeCommand is one exec_command call found in a cell.
type codeCommand struct {
	cmd, workdir string
}

// maxCellCommands bounds the commands read from one cell.
const maxCellCommands = 64

// cellCommands finds the tools.exec_command({…}) calls of a JavaScript
// cell and reads their cmd (a string or an array of strings) and workdir
// when they are literals.
func cellCommands(js string) []codeCommand {
	var out []codeCommand
	rest := js
	for len(out) < maxCellCommands {
		i := strings.Index(rest, "exec_command")
		if i < 0 {
			break
		}
		rest = rest[i+len("exec_command"):]
		s := strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(s, "(") {
			continue
		}
		s = strings.TrimLeft(s[1:], " \t\r\n")
		if !strings.HasPrefix(s, "{") {
			continue
		}
		fields, n := jsObject(s)
		rest = s[n:]
		c := codeCommand{workdir: fields["workdir"]}
		for _, k := range []string{"cmd", "command"} {
			if v, ok := fields[k]; ok && v != "" {
				c.cmd = v
				break
			}
		}
		if c.cmd != "" {
			out = append(out, c)
		}
	}
	return out
}

// jsObject reads the literal members of the object literal at the start
// of s ("{"): string values (quoted '…', "…" or `…` without ${…}) and
// arrays of strings (as a shell command, the way imp.ShellCommand reads
// them). It returns them by key and how many bytes it read.
func jsObject(s string) (map[string]string, int) {
	fields := map[string]string{}
	i := 1
	for i < len(s) {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == '}' {
			return fields, min(i+1, len(s))
		}
		if s[i] == ',' {
			i++
			continue
		}
		// Key: an identifier or a string.
		var key string
		if q := s[i]; q == '"' || q == '\'' || q == '`' {
			k, n, ok := jsString(s[i:])
			if !ok {
				return fields, i
			}
			key, i = k, i+n
		} else {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i {
				return fields, i
			}
			key, i = s[i:j], j
		}
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != ':' {
			// Shorthand ({cmd}) or something else: no literal value.
			i = skipValue(s, i)
			continue
		}
		i = skipSpace(s, i+1)
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '"', '\'', '`':
			v, n, ok := jsString(s[i:])
			if ok {
				fields[key] = v
				i += n
				continue
			}
		case '[':
			if v, n, ok := jsStringArray(s[i:]); ok {
				fields[key] = v
				i += n
				continue
			}
		}
		i = skipValue(s, i)
	}
	return fields, len(s)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue skips a value up to the next top-level ',' or '}'.
func skipValue(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch c := s[i]; c {
		case '"', '\'', '`':
			if _, n, ok := jsString(s[i:]); ok {
				i += n
				continue
			}
			_, n := jsStringRaw(s[i:])
			i += n
			continue
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// jsString reads a string literal at the start of s: its value, the
// bytes read, and false for a template with substitutions or an
// unterminated string.
func jsString(s string) (string, int, bool) {
	v, n := jsStringRaw(s)
	if n == 0 || n > len(s) || s[n-1] != s[0] || n < 2 {
		return "", n, false
	}
	if s[0] == '`' && strings.Contains(s[1:n-1], "${") {
		return "", n, false
	}
	return v, n, true
}

// jsStringRaw decodes the escapes of a quoted literal (JSON-like, with
// \' and \` too) and returns how many bytes it spans.
func jsStringRaw(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	q := s[0]
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return sb.String(), i + 1
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'u':
				if i+4 < len(s) {
					if r, err := strconv.ParseUint(s[i+1:i+5], 16, 32); err == nil {
						sb.WriteRune(rune(r))
						i += 4
						continue
					}
				}
				sb.WriteByte(e)
			case '\n':
				// A line continuation.
			default:
				sb.WriteByte(e)
			}
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), len(s)
}

// jsStringArray reads ["a", "b", …] as a shell command.
func jsStringArray(s string) (string, int, bool) {
	var parts []string
	i := 1
	for i < len(s) {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ']' {
			raw, _ := json.Marshal(parts)
			return imp.ShellCommand(raw), i + 1, len(parts) > 0
		}
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		v, n, ok := jsString(s[i:])
		if !ok {
			return "", i, false
		}
		parts = append(parts, v)
		i += n
	}
	return "", i, false
}

// addCellCommands gives the second and later commands of a code-mode cell
// (the first is t's) a tool execution each, attached to the same message.
func (c *conv) addCellCommands(r rec, t *archive.ToolExec, cmds []codeCommand) {
	b := c.b
	msg := -1
	if n := len(b.S.Messages); n > 0 && slices.Contains(b.S.Messages[n-1].ToolCallIDs, t.ID) {
		msg = n - 1
	}
	for k, x := range cmds {
		in, _ := json.Marshal(map[string]string{"cmd": x.cmd, "workdir": x.workdir})
		id := t.ID + "#" + strconv.Itoa(k+2)
		b.AddTool(archive.ToolExec{ID: id, Name: "exec_command", Input: string(in), Command: x.cmd,
			Timestamp: r.ts, Ref: t.Ref, ResultRef: archive.RawRef{File: -1, Line: -1}})
		if msg >= 0 {
			b.S.Messages[msg].ToolCallIDs = append(b.S.Messages[msg].ToolCallIDs, id)
		}
		c.cellExtra[t.ID] = append(c.cellExtra[t.ID], id)
	}
}

// cellOutput copies a cell's output and outcome to its other commands.
func (c *conv) cellOutput(t *archive.ToolExec) {
	for _, id := range c.cellExtra[t.ID] {
		if x := c.b.Tool(id); x != nil {
			x.Output, x.OutputSpans, x.Success, x.DurationMS, x.ResultRef = t.Output, t.OutputSpans, t.Success, t.DurationMS, t.ResultRef
		}
	}
}

// agentMessage is a message between agents (response_item agent_message,
// or the rollout's inter_agent_communication): a sub-agent's report to
// its parent, or a task sent to a sub-agent.
func (c *conv) agentMessage(r rec, author, recipient, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if c.agentSeen[author+"\x00"+text] {
		return // the same report, written as both kinds of record
	}
	c.agentSeen[author+"\x00"+text] = true
	head := "[" + author + " → " + recipient + "]\n"
	c.b.AddMessage(archive.Message{ID: c.msgID(r), Role: "user", Kind: "agent", Text: head + text, AgentID: author, Timestamp: r.ts, Ref: c.ref(r)})
}

// userText splits a user message's content into what the user wrote and
// the blocks the harness injected (environment context, instructions,
// <recommended_plugins>, …): kind "meta" when nothing is the user's.
func userText(raw json.RawMessage) (text string, injected bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, isInjected(s)
	}
	var items []contentItem
	if json.Unmarshal(raw, &items) != nil {
		return "", false
	}
	var own, all []string
	for _, it := range items {
		t := it.Text
		if it.Type == "input_image" || it.Type == "image" {
			t = "[image]"
		}
		if t == "" {
			continue
		}
		all = append(all, t)
		if !isInjected(t) {
			own = append(own, t)
		}
	}
	if len(own) == 0 {
		return strings.Join(all, "\n"), len(all) > 0
	}
	return strings.Join(own, "\n"), false
}

func isInjected(t string) bool {
	t = strings.TrimSpace(t)
	return slices.ContainsFunc(metaPrefixes, func(pre string) bool { return strings.HasPrefix(t, pre) })
}
