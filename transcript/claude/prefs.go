package claude

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ben10ctx/ben10/archive"
)

// Preferences and corrections are found with a fixed, documented heuristic
// (deterministic, no model): a user prompt (not a tool result, command,
// meta or compaction summary line, not in a sidechain) of at most
// maxPrefLen characters is
//   - a correction when it starts with a negation or a redirect: "no",
//     "nope", "not that", "don't", "do not", "stop", "wrong", "that's
//     wrong/not", "actually", "instead", "undo", "revert", "you broke",
//     "why did you";
//   - a preference when it contains a standing instruction: "always",
//     "never", "i prefer", "prefer ", "please use", "please don't", "i
//     like", "i want you to", "make sure (to|you)", "from now on", "in the
//     future", "going forward", "remember to", "use … instead of".
//
// Correction wins when both match. The stored text is the prompt's first
// maxPrefLen characters.
var (
	correctionRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(no\b|nope\b|not that\b|don'?t\b|do not\b|stop\b|wrong\b|that'?s (wrong|not)\b|that is (wrong|not)\b|actually\b|instead\b|undo\b|revert\b|you broke\b|why did you\b)`)
	})
	preferenceRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(always|never|i prefer|prefer to|please use|please don'?t|i like|i want you to|make sure (to|you)|from now on|in the future|going forward|remember to|use \S+ instead of)\b`)
	})
)

const maxPrefLen = 500

func preferences(msgs []archive.Message) []archive.Preference {
	var out []archive.Preference
	for _, m := range msgs {
		if m.Role != "user" || m.Kind != "prompt" || m.Sidechain || m.Text == "" {
			continue
		}
		text := strings.TrimSpace(m.Text)
		if len(text) > 4*maxPrefLen {
			// Long pasted prompts are instructions, not corrections.
			continue
		}
		kind := ""
		switch {
		case correctionRe().MatchString(text):
			kind = "correction"
		case preferenceRe().MatchString(text):
			kind = "preference"
		default:
			continue
		}
		if r := []rune(text); len(r) > maxPrefLen {
			text = string(r[:maxPrefLen])
		}
		out = append(out, archive.Preference{Kind: kind, Text: text, Timestamp: m.Timestamp, MessageID: m.ID})
	}
	return out
}
