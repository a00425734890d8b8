package watch

import (
	"errors"
	"fmt"
	"github.com/bmatcuk/doublestar/v4"
	"math"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/store"
	"github.com/ben10ctx/ben10/transcript"
)

// Defaults of the global section.
const (
	DefaultPollInterval = 10 * time.Second
	DefaultCooldown     = 10 * time.Minute
	DefaultActiveWindow = 5 * time.Minute
	// MaxConfigBytes bounds watch.yaml.
	MaxConfigBytes = store.MaxConfigBytes
)

// ErrConfig is wrapped by every configuration error LoadConfig returns
// (an unreadable or unparsable file; invalid entries are Problems).
var ErrConfig = errors.New("watch: configuration")

// Config is the watcher's configuration (~/.claude-code/watch.yaml).
type Config struct {
	// Path is the file it was read from ("" for the built-in defaults).
	Path string
	// PollInterval is how often every session glob is rescanned and
	// every active session re-evaluated (global.poll_interval_seconds).
	PollInterval time.Duration
	// Cooldown is the per-session cooldown of every assistant that sets
	// none itself (global.cooldown_minutes, default 10 min); Kimi's
	// built-in default is 5 min (Appendix C), changed only by
	// llms.kimi.cooldown_minutes.
	Cooldown time.Duration
	// ActiveWindow: a session modified within it is active
	// (global.active_minutes).
	ActiveWindow time.Duration
	// LLMs holds the four assistants, always all of them, in Harnesses
	// order; a disabled one has Enabled false and, when an invalid entry
	// disabled it, Disabled says why.
	LLMs []*LLMConfig
	// Problems are the configuration's errors and warnings.
	Problems []Problem
}

// LLMConfig is one assistant's section.
type LLMConfig struct {
	Name         archive.Harness
	Enabled      bool
	Disabled     string   // why an invalid entry disabled it
	SessionPaths []string // globs; "~/" is the home directory, "**" any depth
	Thresholds   Thresholds
	Triggers     Triggers
	// Cooldown is the minimum time between two exports (archive or
	// snapshot) of one session.
	Cooldown time.Duration
}

// Thresholds are context percentages (0–100].
type Thresholds struct {
	// WarnPercent: the session is reported as close to compaction.
	WarnPercent float64 `json:"warn_percent"`
	// ExportPercent: the lower edge of the export band, where a trigger
	// also takes a pre-compaction snapshot.
	ExportPercent float64 `json:"export_percent"`
	// CompactionStartsAt: where the assistant itself compacts
	// (informational; export_percent must be below it).
	CompactionStartsAt float64 `json:"compaction_starts_at"`
}

// Triggers select what starts an export. Zero disables a numeric trigger.
type Triggers struct {
	// ContextPercent: export (archive + snapshot) when the context reaches
	// Thresholds.ExportPercent.
	ContextPercent bool `json:"context_percent"`
	// SizeMB: archive when the session file has grown by this many MB
	// since the last export (the first time: when it reaches this size).
	SizeMB float64 `json:"size_mb,omitempty"`
	// TimeMinutes: archive an active session this long after its last
	// export (or after the watcher first saw it).
	TimeMinutes float64 `json:"time_minutes,omitempty"`
	// Turns: archive after this many user turns since the last export.
	Turns int `json:"turns,omitempty"`
}

// Problem is one configuration error or warning.
type Problem struct {
	File string
	Line int
	LLM  string // "" for the global section
	Key  string
	Msg  string
	// Disabled reports an error that disabled LLM (or, for the global
	// section, that made the key fall back to its default).
	Disabled bool
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	switch {
	case p.Disabled && p.LLM != "":
		fmt.Fprintf(&b, " (%s disabled until fixed)", p.LLM)
	case p.Disabled:
		b.WriteString(" (using the default)")
	}
	return b.String()
}

// ConfigPath is ~/.claude-code/watch.yaml for home.
func ConfigPath(home string) string { return filepath.Join(home, ".claude-code", "watch.yaml") }

// StatePath is ~/.claude-code/watch-state.json for home.
func StatePath(home string) string { return filepath.Join(home, ".claude-code", "watch-state.json") }

// DefaultThresholds are the built-in thresholds per assistant. They are
// seed 002's Appendix C table, corrected where the assistants' own code
// says otherwise:
//
//	claude 75 / 75 / 83  Claude Code auto-compacts at "about 83%" of a 200k
//	                     window (the window minus a fixed buffer), not 80%
//	codex  80 / 85 / 90  auto_compact_token_limit = 90% of the window
//	gemini 40 / 45 / 50  Gemini CLI compresses at 50% of the model's token
//	                     limit (model.compressionThreshold = 0.5), so the
//	                     table's 80/85/90 would never be reached
//	kimi   70 / 79 / 80  compaction at 85%, or earlier when fewer than
//	                     50,000 tokens remain (≈ 80.9% of 262,144)
func DefaultThresholds(h archive.Harness) Thresholds {
	return map[archive.Harness]Thresholds{archive.HarnessClaude: {75, 75, 83}, archive.HarnessCodex: {80, 85, 90},
		archive.HarnessGemini: {40, 45, 50}, archive.HarnessKimi: {70, 79, 80}}[h]
}

// DefaultTriggers are the built-in triggers: context % for all; Kimi's
// unbounded wire log also by size (5 MB), time (15 min) and turns (10).
func DefaultTriggers(h archive.Harness) Triggers {
	if h == archive.HarnessKimi {
		return Triggers{ContextPercent: true, SizeMB: 5, TimeMinutes: 15, Turns: 10}
	}
	return Triggers{ContextPercent: true}
}

// DefaultSessionPaths are the globs of each assistant's session files
// under home, honouring the assistants' own directory variables
// (transcript.Dirs).
func DefaultSessionPaths(home string, h archive.Harness) []string {
	var out []string
	for _, d := range transcript.Dirs(home, h) {
		switch h {
		case archive.HarnessClaude:
			out = append(out, filepath.Join(d, "projects", "*", "*.jsonl"))
		case archive.HarnessCodex:
			out = append(out, filepath.Join(d, "sessions", "**", "rollout-*.jsonl"))
		case archive.HarnessGemini:
			out = append(out, filepath.Join(d, "tmp", "*", "chats", "session-*.json"),
				filepath.Join(d, "tmp", "*", "chats", "session-*.jsonl"))
		case archive.HarnessKimi:
			out = append(out, filepath.Join(d, "sessions", "*", "*", "context.jsonl"),
				filepath.Join(d, "sessions", "*", "*", "wire.jsonl"),
				filepath.Join(d, "sessions", "*", "*.jsonl")) // the flat layout
		}
	}
	if h == archive.HarnessKimi {
		out = append(out, filepath.Join(transcript.KimiCodeDir(home), "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	}
	return out
}

// DefaultConfig is the configuration without a file.
func DefaultConfig(home string) *Config {
	c := &Config{PollInterval: DefaultPollInterval, Cooldown: DefaultCooldown, ActiveWindow: DefaultActiveWindow}
	for _, h := range transcript.Harnesses {
		c.LLMs = append(c.LLMs, defaultLLM(home, h, c.Cooldown))
	}
	return c
}

func defaultLLM(home string, h archive.Harness, cooldown time.Duration) *LLMConfig {
	l := &LLMConfig{Name: h, Enabled: true, SessionPaths: DefaultSessionPaths(home, h),
		Thresholds: DefaultThresholds(h), Triggers: DefaultTriggers(h), Cooldown: cooldown}
	if h == archive.HarnessKimi {
		l.Cooldown = 5 * time.Minute
	}
	return l
}

// LLM returns the section of h (nil for an unknown name).
func (c *Config) LLM(h archive.Harness) *LLMConfig {
	for _, l := range c.LLMs {
		if l.Name == h {
			return l
		}
	}
	return nil
}

// LoadConfig reads path (ConfigPath(home) when empty). A missing file is
// the defaults. An unreadable or unparsable file, one larger than
// MaxConfigBytes or not a regular file is an error wrapping ErrConfig. Otherwise every entry is validated on its own: an invalid
// assistant entry disables only that assistant (Enabled false, Disabled
// set) and an invalid global key keeps its default; both are recorded in
// Problems with file and line, as are warnings (unknown or unused keys).
func LoadConfig(path, home string) (*Config, error) {
	if path == "" {
		path = ConfigPath(home)
	}
	data, err := store.ReadConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if data == nil {
		return DefaultConfig(home), nil
	}
	return ParseConfig(path, data, home)
}

// ParseConfig is LoadConfig for bytes (name is used in messages).
func ParseConfig(name string, data []byte, home string) (*Config, error) {
	c := DefaultConfig(home)
	c.Path = name
	if err := c.parse(data, home); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) parse(data []byte, home string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrConfig, c.Path, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%w: %s:%d: the document must be a mapping of global and llms", ErrConfig, c.Path, root.Line)
	}
	var llms *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "version", "$schema":
		case "global":
			c.parseGlobal(v)
		case "llms":
			llms = v
		default:
			c.warn(k.Line, "", k.Value, "unknown key, ignored (known: global, llms)")
		}
	}
	// Assistants without an explicit cooldown follow the global one.
	for _, l := range c.LLMs {
		if l.Name != archive.HarnessKimi {
			l.Cooldown = c.Cooldown
		}
	}
	if llms == nil {
		return nil
	}
	if llms.Kind != yaml.MappingNode {
		c.Problems = append(c.Problems, Problem{File: c.Path, Line: llms.Line, Key: "llms", Msg: "must be a mapping of assistant names", Disabled: true})
		return nil
	}
	for i := 0; i+1 < len(llms.Content); i += 2 {
		k, v := llms.Content[i], llms.Content[i+1]
		h, err := transcript.ParseHarness(k.Value)
		if err != nil {
			c.warn(k.Line, k.Value, "llms."+k.Value, "not an assistant ben10 watches (claude, codex, gemini, kimi), ignored")
			continue
		}
		l := c.LLM(h)
		nl := defaultLLM(home, h, c.Cooldown)
		if p, ok := c.parseLLM(nl, v); !ok {
			*l = *defaultLLM(home, h, c.Cooldown)
			l.Enabled, l.Disabled = false, p.Key+": "+p.Msg
			continue
		}
		*l = *nl
	}
	return nil
}

func (c *Config) warn(line int, llm, key, msg string) {
	c.Problems = append(c.Problems, Problem{File: c.Path, Line: line, LLM: llm, Key: key, Msg: msg})
}

func (c *Config) parseGlobal(m *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		c.Problems = append(c.Problems, Problem{File: c.Path, Line: m.Line, Key: "global", Msg: "must be a mapping", Disabled: true})
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "global." + k.Value
		var d time.Duration
		var err error
		switch k.Value {
		case "poll_interval_seconds":
			if d, err = durationOf(v, time.Second, 50*time.Millisecond, 24*time.Hour); err == nil {
				c.PollInterval = d
			}
		case "cooldown_minutes":
			if d, err = durationOf(v, time.Minute, 0, 7*24*time.Hour); err == nil {
				c.Cooldown = d
			}
		case "active_minutes":
			if d, err = durationOf(v, time.Minute, time.Second, 7*24*time.Hour); err == nil {
				c.ActiveWindow = d
			}
		case "pending_base_dir", "session_log_dir", "notifications":
			c.warn(k.Line, "", key, "not used by ben10 (snapshots go to each project's store), ignored")
		default:
			c.warn(k.Line, "", key, "unknown key, ignored (known: poll_interval_seconds, cooldown_minutes, active_minutes)")
		}
		if err != nil {
			c.Problems = append(c.Problems, Problem{File: c.Path, Line: v.Line, Key: key, Msg: err.Error(), Disabled: true})
		}
	}
}

// parseLLM fills l from the mapping m; on the first error it returns the
// problem (already recorded) and false.
func (c *Config) parseLLM(l *LLMConfig, m *yaml.Node) (Problem, bool) {
	name := string(l.Name)
	fail := func(n *yaml.Node, key, msg string) (Problem, bool) {
		full := "llms." + name
		if key != "" {
			full += "." + key
		}
		p := Problem{File: c.Path, Line: n.Line, LLM: name, Key: full, Msg: msg, Disabled: true}
		c.Problems = append(c.Problems, p)
		return p, false
	}
	if m.Kind == yaml.ScalarNode && m.Tag == "!!bool" {
		// "codex: false" / "codex: true" as a shorthand.
		var b bool
		if err := m.Decode(&b); err != nil {
			return fail(m, "", err.Error())
		}
		l.Enabled = b
		return Problem{}, true
	}
	if m.Kind != yaml.MappingNode {
		return fail(m, "", "must be a mapping (enabled, session_paths, thresholds, triggers, cooldown_minutes)")
	}
	var thr, trg *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "enabled":
			if err := decodeStrict(v, "!!bool", &l.Enabled); err != nil {
				return fail(v, k.Value, "must be true or false")
			}
		case "session_paths":
			var paths []string
			if v.Kind != yaml.SequenceNode || v.Decode(&paths) != nil {
				return fail(v, k.Value, "must be a list of glob patterns")
			}
			if len(paths) == 0 {
				return fail(v, k.Value, "is empty: give at least one glob, or set enabled: false")
			}
			for _, p := range paths {
				if err := checkGlob(p); err != nil {
					return fail(v, k.Value, err.Error())
				}
			}
			l.SessionPaths = paths
		case "thresholds":
			thr = v
		case "triggers":
			trg = v
		case "cooldown_minutes":
			d, err := durationOf(v, time.Minute, 0, 7*24*time.Hour)
			if err != nil {
				return fail(v, k.Value, err.Error())
			}
			l.Cooldown = d
		case "binary", "detection", "export", "pending_dir":
			c.warn(k.Line, name, "llms."+name+"."+k.Value, "not used by ben10, ignored")
		default:
			return fail(k, k.Value, "unknown key (known: enabled, session_paths, thresholds, triggers, cooldown_minutes)")
		}
	}
	if thr != nil {
		if thr.Kind != yaml.MappingNode {
			return fail(thr, "thresholds", "must be a mapping (warn_percent, export_percent, compaction_starts_at)")
		}
		for i := 0; i+1 < len(thr.Content); i += 2 {
			k, v := thr.Content[i], thr.Content[i+1]
			t := &l.Thresholds
			dst, ok := map[string]*float64{"warn_percent": &t.WarnPercent, "export_percent": &t.ExportPercent, "compaction_starts_at": &t.CompactionStartsAt}[k.Value]
			if !ok {
				return fail(k, "thresholds."+k.Value, "unknown key (known: warn_percent, export_percent, compaction_starts_at)")
			}
			f, err := number(v)
			if err != nil || f <= 0 || f > 100 {
				return fail(v, "thresholds."+k.Value, fmt.Sprintf("must be a percentage above 0 and at most 100, got %q", v.Value))
			}
			*dst = f
		}
		t := l.Thresholds
		switch {
		case t.WarnPercent > t.ExportPercent:
			return fail(thr, "thresholds", fmt.Sprintf("warn_percent (%g) must not exceed export_percent (%g)", t.WarnPercent, t.ExportPercent))
		case t.ExportPercent >= t.CompactionStartsAt:
			return fail(thr, "thresholds", fmt.Sprintf("export_percent (%g) must be below compaction_starts_at (%g), or the snapshot comes after the compaction", t.ExportPercent, t.CompactionStartsAt))
		}
	}
	if trg != nil {
		if trg.Kind != yaml.MappingNode {
			return fail(trg, "triggers", "must be a mapping (context_percent, size_mb, time_minutes, turns)")
		}
		for i := 0; i+1 < len(trg.Content); i += 2 {
			k, v := trg.Content[i], trg.Content[i+1]
			key := "triggers." + k.Value
			null := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
			switch k.Value {
			case "context_percent":
				if err := decodeStrict(v, "!!bool", &l.Triggers.ContextPercent); err != nil {
					return fail(v, key, "must be true or false")
				}
			case "size_mb", "time_minutes":
				f := 0.0
				if !null {
					var err error
					if f, err = number(v); err != nil || f < 0 || f > 1e6 {
						return fail(v, key, fmt.Sprintf("must be a positive number or null, got %q", v.Value))
					}
				}
				if k.Value == "size_mb" {
					l.Triggers.SizeMB = f
				} else {
					l.Triggers.TimeMinutes = f
				}
			case "turns":
				n := 0
				if !null {
					if err := decodeStrict(v, "!!int", &n); err != nil || n < 0 || n > 1e6 {
						return fail(v, key, fmt.Sprintf("must be a whole number of turns or null, got %q", v.Value))
					}
				}
				l.Triggers.Turns = n
			default:
				return fail(k, key, "unknown key (known: context_percent, size_mb, time_minutes, turns)")
			}
		}
	}
	if l.Enabled && !l.Triggers.ContextPercent && l.Triggers.SizeMB == 0 && l.Triggers.TimeMinutes == 0 && l.Triggers.Turns == 0 {
		return fail(m, "triggers", "no trigger is enabled: set one, or enabled: false")
	}
	return Problem{}, true
}

func decodeStrict(n *yaml.Node, tag string, v any) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != tag {
		return fmt.Errorf("want %s", tag)
	}
	return n.Decode(v)
}

func number(n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, fmt.Errorf("not a number: %q", n.Value)
	}
	var f float64
	if err := n.Decode(&f); err != nil {
		return 0, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a finite number: %q", n.Value)
	}
	return f, nil
}

// durationOf reads a number of units (fractions allowed) within [lo, hi].
func durationOf(n *yaml.Node, unit, lo, hi time.Duration) (time.Duration, error) {
	f, err := number(n)
	if err != nil {
		return 0, fmt.Errorf("must be a number, got %q", n.Value)
	}
	d := time.Duration(f * float64(unit))
	if f < 0 || d < lo || d > hi {
		return 0, fmt.Errorf("must be between %v and %v, got %q", lo, hi, n.Value)
	}
	return d, nil
}

// checkGlob validates a session glob: non-empty, absolute or "~/", and
// each path element a valid doublestar pattern (with {a,b} alternatives)
// or "**".
func checkGlob(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("empty glob")
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/") && p != "~" {
		return fmt.Errorf("glob %q must be absolute or start with ~/", p)
	}
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if seg == "**" || seg == "~" {
			continue
		}
		if strings.Contains(seg, "**") {
			return fmt.Errorf("glob %q: ** must be a whole path element", p)
		}
		if strings.Contains(seg, "/") || !doublestar.ValidatePattern(seg) {
			return fmt.Errorf("glob %q: bad pattern %q", p, seg)
		}
	}
	return nil
}
