package transcript

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/kimi"
)

// Dirs are the data directories of each assistant under a home directory,
// with the environment overrides each assistant honours:
//
//	claude  $CLAUDE_CONFIG_DIR, else <home>/.claude
//	codex   $CODEX_HOME, else <home>/.codex
//	gemini  $GEMINI_CLI_HOME/.gemini, else <home>/.gemini
//	kimi    $KIMI_SHARE_DIR, else <home>/.kimi and the pre-2025-10 <home>/.local/share/kimi
func Dirs(home string, h archive.Harness) []string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	env := func(k string) string { return os.Getenv(k) }
	switch h {
	case archive.HarnessClaude:
		if d := env("CLAUDE_CONFIG_DIR"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".claude")}
	case archive.HarnessCodex:
		if d := env("CODEX_HOME"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".codex")}
	case archive.HarnessGemini:
		if d := env("GEMINI_CLI_HOME"); d != "" {
			return []string{filepath.Join(d, ".gemini")}
		}
		return []string{filepath.Join(home, ".gemini")}
	case archive.HarnessKimi:
		if d := env("KIMI_SHARE_DIR"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".kimi"), filepath.Join(home, ".local", "share", "kimi")}
	}
	return nil
}

// SessionFiles lists the session files of harness h (all harnesses when
// h is "") under their default locations for home ("" = the user's home):
//
//	claude  <dir>/projects/<project>/<session>.jsonl (not subagent files)
//	codex   <dir>/sessions/YYYY/MM/DD/rollout-*.jsonl and <dir>/archived_sessions/*.jsonl
//	gemini  <dir>/tmp/<project>/chats/session-*.json and session-*.jsonl
//	kimi    <dir>/sessions/<md5>/<uuid>/context.jsonl (one per session),
//	        <dir>/sessions/<md5>/<uuid>.jsonl (the flat layout) and Kimi
//	        Code's <home>/.kimi-code/sessions/*/session_*/agents/main/wire.jsonl
//
// Missing directories are not an error. The list is sorted.
func SessionFiles(home string, h archive.Harness) ([]string, error) {
	if h == "" {
		var all []string
		for _, x := range Harnesses {
			l, err := SessionFiles(home, x)
			if err != nil {
				return nil, err
			}
			all = append(all, l...)
		}
		return all, nil
	}
	var out []string
	add := func(pattern string) error {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return err
		}
		for _, p := range m {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				out = append(out, p)
			}
		}
		return nil
	}
	for _, d := range Dirs(home, h) {
		var err error
		switch h {
		case archive.HarnessClaude:
			err = add(filepath.Join(d, "projects", "*", "*.jsonl"))
		case archive.HarnessCodex:
			err = walk(filepath.Join(d, "sessions"), func(p string) bool {
				b := filepath.Base(p)
				return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
			}, &out)
			if err == nil {
				err = add(filepath.Join(d, "archived_sessions", "*.jsonl"))
			}
		case archive.HarnessGemini:
			if err = add(filepath.Join(d, "tmp", "*", "chats", "session-*.json")); err == nil {
				err = add(filepath.Join(d, "tmp", "*", "chats", "session-*.jsonl"))
			}
		case archive.HarnessKimi:
			err = add(filepath.Join(d, "sessions", "*", "*", "context.jsonl"))
			if err == nil {
				// The flat layout: sessions/<md5>/<id>.jsonl.
				var dirs []string
				dirs, err = filepath.Glob(filepath.Join(d, "sessions", "*"))
				for _, x := range dirs {
					out = append(out, kimi.FlatSessions(x)...)
				}
			}
		default:
			return nil, ErrBadHarness
		}
		if err != nil {
			return nil, err
		}
	}
	if h == archive.HarnessKimi {
		if err := add(filepath.Join(KimiCodeDir(home), "sessions", "*", "*", "agents", "main", "wire.jsonl")); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// KimiCodeDir is where Kimi Code keeps its sessions for home ("" = the
// user's home): <home>/.kimi-code.
func KimiCodeDir(home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".kimi-code")
}

// walk collects regular files under root accepted by keep; a missing root
// is empty.
func walk(root string, keep func(string) bool, out *[]string) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) || os.IsPermission(err) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() && keep(p) {
			*out = append(*out, p)
		}
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
