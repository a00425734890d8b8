package store

import (
	"fmt"
	"strings"

	"github.com/ben10ctx/ben10/redact"
)

// Redactor builds the secret redactor the configuration asks for: nil
// when context.sensitive_redaction is off (or c is nil), otherwise the
// built-in rules tuned by context.redaction.*. Every writer of the store
// — saves, the agent digest, a kept compaction summary — redacts with it.
func (c *Config) Redactor() (*redact.Redactor, error) {
	if c == nil || !c.SensitiveRedaction {
		return nil, nil
	}
	rc := redact.Config{
		Disabled:    c.Redaction.DisabledRules,
		Allow:       c.Redaction.Allowlist,
		AllowPaths:  c.Redaction.AllowPaths,
		Replacement: strings.ReplaceAll(c.Redaction.Replacement, "<rule-id>", "%s"),
	}
	for _, r := range c.Redaction.ExtraRules {
		rc.Extra = append(rc.Extra, redact.UserRule{ID: r.ID, Regex: r.Regex, Keywords: r.Keywords})
	}
	r, err := redact.New(rc)
	if err != nil {
		return nil, fmt.Errorf("context.redaction: %w", err)
	}
	return r, nil
}
