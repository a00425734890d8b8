package fidelity

import (
	"bytes"
	"encoding/json"
	"strings"
)

// CutAllCodex cuts a Codex rollout at each of its compacted records: the
// k-th Session holds the lines before the k-th one, what the compaction
// left in context (its message, or the texts of its replacement
// history), and the paths and commands used in all those lines.
func CutAllCodex(data []byte) []Session {
	lines := bytes.Split(data, []byte("\n"))
	var out []Session
	for i, l := range lines {
		if !bytes.Contains(l, []byte(`"compacted"`)) {
			continue
		}
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Message     string `json:"message"`
				Replacement []struct {
					Type    string          `json:"type"`
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"replacement_history"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &r) != nil || r.Type != "compacted" {
			continue
		}
		s := Session{Pre: append(bytes.Join(lines[:i], []byte("\n")), '\n'), Lines: i, Summary: r.Payload.Message}
		for _, it := range r.Payload.Replacement {
			if it.Type == "message" {
				s.Summary += "\n" + codexContent(it.Content)
			}
		}
		u := CollectUsedCodex(lines[:i])
		s.Root, s.Paths, s.Commands = u.Root, u.Paths, u.Commands
		out = append(out, s)
	}
	return out
}

func codexContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &items)
	var parts []string
	for _, it := range items {
		parts = append(parts, it.Text)
	}
	return strings.Join(parts, "\n")
}

// CollectUsedCodex collects, from a rollout's tool calls, the distinct
// shell commands (exec_command's cmd, shell's command; by
// CommandIdentity) and the paths apply_patch added, updated or deleted.
func CollectUsedCodex(lines [][]byte) Used {
	var u Used
	seenP, seenC := map[string]bool{}, map[string]bool{}
	addPath := func(p string) {
		if p = strings.TrimSpace(p); p != "" && !seenP[p] && strings.TrimSuffix(p, "/") != u.Root {
			seenP[p] = true
			u.Paths = append(u.Paths, p)
		}
	}
	for _, l := range lines {
		var r struct {
			Type    string `json:"type"`
			Payload struct {
				Type      string `json:"type"`
				Cwd       string `json:"cwd"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
				Input     string `json:"input"`
			} `json:"payload"`
		}
		if json.Unmarshal(l, &r) != nil {
			continue
		}
		p := r.Payload
		if u.Root == "" && (r.Type == "session_meta" || r.Type == "turn_context") && p.Cwd != "" {
			u.Root = p.Cwd
		}
		if r.Type != "response_item" {
			continue
		}
		var cmd string
		switch {
		case p.Type == "function_call" && (p.Name == "exec_command" || p.Name == "shell" || p.Name == "shell_command"):
			var a struct {
				Cmd     json.RawMessage `json:"cmd"`
				Command json.RawMessage `json:"command"`
			}
			_ = json.Unmarshal([]byte(p.Arguments), &a)
			for _, raw := range []json.RawMessage{a.Cmd, a.Command} {
				if c := shellText(raw); c != "" {
					cmd = c
					break
				}
			}
		case p.Type == "custom_tool_call" && p.Name == "apply_patch":
			for _, line := range strings.Split(p.Input, "\n") {
				for _, pre := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "} {
					if strings.HasPrefix(line, pre) {
						addPath(strings.TrimPrefix(line, pre))
					}
				}
			}
		}
		if id := CommandIdentity(cmd); id != "" && !seenC[id] {
			seenC[id] = true
			u.Commands = append(u.Commands, id)
		}
	}
	return u
}

// shellText reads a command given as a string or as an argv array
// (["bash", "-lc", "script"] gives the script).
func shellText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}
