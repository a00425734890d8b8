package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShimCompactPrepared: PreCompact's job (done inside the hook here,
// BEN10_HOOK_WORK=sync) leaves the snapshot's prepared recall, and after
// the compaction the shim alone — a copy with no ben10 beside it, which
// can only hand an event on by failing — injects exactly the bytes
// `ben10 hook` prints from the archive, and removes the prepared file. A
// prepared file that was forged, truncated, replaced by a symbolic link
// or renamed to another snapshot's name is never injected: the lone shim
// hands the event on (and fails, with ben10 missing), and the shim beside
// ben10 injects the archive's digest.
func TestShimCompactPrepared(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	full, err := os.ReadFile("../../testdata/demo/claude-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	full = bytes.ReplaceAll(full, []byte("/home/dev/cart-service"), []byte(w.project))
	cut := bytes.Index(full, []byte(`"subtype":"compact_boundary"`))
	if cut < 0 {
		t.Fatal("no compact_boundary line in the demo transcript")
	}
	cut = bytes.LastIndexByte(full[:cut], '\n') + 1
	w.writeTranscript(full[:cut])
	input := func(event string, extra map[string]any) []byte {
		in := map[string]any{"session_id": w.session, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": event}
		for k, v := range extra {
			in[k] = v
		}
		data, _ := json.Marshal(in)
		return data
	}
	if r := runBinary(t, shimBin, input("PreCompact", map[string]any{"trigger": "auto"}), w.env, "pre-compact"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("PreCompact: %+v", r)
	}
	prepared, _ := filepath.Glob(filepath.Join(w.contextDir(), "prepared", "*.recall"))
	if len(prepared) != 1 {
		t.Fatalf("prepared recalls after the PreCompact job: %v", prepared)
	}
	w.writeTranscript(full) // the compaction appends its boundary and summary
	saved := filepath.Join(t.TempDir(), "context")
	if err := os.CopyFS(saved, os.DirFS(w.contextDir())); err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		if err := os.RemoveAll(w.contextDir()); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(w.contextDir(), os.DirFS(saved)); err != nil {
			t.Fatal(err)
		}
	}
	lone := filepath.Join(t.TempDir(), "ben10-hook")
	data, err := os.ReadFile(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o700); err != nil {
		t.Fatal(err)
	}
	compact := input("SessionStart", map[string]any{"source": "compact"})

	light := runBinary(t, lone, compact, w.env, "session-start")
	if light.code != 0 || light.stderr != "" || !strings.Contains(light.stdout, "restored after compaction from snapshot") {
		t.Fatalf("the lone shim did not inject the prepared recall: %+v", light)
	}
	if _, err := os.Stat(prepared[0]); !os.IsNotExist(err) {
		t.Errorf("prepared recall kept after its injection: %v", err)
	}
	if rc := w.state().Recoveries; len(rc) != 1 || rc[0].State != "consumed" || rc[0].ConsumedBy != w.session {
		t.Errorf("recoveries after the light injection: %+v", rc)
	}

	// The same store without the prepared file: `ben10 hook` reads the
	// archive and prints the same bytes.
	restore()
	if err := os.RemoveAll(filepath.Join(w.contextDir(), "prepared")); err != nil {
		t.Fatal(err)
	}
	heavy := runBen10(t, compact, w.env, "hook", "session-start")
	if heavy.code != 0 || heavy.stderr != "" || heavy.stdout != light.stdout {
		t.Fatalf("ben10 hook from the archive:\n%s\nthe shim from the prepared recall:\n%s", heavy.stdout, light.stdout)
	}

	good, err := os.ReadFile(filepath.Join(saved, "prepared", filepath.Base(prepared[0])))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		plant func(p string) error
	}{
		{"forged", func(p string) error {
			return os.WriteFile(p, bytes.Replace(good, []byte(`"files":[`), []byte(`"files" :[`), 1), 0o600)
		}},
		{"truncated", func(p string) error { return os.WriteFile(p, good[:len(good)/2], 0o600) }},
		{"symbolic link", func(p string) error {
			elsewhere := filepath.Join(t.TempDir(), "x.recall")
			if err := os.WriteFile(elsewhere, good, 0o600); err != nil {
				return err
			}
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Symlink(elsewhere, p)
		}},
		{"another snapshot's name", func(p string) error {
			return os.Rename(p, filepath.Join(filepath.Dir(p), "pre-compact-999.recall"))
		}},
	} {
		restore()
		if err := tc.plant(filepath.Join(w.contextDir(), "prepared", filepath.Base(prepared[0]))); err != nil {
			t.Fatal(err)
		}
		if tc.name == "another snapshot's name" {
			// The state names snapshot pre-compact-999: its prepared file
			// must be bound to that id.
			st := filepath.Join(w.contextDir(), "hook-state.json")
			s, _ := os.ReadFile(st)
			id := strings.TrimSuffix(filepath.Base(prepared[0]), ".recall")
			if err := os.WriteFile(st, bytes.ReplaceAll(s, []byte(id), []byte("pre-compact-999")), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		r := runBinary(t, lone, compact, w.env, "session-start")
		if r.stdout != "" || !strings.Contains(r.stderr, "ben10 is not next to ben10-hook") {
			t.Errorf("%s: the lone shim did not hand the event on: %+v", tc.name, r)
		}
		if rc := w.state().Recoveries; len(rc) != 1 || rc[0].State != "active" {
			t.Errorf("%s: the hook state changed: %+v", tc.name, rc)
		}
		if tc.name != "forged" {
			continue // ben10 hook reading the archive: once is enough
		}
		if r := runBinary(t, shimBin, compact, w.env, "session-start"); r.stdout != heavy.stdout || r.stderr != "" {
			t.Errorf("%s: the shim beside ben10 did not inject the archive's digest: %+v", tc.name, r)
		}
	}
}

// TestShimStartupLight: SessionStart(startup) in a project whose store
// holds nothing to offer is handled by the shim alone (the lone copy,
// with no ben10 beside it) and recorded in the hook state; once the
// store holds a saved context, the shim hands the event to ben10.
func TestShimStartupLight(t *testing.T) {
	t.Parallel()
	w := newShimWorld(t, "")
	r := runBinary(t, w.lone, w.input("SessionStart", map[string]any{"source": "startup"}), w.env, "session-start")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("startup with nothing to offer: %+v", r)
	}
	if ss := w.state().Sessions[w.session]; ss == nil || ss.LastEvent.IsZero() {
		t.Fatalf("the event was not recorded: %+v", ss)
	}
	if err := os.WriteFile(filepath.Join(w.contextDir(), "current.ctx"), []byte("saved"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, w.lone, w.input("SessionStart", map[string]any{"source": "clear"}), w.env, "session-start")
	if r.stdout != "" || !strings.Contains(r.stderr, "ben10 is not next to ben10-hook") {
		t.Fatalf("a store with a saved context was not handed on: %+v", r)
	}
}

// TestShimStartupPrepared: the final save's job (done inside the hook
// here, BEN10_HOOK_WORK=sync) leaves a startup record of current.ctx, and
// the next session's SessionStart(startup) is decided by the shim alone —
// a copy with no ben10 beside it — with exactly the bytes `ben10 hook`
// prints from the archive; the second time the consumed key is honoured
// (nothing offered, still in the shim). `ben10 hook` records what it read,
// so the start after it is light again. A record forged, truncated,
// replaced by a symbolic link, or describing an earlier state of the
// archive is never used: the lone shim hands the event on, the hook state
// unchanged.
func TestShimStartupPrepared(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t, demoSessionID)
	w.writeDemo()
	w.fire("SessionStart", map[string]any{"source": "startup"})
	w.fire("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
	rec := filepath.Join(w.contextDir(), "prepared", "current.ctx.start")
	if _, err := os.Stat(rec); err != nil {
		t.Fatalf("the final save's job left no startup record: %v", err)
	}
	next := "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
	nextTranscript := filepath.Join(filepath.Dir(w.transcript), next+".jsonl")
	if err := os.WriteFile(nextTranscript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start, _ := json.Marshal(map[string]any{"session_id": next, "transcript_path": nextTranscript, "cwd": w.project, "hook_event_name": "SessionStart", "source": "startup"})
	saved := filepath.Join(t.TempDir(), "context")
	if err := os.CopyFS(saved, os.DirFS(w.contextDir())); err != nil {
		t.Fatal(err)
	}
	restore := func(keepRecords bool) {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(w.contextDir(), "hook-state.json")); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(saved, "hook-state.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.contextDir(), "hook-state.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if keepRecords {
			return
		}
		if err := os.RemoveAll(filepath.Join(w.contextDir(), "prepared")); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(w.contextDir(), "prepared"), os.DirFS(filepath.Join(saved, "prepared"))); err != nil {
			t.Fatal(err)
		}
	}
	lone := filepath.Join(t.TempDir(), "ben10-hook")
	data, err := os.ReadFile(shimBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o700); err != nil {
		t.Fatal(err)
	}
	consumed := func() int {
		n := 0
		for _, r := range w.state().Recoveries {
			if r.Kind == "handoff" && r.State == "consumed" && r.ConsumedBy == next {
				n++
			}
		}
		return n
	}

	light := runBinary(t, lone, start, w.env, "session-start")
	if light.code != 0 || light.stderr != "" || !strings.Contains(light.stdout, "restored context of the previous session "+demoSessionID[:8]) {
		t.Fatalf("the lone shim did not offer the recorded context: %+v", light)
	}
	if n := consumed(); n != 1 {
		t.Fatalf("recoveries consumed by the new session: %d", n)
	}
	if again := runBinary(t, lone, start, w.env, "session-start"); again.code != 0 || again.stdout != "" || again.stderr != "" {
		t.Fatalf("the second start: %+v", again)
	}

	// The same state without the record: `ben10 hook` reads the archive,
	// prints the same bytes, and records it.
	restore(false)
	if err := os.RemoveAll(filepath.Join(w.contextDir(), "prepared")); err != nil {
		t.Fatal(err)
	}
	heavy := runBen10(t, start, w.env, "hook", "session-start")
	if heavy.code != 0 || heavy.stderr != "" || heavy.stdout != light.stdout {
		t.Fatalf("ben10 hook from the archive:\n%s\nthe shim from the record:\n%s", heavy.stdout, light.stdout)
	}
	restore(true)
	if r := runBinary(t, lone, start, w.env, "session-start"); r.stdout != light.stdout || r.stderr != "" {
		t.Fatalf("the start after ben10 hook's is not light: %+v", r)
	}

	good, err := os.ReadFile(filepath.Join(saved, "prepared", "current.ctx.start"))
	if err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(w.contextDir(), "current.ctx")
	for _, tc := range []struct {
		name  string
		plant func(p string) error
	}{
		{"forged", func(p string) error {
			return os.WriteFile(p, bytes.Replace(good, []byte(`"authentic":true`), []byte(`"authentic" :true`), 1), 0o600)
		}},
		{"truncated", func(p string) error { return os.WriteFile(p, good[:len(good)/2], 0o600) }},
		{"symbolic link", func(p string) error {
			elsewhere := filepath.Join(t.TempDir(), "x.start")
			if err := os.WriteFile(elsewhere, good, 0o600); err != nil {
				return err
			}
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Symlink(elsewhere, p)
		}},
		{"archive touched since", func(string) error {
			later := time.Now().Add(time.Second)
			return os.Chtimes(cur, later, later)
		}},
	} {
		restore(false)
		if err := tc.plant(filepath.Join(w.contextDir(), "prepared", "current.ctx.start")); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, lone, start, w.env, "session-start")
		if r.stdout != "" || !strings.Contains(r.stderr, "ben10 is not next to ben10-hook") {
			t.Errorf("%s: the lone shim did not hand the event on: %+v", tc.name, r)
		}
		if n := consumed(); n != 0 {
			t.Errorf("%s: the hook state changed: %d consumed", tc.name, n)
		}
		if tc.name != "forged" {
			continue // ben10 hook reading the archive: once is enough
		}
		if r := runBinary(t, shimBin, start, w.env, "session-start"); r.stdout != heavy.stdout || r.stderr != "" {
			t.Errorf("%s: the shim beside ben10 did not offer the archive's digest: %+v", tc.name, r)
		}
	}
}
