package hook

import (
	"encoding/json"
	"fmt"
	"github.com/ben10ctx/ben10/ctxfmt"
	"github.com/ben10ctx/ben10/internal/hooknote"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ben10ctx/ben10/internal/hookfast"
	"github.com/ben10ctx/ben10/internal/hookstart"
	"github.com/ben10ctx/ben10/store"
)

// readRawState reads the state file of the store directory root as it
// is on disk, without the prompts counted on the fast path since.
func readRawState(root string) (*State, error) {
	data, err := os.ReadFile(hooknote.StatePath(root))
	if err != nil {
		return nil, err
	}
	s := &State{}
	return s, json.Unmarshal(data, s)
}

// statePath of the env's store.
func (e *env) statePath() string { return hooknote.StatePath(e.store().Root()) }

// TestPromptFastPath: prompts with nothing due only append to the
// session's counter — the state file is not rewritten — and the counts are
// still exact, folded in by ReadState and by the next slow-path update.
func TestPromptFastPath(t *testing.T) {
	e := newEnv(t)
	e.initStore()
	e.config("  checkpoint_interval: 5\n  checkpoint_minutes: 0\n")
	tp := e.transcript(demoSession, 0)
	in := func() map[string]any { return map[string]any{"session_id": demoSession, "transcript_path": tp} }
	start := in()
	start["source"] = "startup"
	e.fire("SessionStart", start)
	cp := hookfast.CounterPath(e.store().Root(), demoSession)
	if n, _ := hookfast.ReadCounter(cp); n != 0 {
		t.Fatalf("SessionStart left a counter of %d", n)
	}
	before, err := os.ReadFile(e.statePath())
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		e.now = e.now.Add(time.Second)
		p := in()
		p["prompt"] = fmt.Sprint("p", i)
		if r := e.fire("UserPromptSubmit", p); r.stdout != "" || r.stderr != "" {
			t.Fatalf("prompt %d: stdout %q stderr %q", i, r.stdout, r.stderr)
		}
		if n, _ := hookfast.ReadCounter(cp); n != i {
			t.Fatalf("after prompt %d the counter holds %d", i, n)
		}
	}
	after, err := os.ReadFile(e.statePath())
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("the fast path rewrote the state file:\nbefore %s\nafter  %s", before, after)
	}
	if ss := e.state().Sessions[demoSession]; ss.Prompts != 4 || ss.SinceCheckpoint != 4 {
		t.Fatalf("ReadState does not fold the counter: %+v", ss)
	}
	if cps, _ := e.store().Checkpoints(); len(cps) != 0 {
		t.Fatalf("%d checkpoints before the interval", len(cps))
	}
	// The fifth is due: the slow path folds the four, counts the fifth
	// once, checkpoints and resets the counter.
	e.now = e.now.Add(time.Second)
	p := in()
	p["prompt"] = "p5"
	if r := e.fire("UserPromptSubmit", p); r.stderr != "" {
		t.Fatalf("prompt 5: %q", r.stderr)
	}
	if cps, _ := e.store().Checkpoints(); len(cps) != 1 {
		t.Fatalf("%d checkpoints after the interval, want 1", len(cps))
	}
	raw, err := readRawState(e.store().Root())
	if err != nil {
		t.Fatal(err)
	}
	if ss := raw.Sessions[demoSession]; ss.Prompts != 5 || ss.SinceCheckpoint != 0 || ss.Checkpoints != 1 {
		t.Fatalf("state after the checkpoint: %+v", ss)
	}
	if n, _ := hookfast.ReadCounter(cp); n != 0 {
		t.Fatalf("counter not reset after the checkpoint: %d", n)
	}
	data, _ := os.ReadFile(cp)
	h, err := hookfast.ParseHeader(data[:hookfast.HeaderLen])
	if err != nil || !h.Ref.Equal(e.now) || h.Base != 0 {
		t.Fatalf("counter header after the checkpoint: %+v %v (now %v)", h, err, e.now)
	}
}

// TestPromptFastPathMinutes: the time-based checkpoint is decided from the
// counter's header without reading the state.
func TestPromptFastPathMinutes(t *testing.T) {
	e := newEnv(t)
	e.initStore()
	e.config("  checkpoint_interval: 1000\n  checkpoint_minutes: 15\n")
	tp := e.transcript(demoSession, 0)
	start := map[string]any{"session_id": demoSession, "transcript_path": tp, "source": "startup"}
	e.fire("SessionStart", start)
	e.now = e.now.Add(14 * time.Minute)
	e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "transcript_path": tp, "prompt": "a"})
	if cps, _ := e.store().Checkpoints(); len(cps) != 0 {
		t.Fatalf("checkpoint after 14 minutes")
	}
	e.now = e.now.Add(time.Minute)
	e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "transcript_path": tp, "prompt": "b"})
	if cps, _ := e.store().Checkpoints(); len(cps) != 1 {
		t.Fatalf("%d checkpoints after 15 minutes, want 1", len(cps))
	}
	if ss := e.state().Sessions[demoSession]; ss.Prompts != 2 {
		t.Fatalf("prompts %d, want 2", ss.Prompts)
	}
}

// TestPromptCounterDamaged: a missing or damaged counter sends the prompt
// down the slow path, which counts it once and writes a good counter.
func TestPromptCounterDamaged(t *testing.T) {
	for name, damage := range map[string]func(p string) error{
		"missing":   os.Remove,
		"truncated": func(p string) error { return os.WriteFile(p, []byte("0001"), 0o600) },
		"garbage":   func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("z", 40)), 0o600) },
		"a directory": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.config("  checkpoint_interval: 100\n")
			tp := e.transcript(demoSession, 0)
			e.fire("SessionStart", map[string]any{"session_id": demoSession, "transcript_path": tp, "source": "startup"})
			e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "transcript_path": tp, "prompt": "a"})
			cp := hookfast.CounterPath(e.store().Root(), demoSession)
			if err := damage(cp); err != nil {
				t.Fatal(err)
			}
			r := e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "transcript_path": tp, "prompt": "b"})
			if name == "a directory" {
				// The counter cannot be replaced: the prompt is still
				// counted in the state, and the hook says what failed.
				if ss := e.state().Sessions[demoSession]; ss.Prompts < 1 {
					t.Fatalf("prompts %d", ss.Prompts)
				}
				return
			}
			if r.stderr != "" {
				t.Fatalf("stderr %q", r.stderr)
			}
			if ss := e.state().Sessions[demoSession]; ss.Prompts < 1 || ss.Prompts > 2 {
				t.Fatalf("prompts %d after damage, want 1 or 2", ss.Prompts)
			}
			data, err := os.ReadFile(cp)
			if err != nil || len(data) < hookfast.HeaderLen {
				t.Fatalf("counter not rewritten: %q %v", data, err)
			}
			if _, err := hookfast.ParseHeader(data[:hookfast.HeaderLen]); err != nil {
				t.Fatalf("counter header still damaged: %q", data)
			}
		})
	}
}

// TestPromptedRecentlyIsLive: a session that only had fast-path prompts
// for a while is still live, so a new session never receives its context.
func TestPromptedRecentlyIsLive(t *testing.T) {
	e := newEnv(t)
	e.initStore()
	e.config("  checkpoint_interval: 1000\n  checkpoint_minutes: 0\n")
	tp := e.transcript(demoSession, 0)
	e.fire("SessionStart", map[string]any{"session_id": demoSession, "transcript_path": tp, "source": "startup"})
	st := e.store()
	s, err := readRawState(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	c := &call{Call: &hooknote.Call{St: st, Now: e.now.Add(20 * time.Minute)}, h: e.handler()}
	if s.Live(demoSession, c.Now) || hookstart.PromptedRecently(c.Call, s, demoSession) {
		t.Fatal("a session idle for 20 minutes counted as live")
	}
	e.now = e.now.Add(19 * time.Minute)
	e.fire("UserPromptSubmit", map[string]any{"session_id": demoSession, "transcript_path": tp, "prompt": "a"})
	// The fast path does not change LastEvent, but the counter's time
	// shows the session is running.
	if err := os.Chtimes(hookfast.CounterPath(st.Root(), demoSession), e.now, e.now); err != nil {
		t.Fatal(err)
	}
	if !hookstart.PromptedRecently(c.Call, s, demoSession) {
		t.Fatal("a session prompted a minute ago is not live")
	}
}

// TestPreCompactWorkModes: PreCompact only queues a job; the work mode
// says who does it: a background worker (started), the hook itself
// (sync; also the former BEN10_HOOK_RECOMPRESS=sync and off), or nobody
// yet (defer). The snapshot is written once, at the configured level, of
// the transcript's size at the event.
func TestPreCompactWorkModes(t *testing.T) {
	for _, tc := range []struct {
		name, work, recompress, cfg string
		spawned, written            bool
		level                       ctxfmt.Level
	}{
		{"background", "", "", "", true, false, 0},
		{"sync", WorkSync, "", "", false, true, ctxfmt.LevelFromZstd(store.DefaultConfig().CompactionSnapshots.CompressionLevel)},
		{"former recompress=sync", "", RecompressSync, "", false, true, ctxfmt.LevelFromZstd(store.DefaultConfig().CompactionSnapshots.CompressionLevel)},
		{"former recompress=off", "", RecompressOff, "  compaction_snapshots:\n    compression_level: 1\n", false, true, ctxfmt.LevelFastest},
		{"defer", WorkDefer, "", "", false, false, 0},
		{"former recompress=defer", "", RecompressDefer, "", false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.config(tc.cfg)
			delete(e.vars, "BEN10_HOOK_WORK")
			if tc.work != "" {
				e.vars["BEN10_HOOK_WORK"] = tc.work
			}
			e.vars["BEN10_HOOK_RECOMPRESS"] = tc.recompress
			tp := e.transcript(demoSession, boundaryLine(t))
			if r := e.fire("PreCompact", map[string]any{"session_id": demoSession, "transcript_path": tp, "trigger": "auto"}); r.stderr != "" {
				t.Fatalf("PreCompact: %s", r.stderr)
			}
			if got := len(e.spawned) == 1; got != tc.spawned {
				t.Fatalf("spawned %q, want a worker started: %v", e.spawned, tc.spawned)
			}
			jobs, err := e.store().Jobs()
			if err != nil || len(jobs) != map[bool]int{true: 0, false: 1}[tc.written] {
				t.Fatalf("jobs %+v, %v", jobs, err)
			}
			if !tc.written {
				if len(e.snaps.requests) != 0 {
					t.Fatalf("snapshot written in the hook: %+v", e.snaps.requests)
				}
				return
			}
			fi, _ := os.Stat(tp)
			if len(e.snaps.requests) != 1 {
				t.Fatalf("requests %+v", e.snaps.requests)
			}
			if r := e.snaps.requests[0]; r.Level != tc.level || r.Limit != fi.Size() {
				t.Fatalf("request %+v, want level %v, limit %d", r, tc.level, fi.Size())
			}
		})
	}
}

// TestDeclineStored: after a fresh start the next startup injects nothing;
// a later save of the session is offered again.
func TestDeclineStored(t *testing.T) {
	e := newEnv(t)
	tp := e.transcript(demoSession, 0)
	e.fire("SessionStart", map[string]any{"session_id": demoSession, "transcript_path": tp, "source": "startup"})
	e.fire("SessionEnd", map[string]any{"session_id": demoSession, "transcript_path": tp, "reason": "logout"})
	st, err := store.Open(e.project, store.Options{Home: e.home})
	if err != nil {
		t.Fatal(err)
	}
	d, err := DeclineStored(st, e.now)
	if err != nil || len(d) != 1 || d[0].Session != demoSession || d[0].Kind != store.KindCurrent {
		t.Fatalf("DeclineStored: %+v, %v", d, err)
	}
	if again, err := DeclineStored(st, e.now); err != nil || len(again) != 0 {
		t.Fatalf("second DeclineStored: %+v, %v", again, err)
	}
	const next = "9a8b7c6d-0000-4000-8000-000000000001"
	e.now = e.now.Add(time.Minute)
	if r := e.fire("SessionStart", map[string]any{"session_id": next, "transcript_path": tp, "source": "startup"}); r.out != nil {
		t.Fatalf("startup after a fresh start injected %+v", r.out)
	}
	var declined int
	for _, r := range e.state().Recoveries {
		if r.State == RecoveryDeclined {
			declined++
		}
	}
	if declined != 1 {
		t.Fatalf("%d declined recoveries, want 1", declined)
	}
}
