package gemini

import "strings"

// DefaultTokenLimit is gemini-cli's DEFAULT_TOKEN_LIMIT.
const DefaultTokenLimit = 1_048_576

// TokenLimit is the context window Gemini CLI assumes for a model
// (packages/core/src/core/tokenLimits.ts):
//
//	gemini-1.5-pro                              2,097,152
//	gemini-1.5-flash, 2.0-flash, 2.5-*, 3-*     1,048,576
//	gemini-2.0-flash-preview-image-generation      32,000
//	anything else                               1,048,576 (the default)
func TokenLimit(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "gemini-1.5-pro"):
		return 2_097_152
	case strings.Contains(m, "image-generation"):
		return 32_000
	}
	return DefaultTokenLimit
}
