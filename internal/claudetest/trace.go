package claudetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// TraceEvents are the hook events AddTraceHooks records.
var TraceEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "PostCompact", "SessionEnd"}

// traceScript records one hook call: the time it started and the hook
// JSON as one line of trace.jsonl, and on PreCompact a copy of every transcript as it is when
// the compaction starts (precompact-N-<name>.jsonl).
const traceScript = `#!/bin/sh
dir=$(dirname "$0")
at=$(date +%s%N)
in=$(cat)
printf '{"at_ns":%s,"input":%s}\n' "$at" "$in" >> "$dir/trace.jsonl"
if [ "$1" = PreCompact ]; then
	n=$(printf '%03d' "$(ls "$dir" | grep -c '^precompact-')")
	for f in "$HOME"/.claude/projects/*/*.jsonl; do
		[ -f "$f" ] && cp "$f" "$dir/precompact-$n-$(basename "$f")"
	done
fi
exit 0
`

// AddTraceHooks adds, beside whatever hooks settings.json already has, a
// hook for each of TraceEvents that records its input (Trace) — proof
// that Claude Code fired the event, independent of what Ben10's hook did
// with it. Matching hooks run in parallel, so it does not delay Ben10's.
func (h *Home) AddTraceHooks() error {
	dir := h.traceDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("claudetest: %w", err)
	}
	script := filepath.Join(dir, "trace.sh")
	if err := os.WriteFile(script, []byte(traceScript), 0o700); err != nil {
		return fmt.Errorf("claudetest: %w", err)
	}
	path := h.SettingsPath()
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("claudetest: %w", err)
	}
	var settings map[string]any
	if err := json.Unmarshal(data, &settings); err != nil {
		return fmt.Errorf("claudetest: %s: %w", path, err)
	}
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	for _, ev := range TraceEvents {
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": fmt.Sprintf("'%s' %s", script, ev), "timeout": 10}}})
	}
	settings["hooks"] = hooks
	return writeJSONFile(path, settings)
}

func (h *Home) traceDir() string { return filepath.Join(h.Dir, "hook-trace") }

// HookCall is one recorded hook call.
type HookCall struct {
	Event string
	// At is when the trace hook started (matching hooks start together).
	At time.Time
	// Input is the hook JSON Claude Code sent.
	Input map[string]any
}

// Field returns the input's string field key, or "".
func (c HookCall) Field(key string) string {
	s, _ := c.Input[key].(string)
	return s
}

// Trace returns the hook calls recorded so far, in order.
func (h *Home) Trace() ([]HookCall, error) {
	data, err := os.ReadFile(filepath.Join(h.traceDir(), "trace.jsonl"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claudetest: %w", err)
	}
	var out []HookCall
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec struct {
			AtNS  int64          `json:"at_ns"`
			Input map[string]any `json:"input"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("claudetest: hook trace line %d: %w", n, err)
		}
		c := HookCall{At: time.Unix(0, rec.AtNS), Input: rec.Input}
		c.Event, _ = rec.Input["hook_event_name"].(string)
		out = append(out, c)
	}
	return out, sc.Err()
}

// Events returns the recorded calls as "Event" or "Event(detail)" where
// detail is SessionStart's source, PostToolUse's tool, PreCompact's
// trigger or SessionEnd's reason.
func Events(calls []HookCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		d := ""
		switch c.Event {
		case "SessionStart":
			d = c.Field("source")
		case "PostToolUse":
			d = c.Field("tool_name")
		case "PreCompact", "PostCompact":
			d = c.Field("trigger")
		case "SessionEnd":
			d = c.Field("reason")
		}
		if d != "" {
			out[i] = c.Event + "(" + d + ")"
		} else {
			out[i] = c.Event
		}
	}
	return out
}

// PreCompactCopies returns the transcript copies the trace hook made at
// each PreCompact, keyed by the transcript's file name; the value is the
// paths in compaction order.
func (h *Home) PreCompactCopies() (map[string][]string, error) {
	ents, err := os.ReadDir(h.traceDir())
	if err != nil {
		return nil, fmt.Errorf("claudetest: %w", err)
	}
	out := map[string][]string{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "precompact-") {
			continue
		}
		rest := strings.TrimPrefix(name, "precompact-")
		i := strings.IndexByte(rest, '-')
		if i < 0 {
			continue
		}
		out[rest[i+1:]] = append(out[rest[i+1:]], filepath.Join(h.traceDir(), name))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out, nil
}
