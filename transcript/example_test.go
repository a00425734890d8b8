package transcript_test

import (
	"fmt"

	"github.com/ben10ctx/ben10/transcript"
)

func ExampleSniff() {
	fmt.Println(transcript.Sniff("rollout.jsonl", []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`)))
	fmt.Println(transcript.Sniff("context.jsonl", []byte(`{"role":"_system_prompt","content":"…"}`)))
	fmt.Println(transcript.Sniff("session.json", []byte(`{"sessionId":"g","projectHash":"ab","messages":[]}`)))
	// Output:
	// codex
	// kimi
	// gemini
}
