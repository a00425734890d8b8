package transcript

import (
	"os"
	"path/filepath"

	"github.com/ben10ctx/ben10/archive"
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
	switch h {
	case archive.HarnessClaude:
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".claude")}
	case archive.HarnessCodex:
		if d := os.Getenv("CODEX_HOME"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".codex")}
	case archive.HarnessGemini:
		if d := os.Getenv("GEMINI_CLI_HOME"); d != "" {
			return []string{filepath.Join(d, ".gemini")}
		}
		return []string{filepath.Join(home, ".gemini")}
	case archive.HarnessKimi:
		if d := os.Getenv("KIMI_SHARE_DIR"); d != "" {
			return []string{d}
		}
		return []string{filepath.Join(home, ".kimi"), filepath.Join(home, ".local", "share", "kimi")}
	}
	return nil
}

// KimiCodeDir is where Kimi Code keeps its sessions for home ("" = the
// user's home): <home>/.kimi-code.
func KimiCodeDir(home string) string {
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".kimi-code")
}
