package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ben10ctx/ben10/internal/benchdata"
	"github.com/ben10ctx/ben10/store"
)

// benchTranscript writes the demo session repeated to size bytes as the
// env's transcript of session.
func (e *env) benchTranscript(b *testing.B, session string, size int64) string {
	b.Helper()
	data, err := os.ReadFile("../testdata/demo/claude-session.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("/home/dev/cart-service"), []byte(e.project))
	p := e.transcript(session, 0)
	if err := os.WriteFile(p, benchdata.Repeat(data, size), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkTakeNote is the synchronous part of SessionEnd and PreCompact
// (in-process, without the process start): whatever the transcript's
// size, the hook reads its first 64 KiB, queues a job and returns.
//
//	go test -run '^$' -bench TakeNote -benchtime 200x ./hook/
func BenchmarkTakeNote(b *testing.B) {
	for _, event := range []string{"SessionEnd", "PreCompact"} {
		for _, size := range []int64{3 << 20, 100 << 20} {
			b.Run(fmt.Sprintf("%s/%dMB", event, size>>20), func(b *testing.B) {
				e := newEnv(&testing.T{})
				e.vars["BEN10_HOOK_WORK"] = WorkDefer
				tp := e.benchTranscript(b, demoSession, size)
				in, _ := json.Marshal(map[string]any{"session_id": demoSession, "transcript_path": tp, "cwd": e.project,
					"hook_event_name": event, "trigger": "auto", "reason": "logout"})
				st, err := store.Open(e.project, store.Options{Home: e.home})
				if err != nil {
					b.Fatal(err)
				}
				h := e.handler()
				b.ResetTimer()
				for range b.N {
					var so, se bytes.Buffer
					h.Run(context.Background(), "", bytes.NewReader(in), &so, &se)
					if se.Len() > 0 {
						b.Fatal(se.String())
					}
					b.StopTimer()
					os.RemoveAll(st.PendingDir())
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkPreCompactToSnapshot is PreCompact → snapshot verified on
// disk: the hook's note and the worker's job (real snapshot layer, the
// configured level), in-process.
//
//	go test -run '^$' -bench PreCompactToSnapshot -benchtime 3x ./hook/
func BenchmarkPreCompactToSnapshot(b *testing.B) {
	for _, size := range []int64{3 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			e := newEnv(&testing.T{})
			e.vars["BEN10_HOOK_WORK"] = WorkSync
			tp := e.benchTranscript(b, demoSession, size)
			in, _ := json.Marshal(map[string]any{"session_id": demoSession, "transcript_path": tp, "cwd": e.project,
				"hook_event_name": "PreCompact", "trigger": "auto"})
			h := e.handler()
			h.Snapshots = nil
			snaps := filepath.Join(e.project, ".claude", "context", "compaction-snapshots")
			b.ResetTimer()
			for range b.N {
				var so, se bytes.Buffer
				h.Run(context.Background(), "", bytes.NewReader(in), &so, &se)
				if se.Len() > 0 {
					b.Fatal(se.String())
				}
				b.StopTimer()
				os.RemoveAll(snaps)
				b.StartTimer()
			}
		})
	}
}
