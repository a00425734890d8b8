package codex

// CellCommandsForTest exposes cellCommands' commands to the tests.
func CellCommandsForTest(js string) []string {
	var out []string
	for _, c := range cellCommands(js) {
		out = append(out, c.cmd)
	}
	return out
}
