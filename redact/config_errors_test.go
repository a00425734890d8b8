package redact

import (
	"errors"
	"regexp/syntax"
	"testing"
)

// TestConfigErrorsKeepTheirCause: a bad allowlist or extra rule is
// ErrConfig and, through the same chain, the regular expression's own
// *syntax.Error.
func TestConfigErrorsKeepTheirCause(t *testing.T) {
	for name, cfg := range map[string]Config{
		"allow":      {Allow: []string{"(unclosed"}},
		"extra rule": {Extra: []UserRule{{ID: "corp", Regex: "[unclosed"}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(cfg)
			var se *syntax.Error
			if !errors.Is(err, ErrConfig) || !errors.As(err, &se) {
				t.Fatalf("New: %v (ErrConfig %v, *syntax.Error %v)", err, errors.Is(err, ErrConfig), errors.As(err, &se))
			}
		})
	}
}
