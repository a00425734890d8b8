package hook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/ben10ctx/ben10/internal/jsonedit"
)

// Scope says which Claude Code settings file hooks are installed in.
type Scope string

// The settings scopes (Claude Code "Hook locations").
const (
	ScopeUser    Scope = "user"    // ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json)
	ScopeProject Scope = "project" // <project>/.claude/settings.json (committed)
	ScopeLocal   Scope = "local"   // <project>/.claude/settings.local.json (gitignored)
)

// Scopes lists every scope, most general first.
var Scopes = []Scope{ScopeUser, ScopeProject, ScopeLocal}

// ParseScope parses a scope name.
func ParseScope(s string) (Scope, error) {
	for _, sc := range Scopes {
		if string(sc) == s {
			return sc, nil
		}
	}
	return "", fmt.Errorf("unknown scope %q (use user, project or local)", s)
}

// SettingsPath is the settings file of scope: home is the user's home
// directory, projectDir the project's root.
func SettingsPath(scope Scope, home, projectDir string) string {
	switch scope {
	case ScopeUser:
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case ScopeLocal:
		return filepath.Join(projectDir, ".claude", "settings.local.json")
	default:
		return filepath.Join(projectDir, ".claude", "settings.json")
	}
}

// Registration is one hook Ben10 installs.
type Registration struct {
	Event   Event
	Matcher string // "" = every occurrence
	Timeout int    // seconds
}

// Registrations are the hooks `ben10 hooks install` writes. SessionEnd has
// an explicit timeout: Claude Code otherwise gives all SessionEnd hooks
// 1.5 s together, and raises that budget to the largest timeout set.
var Registrations = []Registration{
	{Event: SessionStart, Timeout: 10},
	{Event: UserPromptSubmit, Timeout: 10},
	{Event: PostToolUse, Matcher: "Edit|Write|MultiEdit|NotebookEdit|Bash", Timeout: 15},
	{Event: PreCompact, Timeout: 60},
	{Event: SessionEnd, Timeout: 5},
}

// ShimName is the file name of the hook shim (cmd/ben10-hook) without
// the platform's executable suffix. It handles every event that only
// takes note itself (internal/hooknote) and hands the rest to the ben10
// beside it.
const ShimName = "ben10-hook"

// ShimPath is where the shim of the ben10 binary binPath would be: in the
// same directory, with binPath's suffix (".exe" on Windows).
func ShimPath(binPath string) string {
	return filepath.Join(filepath.Dir(binPath), ShimName+filepath.Ext(binPath))
}

// ShimFor returns the shim next to binPath when it is there (a regular,
// executable file), else "".
func ShimFor(binPath string) string {
	p := ShimPath(binPath)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0) {
		return ""
	}
	return p
}

// Command is the shell command Claude Code runs for event with the ben10
// binary at binPath: its absolute path, quoted, then "hook <event>".
func Command(binPath string, e Event) string {
	return quote(binPath) + " hook " + e.Kebab()
}

// ShimCommand is the shell command for event through the shim at
// shimPath: its absolute path, quoted, then "<event>".
func ShimCommand(shimPath string, e Event) string {
	return quote(shimPath) + " " + e.Kebab()
}

func quote(p string) string {
	if isBareName(p) {
		return p // a command found on PATH ("ben10"): portable, no quotes needed
	}
	if runtime.GOOS == "windows" {
		return `"` + p + `"`
	}
	return `'` + strings.ReplaceAll(p, `'`, `'\''`) + `'`
}

// parseOurs reports whether a command string is one of Ben10's hook
// commands (whatever binary path it points at): "<ben10…> hook <event>" or
// "<ben10-hook> <event>". shim reports the second form.
func parseOurs(cmd string) (bin string, shim, ok bool) {
	cmd = strings.TrimSpace(cmd)
	i := strings.LastIndex(cmd, " ")
	if i < 0 {
		return "", false, false
	}
	if _, err := ParseEvent(cmd[i+1:]); err != nil {
		return "", false, false
	}
	head := strings.TrimSpace(cmd[:i])
	rest, full := strings.CutSuffix(head, " hook")
	if full {
		head = strings.TrimSpace(rest)
	}
	bin = strings.Trim(strings.ReplaceAll(head, `'\''`, `'`), `'"`)
	// The binary may be a Windows path seen from another OS: both
	// separators end the directory part.
	base := strings.ToLower(bin[strings.LastIndexAny(bin, `/\`)+1:])
	if !full {
		return bin, true, base == ShimName || base == ShimName+".exe"
	}
	return bin, false, strings.HasPrefix(base, "ben10")
}

// Installed is what Status finds of Ben10 in one settings file.
type Installed struct {
	Path    string            `json:"path"`
	Scope   Scope             `json:"scope"`
	Exists  bool              `json:"exists"`
	Events  map[Event]string  `json:"events"`            // event → command
	Binary  string            `json:"binary,omitempty"`  // the ben10 the hooks run
	Shim    string            `json:"shim,omitempty"`    // the ben10-hook shim, when events go through it
	Missing []Event           `json:"missing,omitempty"` // registrations not installed
	Timeout map[Event]float64 `json:"timeouts,omitempty"`
}

// Status reports what of Ben10 is installed in the settings file at path.
func Status(path string, scope Scope) (Installed, error) {
	st := Installed{Path: path, Scope: scope, Events: map[Event]string{}, Timeout: map[Event]float64{}}
	beside := "" // the ben10 beside the shim, when events go through it
	doc, fi, err := readSettingsFile(path)
	if err != nil {
		return st, err
	}
	st.Exists = fi != nil
	if len(bytes.TrimSpace(doc)) > 0 {
		root, err := parseRoot(doc)
		if err != nil {
			return st, fmt.Errorf("%s: not valid settings JSON: %w", path, err)
		}
		// A "hooks" that is not an object holds none of Ben10's.
		found, _, _ := findOurs(doc, root, "")
		for _, o := range found {
			cs := jsonedit.Str(doc, o.handler.Get("command"))
			bin, shim, _ := parseOurs(cs)
			st.Events[Event(o.event)] = cs
			if shim {
				st.Shim = bin
				beside = binaryBeside(bin)
			} else {
				st.Binary = bin
			}
			if t := o.handler.Get("timeout"); t != nil && t.Kind == jsonedit.Number {
				f, _ := strconv.ParseFloat(string(doc[t.Start:t.End]), 64)
				st.Timeout[Event(o.event)] = f
			}
		}
	}
	if st.Binary == "" {
		st.Binary = beside // every event through the shim, which runs this ben10
	}
	for _, reg := range Registrations {
		if _, ok := st.Events[reg.Event]; !ok {
			st.Missing = append(st.Missing, reg.Event)
		}
	}
	return st, nil
}

// binaryBeside is the ben10 binary the shim at shim runs: in the same
// directory, with the shim's suffix (the inverse of ShimPath; a Windows
// path seen from another OS too).
func binaryBeside(shim string) string {
	i := strings.LastIndexAny(shim, `/\`) + 1
	return shim[:i] + "ben10" + shim[i+len(ShimName):]
}

// isBareName reports whether p is a plain command name (letters, digits,
// '.', '_', '-'), to be found on PATH.
func isBareName(p string) bool {
	if p == "" {
		return false
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
