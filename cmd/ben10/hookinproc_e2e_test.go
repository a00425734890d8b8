package main

import (
	"os"
	"strings"
	"testing"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"github.com/ben10ctx/ben10/store"
)

// TestHookTakeNoteInOneProcess drives every event that only takes note
// through the real `ben10 hook` with BEN10_HOOK_DEADLINE=1ns, which stops
// any supervised child before it answers (TestHookSupervisedDeadline): each
// still exits 0 with an empty stderr and leaves its note (the state, the
// queued job), so it ran in the hook's own process.
func TestHookTakeNoteInOneProcess(t *testing.T) {
	w := newHookWorld(t, "0b6c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d2e")
	w.writeDemo()
	w.writeConfig("context:\n  checkpoint_interval: 1\n")
	if err := os.MkdirAll(w.contextDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	// defer: jobs are queued and no worker is started, so nothing outlives
	// the test and the queue shows what each hook noted.
	env := []string{"BEN10_HOOK_WORK=defer", hookfast.DeadlineEnv + "=1ns"}
	for _, tc := range []struct {
		event  string
		fields map[string]any
		job    string // the job the event queues ("" none)
	}{
		{"SessionStart", map[string]any{"source": "resume"}, ""},
		{"UserPromptSubmit", map[string]any{"prompt": "run the tests"}, "Checkpoint"},
		{"PostToolUse", map[string]any{"tool_name": "Read"}, ""},
		{"Stop", nil, ""},
		{"PreCompact", map[string]any{"trigger": "auto"}, "PreCompact"},
		{"PostCompact", map[string]any{"trigger": "auto", "compact_summary": "Summary: the cart total was fixed."}, ""},
		{"SessionEnd", map[string]any{"reason": "prompt_input_exit"}, "SessionEnd"},
	} {
		t.Run(tc.event, func(t *testing.T) {
			before := len(w.jobs())
			if out := w.fire(tc.event, tc.fields, env...); out != nil {
				t.Fatalf("%s printed %+v, want nothing", tc.event, out)
			}
			js := w.jobs()
			switch {
			case tc.job == "" && len(js) != before:
				t.Fatalf("%s queued a job: %+v", tc.event, js)
			case tc.job != "" && (len(js) != before+1 || !hasJob(js, tc.job)):
				t.Fatalf("%s: want a %s job queued, have %+v", tc.event, tc.job, js)
			}
			st, err := hooknote.ReadState(w.contextDir())
			if err != nil {
				t.Fatal(err)
			}
			ss := st.Sessions[w.session]
			if ss == nil || ss.LastEvent.IsZero() {
				t.Fatalf("%s left no note of the session in the hook state", tc.event)
			}
			switch tc.event {
			case "PostCompact":
				if !strings.Contains(ss.CompactSummary, "cart total") {
					t.Fatalf("PostCompact kept summary %q", ss.CompactSummary)
				}
			case "SessionEnd":
				if ss.Ended.IsZero() || ss.EndReason != "prompt_input_exit" {
					t.Fatalf("SessionEnd noted ended %v, reason %q", ss.Ended, ss.EndReason)
				}
			}
		})
	}
}

// TestHookRewrittenTranscriptJobInChild: a transcript found shorter than
// an earlier queued job saw is saved before the hook returns. `ben10 hook`
// runs PreCompact in its own process, so that save (which decodes the
// store's archives) runs in a supervised child, `ben10 internal work
// --once`: when the hook returns, both jobs are done, none failed, and no
// worker is left running.
func TestHookRewrittenTranscriptJobInChild(t *testing.T) {
	w := newHookWorld(t, "1c7d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f")
	w.writeDemo()
	env := []string{"BEN10_HOOK_WORK=defer"}
	w.fire("PreCompact", map[string]any{"trigger": "auto"}, env...)
	if js := w.jobs(); len(js) != 1 {
		t.Fatalf("want the first PreCompact queued, have %+v", js)
	}
	full, err := os.ReadFile(w.transcript)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(full), "\n"), "\n")
	w.writeTranscript([]byte(strings.Join(lines[:len(lines)/2], "")))
	w.fire("PreCompact", map[string]any{"trigger": "manual"}, env...)
	if js := w.jobs(); len(js) != 0 {
		t.Fatalf("the rewritten transcript's jobs were not done before the hook returned: %+v", js)
	}
	if w.workerRunning() || processesWithHome(w.home) {
		t.Fatal("a worker outlived the hook")
	}
	if data, _ := os.ReadFile(hookfast.ErrorLogPath(w.home)); len(data) != 0 {
		t.Fatalf("error log: %s", data)
	}
}

func hasJob(js []store.Job, event string) bool {
	for _, j := range js {
		if j.Event == event && !j.Failed {
			return true
		}
	}
	return false
}
