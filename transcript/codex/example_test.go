package codex_test

import (
	"fmt"

	"github.com/ben10ctx/ben10/archive"
	"github.com/ben10ctx/ben10/transcript/codex"
)

func ExampleImportBytes() {
	rollout := `{"timestamp":"2026-02-23T11:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/p","cli_version":"0.104.0"}}
{"timestamp":"2026-02-23T11:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}}
{"timestamp":"2026-02-23T11:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"list files"}}
{"timestamp":"2026-02-23T11:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}
{"timestamp":"2026-02-23T11:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a.go\n"}}
`
	s, _ := codex.ImportBytes("rollout.jsonl", []byte(rollout), archive.ImportOptions{})
	for _, m := range s.Messages {
		fmt.Printf("%s/%s %q\n", m.Role, m.Kind, m.Text)
	}
	fmt.Println(s.Tools[0].Command, s.Tools[0].Success)
	// Output:
	// user/prompt "list files"
	// assistant/tool_use ""
	// user/tool_result "a.go\n"
	// ls true
}
