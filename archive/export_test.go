package archive

import "encoding/json"

// ToolInputDecodesAsJSON reports whether decodeToolInput gives for s what
// encoding/json gives (for the external corpus test).
func ToolInputDecodesAsJSON(s string) bool {
	var want, got toolInput
	_ = json.Unmarshal([]byte(s), &want)
	decodeToolInput(s, &got)
	return got == want
}
